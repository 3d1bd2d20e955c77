"""Drift causes in plain words, shared by the inspector pane and `pi-tui context` (text and JSON).

Each cause says what changed in a sentence a person reads without the segment keys (`the summary replaced
8 messages`, `the model changed (x → y)`); `drift_cost` says what it cost. `LABELS` are the short names of
the kinds, for tables.
"""

from __future__ import annotations

from pi_tui.context.accounting.drift import DriftEvent, DriftKind
from pi_tui.context.accounting.marker_reach import LOOKBACK
from pi_tui.context.accounting.wire_facts import AS_TEXT, DROPPED

LABELS: dict[DriftKind, str] = {
    "none": "no drift",
    "system_prompt": "system prompt part changed",
    "tool_schema": "tool schema changed",
    "message_changed": "message changed",
    "message_removed": "message removed",
    "compaction": "compaction",
    "branch_move": "branch moved",
    "model_switch": "model switched",
    "api_switch": "API switched",
    "cache_key": "cache key changed",
    "reasoning_replay": "reasoning replayed differently",
    "cache_marker": "cache marker moved",
}
API_NAMES = {"openai-completions": "chat completions", "openai-responses": "responses"}
DIALECT_CAUSES: frozenset[DriftKind] = frozenset(
    {"model_switch", "api_switch", "cache_key", "reasoning_replay", "cache_marker"}
)


def drift_cause(event: DriftEvent) -> str:
    """What broke the cache, e.g. `the cache key changed (abc → def)`."""
    match event.kind:
        case "model_switch":
            return f"the model changed ({event.was} → {event.now})"
        case "api_switch":
            return f"the API changed ({_api(event.was)} → {_api(event.now)})"
        case "cache_key":
            return f"the cache key changed ({event.was or 'none'} → {event.now or 'none'})"
        case "reasoning_replay":
            return (
                f"reasoning of message {event.message_number} was replayed differently"
                f" ({_replay_change(event.was, event.now)})"
            )
        case "cache_marker":
            return _marker_cause(event)
        case "system_prompt":
            part = f" (its {event.segment} part)" if event.segment is not None else ""
            return f"the system prompt changed{part}"
        case "tool_schema":
            name = f"the `{event.segment}` tool" if event.segment is not None else "a tool"
            return f"the definition of {name} changed"
        case "message_changed":
            return f"{_message(event)} differs from what the last request sent"
        case "message_removed":
            return f"{_message(event)} of the last request is no longer sent"
        case "compaction":
            count = event.replaced_messages
            if count is None:
                return "a compaction summary replaced older messages"
            return f"the summary replaced {count} message{'s' if count != 1 else ''}"
        case "branch_move":
            return "the conversation moved to another branch"
        case _:
            return LABELS[event.kind]


def _message(event: DriftEvent) -> str:
    return f"message {event.message_number}" if event.message_number is not None else "a message"


def drift_cost(event: DriftEvent) -> str:
    return f"{event.reprocessed_tokens:,} tokens had to be re-read"


PROVIDER_REASONS = {
    "messages_changed": "the messages changed",
    "system_changed": "the system prompt changed",
    "tools_changed": "the tools changed",
    "model_changed": "the model changed",
    "previous_message_not_found": "it no longer knows the previous reply",
    "unavailable": "no diagnosis available",
}


def provider_blame(event: DriftEvent) -> str | None:
    """The provider's own reason, e.g. `Anthropic says: the system prompt changed (1,234 tokens not read
    from cache)`; None when it gave none."""
    if event.provider_reason is None:
        return None
    words = PROVIDER_REASONS.get(event.provider_reason, event.provider_reason)
    missed = event.provider_missed_tokens
    tokens = f" ({missed:,} tokens not read from cache)" if missed is not None else ""
    return f"Anthropic says: {words}{tokens}"


def _api(api: str | None) -> str:
    return API_NAMES.get(api or "", api or "unknown")


def _form(replayed: str | None) -> str:
    """How reasoning went back, without its fingerprints: field names, `text`, `dropped` or `none`."""
    if replayed is None:
        return "none"
    return ",".join(part.split(":", 1)[0] for part in replayed.split(","))


def _form_words(form: str) -> str:
    if form == "none":
        return "no reasoning"
    if form == AS_TEXT:
        return "as plain text"
    if form == DROPPED:
        return "dropped"
    return "under " + form.replace(",", " and ")


def _replay_change(was: str | None, now: str | None) -> str:
    before, after = _form(was), _form(now)
    if before == after:
        return f"{_form_words(after)}, other text than last time"
    return f"{_form_words(before)} → {_form_words(after)}"


def _marker_cause(event: DriftEvent) -> str:
    if event.message_number is not None:
        where = f" (up to message {event.message_number})"
    else:
        where = f" (up to {event.segment})" if event.segment is not None else ""
    lost = f"a cache marker moved: the prefix the last request cached{where}"
    if event.marker_gap is None:
        return f"{lost} has no marker at or after it now"
    return f"{lost} ends {event.marker_gap} blocks before the next marker; the provider looks back {LOOKBACK}"
