"""The stream contract every provider implements (pi's `StreamFunction`).

A provider is an async generator of `StreamEvent`s for one assistant reply. It never raises after it
was called: failures end the stream with an `error` event whose message has `stop_reason` `error`
or `aborted` and an `error_message`. The final event is exactly one `done` or `error`.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeAlias

from pi_tui.ai.abort import AbortSignal
from pi_tui.ai.http_pool import HttpPool
from pi_tui.ai.messages import AssistantMessage, ThinkingLevel, ToolResultMessage, UserMessage
from pi_tui.config.model_config import ModelConfig

StreamEventType: TypeAlias = Literal[
    "start",
    "text_start",
    "text_delta",
    "text_end",
    "thinking_start",
    "thinking_delta",
    "thinking_end",
    "toolcall_start",
    "toolcall_delta",
    "toolcall_end",
    "done",
    "error",
]

LlmMessage: TypeAlias = UserMessage | AssistantMessage | ToolResultMessage
"""What reaches a provider after conversion (custom kinds already turned into user messages)."""


@dataclass(frozen=True)
class ToolSpec:
    """A tool as the model sees it: name, description and JSON schema of the parameters."""

    name: str
    description: str
    parameters: dict[str, Any]
    constrained_sampling: dict[str, Any] | None = None
    """pi 1.6's `constrainedSampling` (`{"type": "json_schema", "strict": "prefer"}` on pi's read, bash,
    edit and write): whether the tool asks to be sent with a strict schema where the model supports it."""

    def declaration(self) -> dict[str, Any]:
        """pi's `toToolDeclaration`: what pi's estimate and session files count of a tool."""
        declared: dict[str, Any] = {
            "name": self.name,
            "description": self.description,
            "parameters": self.parameters,
        }
        if self.constrained_sampling is not None:
            declared["constrainedSampling"] = self.constrained_sampling
        return declared


@dataclass
class LlmContext:
    system_prompt: str
    messages: list[LlmMessage]
    tools: list[ToolSpec] = field(default_factory=list)


@dataclass
class RequestClock:
    """When the provider handed the request to its HTTP client (`time.monotonic()`; the last attempt's
    when the SDK retried). None until then, and for providers that send nothing over HTTP. Timings of
    a request are taken from here, so local start-up (imports, clients, connection pools) is not
    counted as the server's time to first token."""

    sent_at: float | None = None

    def mark_sent(self) -> None:
        self.sent_at = time.monotonic()


@dataclass
class StreamOptions:
    api_key: str | None = None
    max_tokens: int | None = None
    reasoning: ThinkingLevel | None = None
    signal: AbortSignal | None = None
    session_id: str | None = None
    timeout_s: float | None = None
    max_retries: int | None = None
    cache_retention: Literal["none", "short", "long"] | None = None
    """None: pi's `PI_CACHE_RETENTION` environment variable, else short."""
    tool_choice: str | None = None
    """`none` keeps a model from calling tools (a summary asked of a conversation that has them)."""
    http_pool: HttpPool | None = None
    """Where an HTTP provider gets its connections; without one a request opens and closes its own."""
    clock: RequestClock | None = None
    """Stamped by an HTTP provider when it sends the request (see `RequestClock`)."""
    disable_continuation: bool = False
    """A cache refresh repeats the last request: it neither continues the provider's thread (Anthropic's
    message threads) nor becomes the reply the next request continues (pi 1.6's `disableContinuation`)."""


@dataclass(frozen=True)
class StreamEvent:
    """One step of a reply. `partial` is the message so far; `message` is set on done/error."""

    type: StreamEventType
    partial: AssistantMessage
    content_index: int | None = None
    delta: str | None = None
    message: AssistantMessage | None = None

    @property
    def terminal(self) -> bool:
        return self.type in ("done", "error")


class StreamFunction(Protocol):
    def __call__(
        self, model: ModelConfig, context: LlmContext, options: StreamOptions
    ) -> AsyncIterator[StreamEvent]: ...
