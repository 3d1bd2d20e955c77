"""Events the session adds to the agent's (pi-behaviour §2.6, "Coding-agent session adds").

Like agent events they are frozen dataclasses with a `type` literal and a `to_json()` in pi's shape,
so `--mode json` and the TUI bridge treat both kinds alike.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from pi_tui.agent.events import AgentEvent


@dataclass(frozen=True)
class AutoRetryStartEvent:
    attempt: int
    max_attempts: int
    delay_ms: int
    error_message: str
    type: Literal["auto_retry_start"] = field(default="auto_retry_start", init=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "attempt": self.attempt,
            "maxAttempts": self.max_attempts,
            "delayMs": self.delay_ms,
            "errorMessage": self.error_message,
        }


@dataclass(frozen=True)
class AutoRetryEndEvent:
    success: bool
    attempt: int
    final_error: str | None = None
    type: Literal["auto_retry_end"] = field(default="auto_retry_end", init=False)

    def to_json(self) -> dict[str, Any]:
        obj: dict[str, Any] = {"type": self.type, "success": self.success, "attempt": self.attempt}
        if self.final_error is not None:
            obj["finalError"] = self.final_error
        return obj


@dataclass(frozen=True)
class ModelFallbackEvent:
    """Beyond pi: retries on one model are exhausted and the same input goes to the next model."""

    from_model: str
    to_model: str
    error_message: str
    type: Literal["model_fallback"] = field(default="model_fallback", init=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "fromModel": self.from_model,
            "toModel": self.to_model,
            "errorMessage": self.error_message,
        }


SessionEvent: TypeAlias = AutoRetryStartEvent | AutoRetryEndEvent | ModelFallbackEvent
AnyEvent: TypeAlias = AgentEvent | SessionEvent
