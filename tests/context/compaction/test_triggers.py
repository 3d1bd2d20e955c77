"""pi's `_checkCompaction` decision: overflow once, then report; threshold; stale and aborted replies."""

from __future__ import annotations

from pi_tui.ai.messages import AssistantMessage, Usage, UserMessage
from pi_tui.config.model_config import ModelConfig
from pi_tui.config.settings import CompactionSettings
from pi_tui.context.compaction.triggers import (
    OVERFLOW_RECOVERY_FAILED,
    CompactionTrigger,
    auto_compaction_error,
    check_compaction,
)

MODEL = ModelConfig(id="m", provider="p", context_window=10_000)
SETTINGS = CompactionSettings(reserve_tokens=2_000)


def _reply(total: int = 0, stop: str = "stop", error: str | None = None, at: int = 1000) -> AssistantMessage:
    return AssistantMessage(
        provider="p",
        model="m",
        usage=Usage(total_tokens=total),
        stop_reason=stop,
        error_message=error,
        timestamp=at,
    )  # type: ignore[arg-type]


def _check(reply: AssistantMessage, **kwargs: object) -> CompactionTrigger:
    options: dict[str, object] = {"model": MODEL, "settings": SETTINGS, "latest_compaction_ms": None}
    options.update(kwargs)
    return check_compaction(reply, [UserMessage(content="x" * 400, timestamp=0), reply], **options)  # type: ignore[arg-type]


def test_threshold_uses_the_reply_usage() -> None:
    assert _check(_reply(8_001)) == CompactionTrigger("threshold", 8_001)
    assert _check(_reply(8_000)) == CompactionTrigger("none", 8_000)
    assert _check(_reply(9_000), settings=CompactionSettings(enabled=False)).kind == "none"


def test_overflow_once_then_reported() -> None:
    overflow = _reply(stop="error", error="prompt is too long: 200000 tokens > 100000 maximum")
    assert _check(overflow).kind == "overflow"
    assert _check(overflow, overflow_attempted=True).kind == "overflow_failed"
    other_model = overflow.model_copy(update={"model": "other"})
    assert _check(other_model).kind == "none"  # another model's overflow says nothing about this one
    assert OVERFLOW_RECOVERY_FAILED.startswith("Context overflow recovery failed after one compact-and-retry")


def test_error_replies_use_the_estimate_of_the_agent_state() -> None:
    good = _reply(7_990, at=500)
    failed = _reply(stop="error", error="boom", at=1000)
    messages = [good, UserMessage(content="y" * 400, timestamp=600), failed]
    trigger = check_compaction(failed, messages, model=MODEL, settings=SETTINGS, latest_compaction_ms=None)
    assert trigger == CompactionTrigger("threshold", 8_090)
    stale_usage = check_compaction(failed, messages, model=MODEL, settings=SETTINGS, latest_compaction_ms=700)
    assert stale_usage.kind == "none" and stale_usage.context_tokens is None
    no_usage = check_compaction(failed, [failed], model=MODEL, settings=SETTINGS, latest_compaction_ms=None)
    assert no_usage.kind == "none"


def test_stale_and_aborted_replies_trigger_nothing() -> None:
    assert _check(_reply(9_500, at=1000), latest_compaction_ms=1000).kind == "none"
    aborted = _reply(9_500, stop="aborted")
    assert _check(aborted).kind == "none"
    assert _check(aborted, skip_aborted=False).kind == "threshold"  # before a prompt, aborted replies count


def test_failure_texts() -> None:
    assert auto_compaction_error("overflow", "x") == "Context overflow recovery failed: x"
    assert auto_compaction_error("threshold", "x") == "Auto-compaction failed: x"
