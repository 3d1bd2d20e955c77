"""Executing one assistant message's tool calls, in pi's order.

Per call, in assistant order: `tool_execution_start`, then preparation (lookup, invalid-JSON check,
`prepare_arguments`, validation, `before_tool_call`); a failure there is an immediate error result.
Prepared calls run sequentially or concurrently; `after_tool_call` may rewrite each result. Nothing a
tool or hook raises escapes: it becomes an error result. Only listener failures propagate.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from pi_tui.agent.events import (
    MessageEndEvent,
    MessageStartEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    ToolExecutionUpdateEvent,
)
from pi_tui.agent.hooks import AfterToolCallContext, BeforeToolCallContext
from pi_tui.agent.loop_types import AgentContext, EventSink, LoopConfig
from pi_tui.agent.maybe_await import maybe_await
from pi_tui.agent.tool import OPERATION_ABORTED, AgentTool, ToolResult
from pi_tui.agent.validation import invalid_json_failure, validate_tool_arguments
from pi_tui.ai.abort import AbortSignal
from pi_tui.ai.messages import AssistantMessage, TextContent, ToolCall, ToolResultMessage
from pi_tui.ai.valid_text import has_surrogates, text_from_os, valid_os_value

BLOCKED_TEXT = "Tool execution was blocked"


def tool_not_found_text(name: str) -> str:
    return f"Tool {name} not found"


def error_result(text: str) -> ToolResult:
    """An error result made by the loop itself: one text block, `details` `{}` (as pi)."""
    return ToolResult.error(text)


def exception_text(error: BaseException) -> str:
    return str(error) or type(error).__name__


def now_ms() -> int:
    return int(time.time() * 1000)


@dataclass(frozen=True)
class ToolBatch:
    """The results of one assistant message's calls, in call order; `terminate` stops the loop."""

    messages: list[ToolResultMessage]
    terminate: bool


@dataclass(frozen=True)
class _Finalized:
    tool_call: ToolCall
    result: ToolResult
    is_error: bool


@dataclass(frozen=True)
class _Prepared:
    tool_call: ToolCall
    tool: AgentTool[Any]
    args: BaseModel


class _Run:
    """One batch: the shared pieces every step needs."""

    def __init__(
        self,
        context: AgentContext,
        assistant: AssistantMessage,
        config: LoopConfig,
        signal: AbortSignal,
        emit: EventSink,
    ) -> None:
        self.context = context
        self.assistant = assistant
        self.config = config
        self.signal = signal
        self.emit = emit

    async def start(self, call: ToolCall) -> None:
        await self.emit(ToolExecutionStartEvent(call.id, call.name, call.arguments))

    async def end(self, done: _Finalized) -> None:
        await self.emit(
            ToolExecutionEndEvent(done.tool_call.id, done.tool_call.name, done.result, done.is_error)
        )

    async def result_message(self, done: _Finalized) -> ToolResultMessage:
        message = ToolResultMessage(
            tool_call_id=done.tool_call.id,
            tool_name=done.tool_call.name,
            content=list(done.result.content),
            details=done.result.details,
            is_error=done.is_error,
            timestamp=now_ms(),
        )
        await self.emit(MessageStartEvent(message))
        await self.emit(MessageEndEvent(message))
        return message

    def immediate(self, call: ToolCall, text: str) -> _Finalized:
        return _Finalized(call, error_result(text), True)

    async def prepare(self, call: ToolCall) -> _Prepared | _Finalized:
        tool = self.context.find_tool(call.name)
        if tool is None:
            return self.immediate(call, tool_not_found_text(call.name))
        try:
            failure = invalid_json_failure(call)
            if failure is not None:
                return self.immediate(call, failure)
            args = validate_tool_arguments(tool, call, tool.prepare_arguments(dict(call.arguments)))
            if self.config.before_tool_call is not None:
                before = await maybe_await(
                    self.config.before_tool_call(
                        BeforeToolCallContext(self.assistant, call, args, self.context), self.signal
                    )
                )
                if self.signal.aborted:
                    return self.immediate(call, OPERATION_ABORTED)
                if before is not None and before.block:
                    return self.immediate(call, before.reason or BLOCKED_TEXT)
            if self.signal.aborted:
                return self.immediate(call, OPERATION_ABORTED)
            return _Prepared(call, tool, args)
        except Exception as error:
            return self.immediate(call, exception_text(error))

    async def execute(self, prepared: _Prepared) -> _Finalized:
        call = prepared.tool_call
        updates: list[asyncio.Task[None]] = []
        accepting = True

        async def deliver(partial: ToolResult, previous: asyncio.Task[None] | None) -> None:
            if previous is not None:
                await previous
            await self.emit(ToolExecutionUpdateEvent(call.id, call.name, call.arguments, partial))

        def on_update(partial: ToolResult) -> Awaitable[None] | None:
            # Works whether or not the tool awaits the returned task; all are awaited before the end.
            # Shielded: a tool that stops awaiting (its streaming task cancelled when its command ends)
            # must not cancel the delivery, which would end the whole run before the result is recorded.
            if not accepting:
                return None
            task = asyncio.create_task(deliver(partial, updates[-1] if updates else None))
            updates.append(task)
            handle = asyncio.shield(task)
            # A failed delivery is raised from the gather below, not again from an unawaited handle.
            handle.add_done_callback(lambda done: done.cancelled() or done.exception())
            return handle

        try:
            result = await prepared.tool.execute(call.id, prepared.args, self.signal, on_update)
            is_error = result.is_error
        except Exception as error:
            result, is_error = error_result(exception_text(error)), True
        finally:
            accepting = False
            if updates:
                await asyncio.gather(*updates)
        return await self.finalize(prepared, result, is_error)

    async def finalize(self, prepared: _Prepared, result: ToolResult, is_error: bool) -> _Finalized:
        hook = self.config.after_tool_call
        if hook is not None:
            try:
                after = await maybe_await(
                    hook(
                        AfterToolCallContext(
                            self.assistant, prepared.tool_call, prepared.args, result, is_error, self.context
                        ),
                        self.signal,
                    )
                )
                if after is not None:
                    result = dataclasses.replace(
                        result,
                        content=after.content if after.content is not None else result.content,
                        details=after.details if after.details is not None else result.details,
                        terminate=after.terminate if after.terminate is not None else result.terminate,
                    )
                    is_error = after.is_error if after.is_error is not None else is_error
            except Exception as error:
                result, is_error = error_result(exception_text(error)), True
        return _Finalized(prepared.tool_call, _valid_result(result, is_error), is_error)


