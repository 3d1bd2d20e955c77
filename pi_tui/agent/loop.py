"""The agent loop, as pi's: stream a reply, run its tools, repeat until the model stops.

`run_prompt` starts a run with new messages, `run_continue` resumes from the existing transcript, and
both hand over to `run_loop`. Events go to `emit`, which the loop awaits. Provider failures arrive as
error/aborted assistant messages and end the run; an exception raised here (a `stream_fn` or converter
that throws, a failing listener) propagates to the caller, which owns the run-failure path.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Sequence

from pi_tui.agent.events import (
    AgentEndEvent,
    AgentStartEvent,
    MessageEndEvent,
    MessageStartEvent,
    MessageUpdateEvent,
    TurnEndEvent,
    TurnStartEvent,
)
from pi_tui.agent.loop_types import AgentContext, EventSink, LoopConfig, MessageSource
from pi_tui.agent.maybe_await import maybe_await
from pi_tui.agent.tool_execution import execute_tool_calls, now_ms
from pi_tui.ai.abort import AbortSignal
from pi_tui.ai.messages import AgentMessage, AssistantMessage, TextContent, ToolResultMessage
from pi_tui.ai.stream import LlmContext, StreamEvent, StreamFunction, StreamOptions

ABORTED_REQUEST_TEXT = "Request was aborted"
NO_FINAL_MESSAGE_TEXT = "Stream ended without a final message"


class ContinueError(ValueError):
    """`run_continue` was asked to resume from a transcript it cannot resume from."""


async def run_prompt(
    prompts: Sequence[AgentMessage],
    context: AgentContext,
    config: LoopConfig,
    emit: EventSink,
    signal: AbortSignal,
    stream_fn: StreamFunction,
) -> list[AgentMessage]:
    """Start a run with `prompts` appended to the context; returns every message the run added."""
    new_messages: list[AgentMessage] = list(prompts)
    current = AgentContext(context.system_prompt, [*context.messages, *prompts], list(context.tools))
    await emit(AgentStartEvent())
    await emit(TurnStartEvent())
    for prompt in prompts:
        await emit(MessageStartEvent(prompt))
        await emit(MessageEndEvent(prompt))
    await run_loop(current, new_messages, config, emit, signal, stream_fn)
    return new_messages


async def run_continue(
    context: AgentContext,
    config: LoopConfig,
    emit: EventSink,
    signal: AbortSignal,
    stream_fn: StreamFunction,
) -> list[AgentMessage]:
    """Resume without new messages (retries, overflow recovery). The last message must not be assistant."""
    if not context.messages:
        raise ContinueError("Cannot continue: no messages in context")
    if context.messages[-1].role == "assistant":
        raise ContinueError("Cannot continue from message role: assistant")
    new_messages: list[AgentMessage] = []
    current = AgentContext(context.system_prompt, list(context.messages), list(context.tools))
    await emit(AgentStartEvent())
    await emit(TurnStartEvent())
    await run_loop(current, new_messages, config, emit, signal, stream_fn)
    return new_messages


async def _poll(source: MessageSource | None) -> list[AgentMessage]:
    return list(await maybe_await(source())) if source is not None else []


async def run_loop(
    context: AgentContext,
    new_messages: list[AgentMessage],
    config: LoopConfig,
    emit: EventSink,
    signal: AbortSignal,
    stream_fn: StreamFunction,
) -> None:
    """The turn loop shared by both entry points; `agent_start` and the first `turn_start` are emitted."""
    pending = await _poll(config.get_steering_messages)
    first_turn = True
    while True:
        more_tool_calls = True
        while more_tool_calls or pending:
            if not first_turn:
                await emit(TurnStartEvent())
            first_turn = False

            for message in pending:
                await emit(MessageStartEvent(message))
                await emit(MessageEndEvent(message))
                context.messages.append(message)
                new_messages.append(message)
            pending = []

            assistant = await stream_assistant_response(context, config, emit, signal, stream_fn)
            new_messages.append(assistant)
            if assistant.stop_reason in ("error", "aborted"):
                await emit(TurnEndEvent(assistant, []))
                await emit(AgentEndEvent(list(new_messages)))
                return

            results: list[ToolResultMessage] = []
            more_tool_calls = False
            if assistant.tool_calls:
                batch = await execute_tool_calls(context, assistant, config, signal, emit)
                results = batch.messages
                more_tool_calls = not batch.terminate
                context.messages.extend(results)
                new_messages.extend(results)

            await emit(TurnEndEvent(assistant, results))
            pending = await _poll(config.get_steering_messages)

        follow_ups = await _poll(config.get_follow_up_messages)
        if not follow_ups:
            break
        pending = follow_ups

    await emit(AgentEndEvent(list(new_messages)))


def aborted_message(config: LoopConfig, text: str = ABORTED_REQUEST_TEXT) -> AssistantMessage:
    """What a provider answers to a request whose signal already fired."""
    return AssistantMessage(
        content=[TextContent(text="")],
        api=config.model.api,
        provider=config.model.provider,
        model=config.model.id,
        stop_reason="aborted",
        error_message=text,
        timestamp=now_ms(),
    )


async def _request(
    context: AgentContext, config: LoopConfig, signal: AbortSignal, stream_fn: StreamFunction
) -> AsyncIterator[StreamEvent]:
    messages = list(context.messages)
    if config.transform_context is not None:
        messages = await config.transform_context(messages, signal)
    llm_messages = list(await maybe_await(config.convert_to_llm(messages)))
    api_key = config.api_key
    if config.get_api_key is not None:
        api_key = await maybe_await(config.get_api_key(config.model.provider)) or api_key
    options = StreamOptions(
        api_key=api_key,
        max_tokens=config.max_tokens,
        reasoning=config.reasoning,
        signal=signal,
        session_id=config.session_id,
    )
    llm_context = LlmContext(context.system_prompt, llm_messages, [tool.spec() for tool in context.tools])
    return stream_fn(config.model, llm_context, options)


async def stream_assistant_response(
    context: AgentContext,
    config: LoopConfig,
    emit: EventSink,
    signal: AbortSignal,
    stream_fn: StreamFunction,
) -> AssistantMessage:
    """Stream one reply into the context and return the final message.

    The partial is pushed at `start` and replaced by each update; the final message replaces it (or is
    appended with its own `message_start` when no `start` came). If the signal has already fired (tools
    finished under abort) no request is made: the reply is an aborted message at once.
    """
    if signal.aborted:
        aborted = aborted_message(config)
        context.messages.append(aborted)
        await emit(MessageStartEvent(aborted))
        await emit(MessageEndEvent(aborted))
        return aborted

    started = time.monotonic()
    stream = await _request(context, config, signal, stream_fn)
    added_partial = False
    final: AssistantMessage | None = None
    try:
        async for event in stream:
            if event.type == "start":
                context.messages.append(event.partial)
                added_partial = True
                await emit(MessageStartEvent(event.partial.model_copy()))
            elif event.terminal:
                final = event.message or event.partial
                break
            elif added_partial:
                context.messages[-1] = event.partial
                await emit(MessageUpdateEvent(event.partial.model_copy(), event))
    finally:
        closer = getattr(stream, "aclose", None)
        if closer is not None:
            await closer()

    if final is None:
        # A provider that breaks the contract: never leave the loop without a final message.
        final = aborted_message(config) if signal.aborted else aborted_message(config, NO_FINAL_MESSAGE_TEXT)
        if not signal.aborted:
            final = final.model_copy(update={"stop_reason": "error"})
    # pi 1.6 records how long the reply took and the level it was asked for on every reply.
    if final.duration_ms is None:
        final.duration_ms = max(0, round((time.monotonic() - started) * 1000))
    final.thinking_level = config.reasoning or "off"
    if added_partial:
        context.messages[-1] = final
    else:
        context.messages.append(final)
        await emit(MessageStartEvent(final.model_copy()))
    await emit(MessageEndEvent(final))
    return final
