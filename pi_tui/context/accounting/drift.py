"""Prefix drift, or cache-break blame (R8.4): where a request stopped repeating the previous one.

Providers cache the longest byte-identical prefix of consecutive requests, so a healthy turn only appends
(R1.2). Comparing two records' prefix chains finds the first segment that differs; its section and keys
say why:

- `system_prompt` / `tool_schema`: a prompt part or a tool schema (named) changed, appeared or vanished;
- `compaction`: the context now starts with a (new) compaction summary;
- `message_changed`: the same entry was sent with other bytes (or a message was inserted before it);
- `message_removed`: a message sent last time is no longer sent although the branch still holds it
  (rollback, retry) or later messages of the previous request are still there;
- `branch_move`: the previous request's messages from here on belong to another branch;
- `model_switch`: another model; nothing is cached across models.

A request compares with the previous record of the same kind (turn with turn, summary with summary), so
a summarisation call never blames the next turn. Between summarisation calls only the instructions can
repeat: each sends a conversation no earlier call sent (the two halves of a split turn are separate
calls), so their messages differing is how they are built, not drift; their instructions and model changing
still is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, TypeAlias

from pi_tui.context.accounting.fingerprints import common_prefix_length
from pi_tui.context.accounting.measure import COMPACTION_SUMMARY_KEY
from pi_tui.context.accounting.record import RequestRecord

DriftKind: TypeAlias = Literal[
    "none",
    "system_prompt",
    "tool_schema",
    "message_changed",
    "message_removed",
    "compaction",
    "branch_move",
    "model_switch",
]
OnBranch = Callable[[str], bool]
"""Whether an entry id is on the branch the current request was sent from."""


@dataclass(frozen=True)
class DriftEvent:
    kind: DriftKind
    segment: str | None
    """The first diverging segment: prompt part name, tool name or message key."""
    index: int | None
    """Its position among the current request's segments (system, tools, messages)."""
    cacheable_tokens: int
    """Tokens before the divergence: what the provider could have served from its cache."""
    uncached_tokens: int
    """Tokens from the divergence (or, without drift, the appended part) to the end."""
    reprocessed_tokens: int
    """Tokens from the divergence to the end that had to be processed afresh because the prefix broke
    (equal to `uncached_tokens` when drifted, 0 for an append-only request)."""
    cache_read: int | None
    """Provider-reported cached input tokens of the current request, when known."""
    time: int
    previous_time: int

    @property
    def drifted(self) -> bool:
        return self.kind != "none"


def compare_records(
    previous: RequestRecord, current: RequestRecord, on_branch: OnBranch | None = None
) -> DriftEvent:
    tokens = current.token_columns()
    cache_read = current.usage.cache_read if current.usage is not None else None

    def event(kind: DriftKind, segment: str | None, index: int | None, common: int) -> DriftEvent:
        cacheable = sum(tokens[:common])
        uncached = sum(tokens[common:])
        return DriftEvent(
            kind,
            segment,
            index,
            cacheable,
            uncached,
            0 if kind == "none" else uncached,
            cache_read,
            current.time,
            previous.time,
        )

    if not current.same_model(previous):
        return event("model_switch", None, 0, 0)
    common = common_prefix_length(previous.chain, current.chain)
    if common == len(previous.chain):
        return event("none", None, None, common)
    if common < max(len(previous.system), len(current.system)):
        return event("system_prompt", _key(current.system.keys, previous.system.keys, common), common, common)
    offset = common - len(current.system)
    if offset < max(len(previous.tools), len(current.tools)):
        return event("tool_schema", _key(current.tools.keys, previous.tools.keys, offset), common, common)
    if current.kind == "summary":
        return event("none", None, None, common)
    position = common - current.prefix_length
    kind, segment = _message_drift(previous.messages.keys, current.messages.keys, position, on_branch)
    return event(kind, segment, common, common)


def _key(current: list[str], previous: list[str], index: int) -> str | None:
    if index < len(current):
        return current[index]
    return previous[index] if index < len(previous) else None


def _message_drift(
    previous: list[str], current: list[str], at: int, on_branch: OnBranch | None
) -> tuple[DriftKind, str | None]:
    current_key = current[at] if at < len(current) else None
    previous_key = previous[at] if at < len(previous) else None
    if current_key == COMPACTION_SUMMARY_KEY:
        return "compaction", current_key
    if previous_key is None:
        return "message_changed", current_key
    if current_key == previous_key:
        return "message_changed", current_key
    present = set(current)
    if previous_key in present:
        return "message_changed", current_key
    if previous_key == COMPACTION_SUMMARY_KEY:
        return "branch_move", previous_key
    if on_branch is not None and not previous_key.startswith(("orphan:", "unsaved:")):
        return ("message_removed" if on_branch(previous_key) else "branch_move"), previous_key
    if any(key in present for key in previous[at + 1 :]) or current_key is None:
        return "message_removed", previous_key
    return "branch_move", previous_key


def previous_of_same_kind(records: Sequence[RequestRecord], index: int) -> int | None:
    kind = records[index].kind
    return next((i for i in range(index - 1, -1, -1) if records[i].kind == kind), None)


def drift_events(
    records: Sequence[RequestRecord], on_branch_for: Callable[[int], OnBranch | None] | None = None
) -> list[tuple[int, DriftEvent]]:
    """(record index, event) for every record that has a predecessor of its kind, in record order."""
    events: list[tuple[int, DriftEvent]] = []
    for index, record in enumerate(records):
        previous = previous_of_same_kind(records, index)
        if previous is None:
            continue
        on_branch = on_branch_for(index) if on_branch_for is not None else None
        events.append((index, compare_records(records[previous], record, on_branch)))
    return events