def _valid_result(result: ToolResult, is_error: bool) -> ToolResult:
    """A result as valid text: a file name that is not UTF-8 (`ls`, `find`, `grep`, a command's own
    decoding) reaches Python as surrogates, which no request, print or export could encode; they become
    U+FFFD, as pi's Node decodes such names."""
    content = [
        block.model_copy(update={"text": text_from_os(block.text)})
        if isinstance(block, TextContent) and has_surrogates(block.text)
        else block
        for block in result.content
    ]
    return dataclasses.replace(
        result, content=content, details=valid_os_value(result.details), is_error=is_error
    )


def _terminates(done: list[_Finalized]) -> bool:
    return bool(done) and all(item.result.terminate for item in done)


async def _sequential(run: _Run, calls: list[ToolCall]) -> ToolBatch:
    done: list[_Finalized] = []
    messages: list[ToolResultMessage] = []
    for call in calls:
        await run.start(call)
        prepared = await run.prepare(call)
        finalized = prepared if isinstance(prepared, _Finalized) else await run.execute(prepared)
        await run.end(finalized)
        messages.append(await run.result_message(finalized))
        done.append(finalized)
        if run.signal.aborted:
            break
    return ToolBatch(messages, _terminates(done))


async def _parallel(run: _Run, calls: list[ToolCall]) -> ToolBatch:
    entries: list[_Finalized | _Prepared] = []
    for call in calls:
        await run.start(call)
        prepared = await run.prepare(call)
        if isinstance(prepared, _Finalized):
            await run.end(prepared)
        entries.append(prepared)
        if run.signal.aborted:
            break

    tasks: dict[int, asyncio.Task[_Finalized]] = {}
    try:
        async with asyncio.TaskGroup() as group:
            for index, entry in enumerate(entries):
                if isinstance(entry, _Prepared):
                    tasks[index] = group.create_task(_run_prepared(run, entry))
    except BaseExceptionGroup as failures:
        # Only a listener can fail here; surface its own exception, not the group.
        raise failures.exceptions[0] from None
    done = [tasks[index].result() if index in tasks else entry for index, entry in enumerate(entries)]
    finalized = [item for item in done if isinstance(item, _Finalized)]
    messages = [await run.result_message(item) for item in finalized]
    return ToolBatch(messages, _terminates(finalized))


async def _run_prepared(run: _Run, prepared: _Prepared) -> _Finalized:
    """One concurrent call: its `tool_execution_end` goes out when it finishes (completion order)."""
    if run.signal.aborted:
        finalized = run.immediate(prepared.tool_call, OPERATION_ABORTED)
    else:
        finalized = await run.execute(prepared)
    await run.end(finalized)
    return finalized


async def execute_tool_calls(
    context: AgentContext,
    assistant: AssistantMessage,
    config: LoopConfig,
    signal: AbortSignal,
    emit: EventSink,
) -> ToolBatch:
    """Run the assistant message's tool calls, emitting pi's events in pi's order."""
    calls = assistant.tool_calls
    run = _Run(context, assistant, config, signal, emit)
    sequential = config.tool_execution == "sequential" or any(
        (tool := context.find_tool(call.name)) is not None and tool.execution_mode == "sequential"
        for call in calls
    )
    return await (_sequential(run, calls) if sequential else _parallel(run, calls))
