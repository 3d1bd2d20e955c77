"""When to compact automatically: pi's `_checkCompaction` as a pure decision.

`AgentSession` calls it after every run (`skip_aborted=True`) and before every prompt
(`skip_aborted=False`) with the last assistant reply, then acts on the answer: `overflow` → drop the
failed reply from agent state, compact with reason `overflow` and continue once; `overflow_failed`
→ report `OVERFLOW_RECOVERY_FAILED` (a second overflow in a row is never retried); `threshold` →
compact with reason `threshold`. The trigger uses pi's conservative chars/4 estimates.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, TypeAlias

from pi_tui.ai.messages import AgentMessage, AssistantMessage, SystemMessage, UserMessage
from pi_tui.ai.overflow import is_context_overflow
from pi_tui.config.model_config import ModelConfig
from pi_tui.config.settings import CompactionSettings
from pi_tui.context.compaction.token_estimate import (
    estimate_context_tokens,
    estimate_tokens,
    should_compact,
    usage_tokens,
)

TriggerKind: TypeAlias = Literal["none", "overflow", "overflow_failed", "threshold", "held"]
"""`held`: over the threshold, but a restore paused automatic compaction (`RestoreHoldState`)."""

OVERFLOW_RECOVERY_FAILED = (
    "Context overflow recovery failed after one compact-and-retry attempt. "
    "Try reducing context or switching to a larger-context model."
)
OVERFLOW_FAILED_PREFIX = "Context overflow recovery failed"
THRESHOLD_FAILED_PREFIX = "Auto-compaction failed"


@dataclass(frozen=True)
class CompactionTrigger:
    kind: TriggerKind
    context_tokens: int | None = None
    """The figure compared with the threshold (None when no check ran)."""


NO_TRIGGER = CompactionTrigger("none")
GROWTH_TURNS = 5


@dataclass(frozen=True)
class RestoreHoldState:
    """A restore paused automatic compaction; `user_spoke`: a user message was sent since."""

    user_spoke: bool


def typical_turn_tokens(messages: Sequence[AgentMessage]) -> int:
    """The median size (chars/4) of the last few turns: what the next turn is likely to add."""
    sizes: list[int] = []
    for message in messages:
        if isinstance(message, SystemMessage):
            continue  # a prompt checkpoint, not a turn (its prompt is part of the prefix)
        if isinstance(message, UserMessage) or not sizes:
            sizes.append(0)
        sizes[-1] += estimate_tokens(message)
    recent = sorted(sizes[-GROWTH_TURNS:])
    return recent[len(recent) // 2] if recent else 0


def next_request_overflows(tokens: int, messages: Sequence[AgentMessage], window: int) -> bool:
    return tokens + typical_turn_tokens(messages) > window


def auto_compaction_error(kind: Literal["overflow", "threshold"], message: str) -> str:
    """pi's `compaction_end` error text for a failed automatic compaction."""
    prefix = OVERFLOW_FAILED_PREFIX if kind == "overflow" else THRESHOLD_FAILED_PREFIX
    return f"{prefix}: {message}"


def check_compaction(
    reply: AssistantMessage,
    messages: Sequence[AgentMessage],
    *,
    model: ModelConfig | None,
    settings: CompactionSettings,
    latest_compaction_ms: int | None,
    skip_aborted: bool = True,
    overflow_attempted: bool = False,
    hold: RestoreHoldState | None = None,
) -> CompactionTrigger:
    """Decide for `reply` (the last assistant message) given the agent's `messages`.

    `latest_compaction_ms`: timestamp of the latest compaction entry on the branch; a reply from
    before it is stale and triggers nothing. `overflow_attempted`: an overflow recovery already ran
    since the last user message or successful reply. `hold`: a restore paused threshold compaction
    until the user has spoken and the next request would overflow the window.
    """
    if not settings.enabled or (skip_aborted and reply.stop_reason == "aborted"):
        return NO_TRIGGER
    if latest_compaction_ms is not None and reply.timestamp <= latest_compaction_ms:
        return NO_TRIGGER
    window = model.context_window if model is not None else 0
    same_model = model is not None and model.same_model(reply.provider, reply.model)
    if same_model and is_context_overflow(reply, window):
        return CompactionTrigger("overflow_failed" if overflow_attempted else "overflow")
    if reply.stop_reason == "error":
        estimate = estimate_context_tokens(messages)
        if estimate.last_usage_index is None:
            return NO_TRIGGER
        source = messages[estimate.last_usage_index]
        assert isinstance(source, AssistantMessage)
        if latest_compaction_ms is not None and source.timestamp <= latest_compaction_ms:
            return NO_TRIGGER
        tokens = estimate.tokens
    else:
        tokens = usage_tokens(reply.usage)
    if should_compact(tokens, window, settings):
        if hold is not None and not (hold.user_spoke and next_request_overflows(tokens, messages, window)):
            return CompactionTrigger("held", tokens)
        return CompactionTrigger("threshold", tokens)
    return CompactionTrigger("none", tokens)
