"""The scripted provider: deterministic replies for tests and `--demo`, on the real stream contract.

Each call consumes the next `ScriptedReply`: thinking, then text, then tool calls, streamed in chunks
with an optional per-chunk delay, ending in `done` or (for `error`) an `error` event with that exact
message, so overflow and retryable texts drive the same paths as a real provider. Every context it
is called with is recorded for assertions on prompts. It never raises: an exhausted script answers
`scripted provider: no more replies`, and an abort ends the reply as `aborted` mid-stream.

Replies are stamped with the model's `api` and shaped like that API's provider would store them: for
`openai-responses`, thinking is signed with its reasoning item (`rs_<n>`, without `encrypted_content`:
there is nothing to encrypt), text with its message item id (`msg_<n>`), and tool-call ids are
`call_<n>_<i>|fc_<n>_<i>`, so an offline session replays like a real one.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import time
from collections.abc import AsyncIterator, Iterable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from pi_tui.ai.abort import AbortSignal
from pi_tui.ai.js_json import js_dumps
from pi_tui.ai.messages import (
    AssistantMessage,
    ModelPrices,
    StopReason,
    TextContent,
    ThinkingContent,
    ToolCall,
    Usage,
    compute_cost,
)
from pi_tui.ai.provider_call import ABORTED_MESSAGE
from pi_tui.ai.responses_input import encode_text_signature
from pi_tui.ai.stream import LlmContext, StreamEvent, StreamEventType, StreamOptions
from pi_tui.ai.tool_arguments import make_tool_call
from pi_tui.config.model_config import ModelConfig

EXHAUSTED_MESSAGE = "scripted provider: no more replies"
RESPONSES_API = "openai-responses"
CHARS_PER_TOKEN = 4
_TEXT_EVENTS: tuple[StreamEventType, StreamEventType, StreamEventType] = (
    "text_start",
    "text_delta",
    "text_end",
)
_THINKING_EVENTS: tuple[StreamEventType, StreamEventType, StreamEventType] = (
    "thinking_start",
    "thinking_delta",
    "thinking_end",
)


class _Spec(BaseModel):
    model_config = ConfigDict(
        defer_build=True, alias_generator=to_camel, populate_by_name=True, extra="forbid"
    )


class ScriptedToolCall(_Spec):
    """`arguments` as an object, or as raw text (sent verbatim, so it may be invalid JSON)."""

    name: str
    arguments: dict[str, Any] | str = Field(default_factory=dict)
    id: str | None = None


class ScriptedUsage(_Spec):
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0


class ScriptedReply(_Spec):
    """One reply. Usage is estimated (chars/4 of the request and of the reply) unless given."""

    text: str = ""
    thinking: str = ""
    tool_calls: list[ScriptedToolCall] = Field(default_factory=list)
    error: str | None = None
    stop_reason: StopReason | None = None
    usage: ScriptedUsage | None = None
    chunk_size: int = Field(default=8, gt=0)
    delay_s: float | None = Field(default=None, ge=0)


class ScriptFile(_Spec):
    replies: list[ScriptedReply]
    delay_s: float = Field(default=0.0, ge=0)


def _chunks(text: str, size: int) -> list[str]:
    return [text[start : start + size] for start in range(0, len(text), size)]


def _estimate(chars: int) -> int:
    return math.ceil(chars / CHARS_PER_TOKEN)


def _request_chars(context: LlmContext) -> int:
    total = len(context.system_prompt) + sum(len(js_dumps(tool.parameters)) for tool in context.tools)
    return total + sum(len(js_dumps(message.to_json_obj())) for message in context.messages)


class _Aborted(Exception):
    pass


class ScriptedProvider:
    """A `StreamFunction` replaying `replies` in order; `contexts` holds every request it received."""

    def __init__(self, replies: Iterable[ScriptedReply] = (), *, delay_s: float = 0.0) -> None:
        self.replies: list[ScriptedReply] = list(replies)
        self.delay_s = delay_s
        self.contexts: list[LlmContext] = []
        self.options: list[StreamOptions] = []

    @classmethod
    def from_json(cls, path: Path) -> ScriptedProvider:
        """Load `{"replies": [...], "delayS"?: seconds}` (camelCase or snake_case keys).

        A script is program input (a bundled demo or a test's file): a malformed one raises
        `OSError`, `ValueError` or pydantic's `ValidationError` here, never later while streaming.
        """
        script = ScriptFile.model_validate(json.loads(path.read_text(encoding="utf-8")))
        return cls(script.replies, delay_s=script.delay_s)

    def add(self, *replies: ScriptedReply) -> None:
        self.replies.extend(replies)

    @property
    def calls(self) -> int:
        return len(self.contexts)

    def __call__(
        self, model: ModelConfig, context: LlmContext, options: StreamOptions
    ) -> AsyncIterator[StreamEvent]:
        snapshot = LlmContext(context.system_prompt, list(context.messages), list(context.tools))
        self.contexts.append(snapshot)
        self.options.append(options)
        number = len(self.contexts)
        reply = self.replies.pop(0) if self.replies else ScriptedReply(error=EXHAUSTED_MESSAGE)
        return _Replay(model, snapshot, options.signal, reply, number, self.delay_s).run()


class _Replay:
    def __init__(
        self,
        model: ModelConfig,
        context: LlmContext,
        signal: AbortSignal | None,
        reply: ScriptedReply,
        number: int,
        delay_s: float,
    ) -> None:
        self.model = model
        self.context = context
        self.signal = signal
        self.reply = reply
        self.number = number
        self.delay_s = reply.delay_s if reply.delay_s is not None else delay_s
        self.responses = model.api == RESPONSES_API
        self.partial = AssistantMessage(
            api=model.api,
            provider=model.provider,
            model=model.id,
            timestamp=int(time.time() * 1000),
            response_id=f"scripted-{number}",
        )

    def _event(
        self, kind: StreamEventType, index: int | None = None, delta: str | None = None
    ) -> StreamEvent:
        final = self.partial if kind in ("done", "error") else None
        return StreamEvent(kind, self.partial, content_index=index, delta=delta, message=final)

    async def _pause(self) -> None:
        """The per-chunk delay, cut short by an abort."""
        if self.signal is not None and self.signal.aborted:
            raise _Aborted
        if self.delay_s <= 0:
            await asyncio.sleep(0)
        elif self.signal is None:
            await asyncio.sleep(self.delay_s)
        else:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.signal.wait(), self.delay_s)
        if self.signal is not None and self.signal.aborted:
            raise _Aborted

    async def _stream_text(self, text: str, thinking: bool) -> AsyncIterator[StreamEvent]:
        block: TextContent | ThinkingContent = (
            ThinkingContent(thinking="") if thinking else TextContent(text="")
        )
        self.partial.content.append(block)
        index = len(self.partial.content) - 1
        start, delta, end = _THINKING_EVENTS if thinking else _TEXT_EVENTS
        yield self._event(start, index)
        for piece in _chunks(text, self.reply.chunk_size):
            await self._pause()
            if isinstance(block, ThinkingContent):
                block.thinking += piece
            else:
                block.text += piece
            yield self._event(delta, index, piece)
        if self.responses:
            self._sign(block)
        yield self._event(end, index)

    def _sign(self, block: TextContent | ThinkingContent) -> None:
        """The signature a Responses provider stores with a finished block."""
        if isinstance(block, TextContent):
            block.text_signature = encode_text_signature(f"msg_{self.number}")
            return
        summary = [{"type": "summary_text", "text": block.thinking}]
        block.thinking_signature = js_dumps(
            {"type": "reasoning", "id": f"rs_{self.number}", "summary": summary}
        )

    async def _stream_tool_call(self, spec: ScriptedToolCall, position: int) -> AsyncIterator[StreamEvent]:
        call_id = spec.id or f"call_{self.number}_{position}"
        if self.responses and "|" not in call_id:
            call_id += f"|fc_{self.number}_{position}"
        raw = spec.arguments if isinstance(spec.arguments, str) else js_dumps(spec.arguments)
        self.partial.content.append(ToolCall(id=call_id, name=spec.name))
        index = len(self.partial.content) - 1
        yield self._event("toolcall_start", index)
        for piece in _chunks(raw, self.reply.chunk_size):
            await self._pause()
            yield self._event("toolcall_delta", index, piece)
        self.partial.content[index] = make_tool_call(call_id, spec.name, raw)
        yield self._event("toolcall_end", index)

    def _usage(self) -> Usage:
        given = self.reply.usage
        if given is not None:
            usage = Usage(
                input=given.input,
                output=given.output,
                cache_read=given.cache_read,
                cache_write=given.cache_write,
            )
        else:
            output_chars = len(self.reply.text) + len(self.reply.thinking)
            output_chars += sum(
                len(call.name) + len(js_dumps(call.arguments)) for call in self.reply.tool_calls
            )
            usage = Usage(input=_estimate(_request_chars(self.context)), output=_estimate(output_chars))
        usage.total_tokens = usage.input + usage.output + usage.cache_read + usage.cache_write
        usage.cost = compute_cost(usage, ModelPrices.model_validate(self.model.cost.model_dump()))
        return usage

    def _stop_reason(self) -> StopReason:
        if self.reply.stop_reason is not None:
            return self.reply.stop_reason
        return "toolUse" if self.reply.tool_calls else "stop"

    async def run(self) -> AsyncIterator[StreamEvent]:
        yield self._event("start")
        try:
            if self.reply.thinking:
                async for event in self._stream_text(self.reply.thinking, thinking=True):
                    yield event
            if self.reply.text:
                async for event in self._stream_text(self.reply.text, thinking=False):
                    yield event
            for position, spec in enumerate(self.reply.tool_calls):
                async for event in self._stream_tool_call(spec, position):
                    yield event
            await self._pause()
        except _Aborted:
            self._finish("aborted", ABORTED_MESSAGE)
            yield self._event("error")
            return
        if self.reply.error is not None:
            self._finish("error", self.reply.error)
            yield self._event("error")
            return
        self.partial.usage = self._usage()
        self._finish(self._stop_reason(), None)
        yield self._event("done")

    def _finish(self, stop_reason: StopReason, error: str | None) -> None:
        self.partial.stop_reason = stop_reason
        if error is not None:
            self.partial.error_message = error


def replies_from_obj(items: Sequence[dict[str, Any]]) -> list[ScriptedReply]:
    """Reply specs from plain JSON objects (camelCase or snake_case keys)."""
    return [ScriptedReply.model_validate(item) for item in items]
