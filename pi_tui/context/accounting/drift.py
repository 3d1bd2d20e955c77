"""Prefix drift, or cache-break blame: where a request stopped repeating the previous one.

Providers cache the longest byte-identical prefix of consecutive requests, so a healthy turn only appends
(docs/architecture.md, 'Context accounting'). Comparing two records' prefix chains finds the first
segment that differs; its section and keys say why:

- `system_prompt` / `tool_schema`: a prompt part or a tool schema (named) changed, appeared or vanished;
- `compaction`: the context now starts with a (new) compaction summary;
- `message_changed`: the same entry was sent with other bytes (or a message was inserted before it);
- `message_removed`: a message sent last time is no longer sent although the branch still holds it
  (rollback, retry) or later messages of the previous request are still there;
- `branch_move`: the previous request's messages from here on belong to another branch;
- `model_switch`: another model or provider; nothing is cached across models;
- `api_switch`: another API (Chat Completions, Responses) for the same model;
- `cache_key`: another `prompt_cache_key` (a fork, a new session id), which puts the request on another
  cache whatever its bytes;
- `reasoning_replay`: a reply was sent with its reasoning replayed another way than last time (under
  another field, as text, or dropped), e.g. after the dialect's switches changed;
- `cache_marker`: the request repeated the previous one whole, but the prefix the previous one wrote to
  an Anthropic-style marker cache is out of its markers' reach (see `marker_reach`).

The dialect kinds need both records to carry their `wire` facts (older records do not: no such blame).
Where the provider says itself why it missed (Anthropic's `cache_miss_reason`), the event carries that
too, whatever pi-tui found, so the two accounts are shown side by side.

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
from pi_tui.context.accounting.marker_reach import MarkerBreak, marker_break
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
    "api_switch",
    "cache_key",
    "reasoning_replay",
    "cache_marker",
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
    was: str | None = None
    now: str | None = None
    """What changed, before and after: models (`provider/id`), APIs, cache keys (None: no key), or how a
    reply's reasoning was replayed (`wire_facts.replayed_reasoning`; None: it had none)."""
    message_number: int | None = None
    """1-based position among the request's messages of the segment named, when it is a message."""
    marker_gap: int | None = None
    """`cache_marker`: blocks from the lost prefix's end to the next marker (None: no marker after it)."""
    replaced_messages: int | None = None
    """`compaction`: messages of the previous request that the summary replaced."""
    provider_reason: str | None = None
    """The provider's own reason for a cache miss of the current request (Anthropic's
    `cache_miss_reason`), shown beside pi-tui's blame; None when it gave none."""
    provider_missed_tokens: int | None = None
    """The tokens the provider says it could not read from its cache."""

    @property
    def drifted(self) -> bool:
        return self.kind != "none"


def compare_records(
    previous: RequestRecord, current: RequestRecord, on_branch: OnBranch | None = None
) -> DriftEvent:
    tokens = current.token_columns()
    total = sum(tokens)
    cache_read = current.usage.cache_read if current.usage is not None else None
    miss = current.provider_miss

    def event(
        kind: DriftKind,
        segment: str | None,
        index: int | None,
        cacheable: int,
        *,
        was: str | None = None,
        now: str | None = None,
        number: int | None = None,
        gap: int | None = None,
        replaced: int | None = None,
    ) -> DriftEvent:
        uncached = total - cacheable
        reprocessed = 0 if kind == "none" else uncached
        return DriftEvent(
            kind,
            segment,
            index,
            cacheable,
            uncached,
            reprocessed,
            cache_read,
            current.time,
            previous.time,
            was=was,
            now=now,
            message_number=number,
            marker_gap=gap,
            replaced_messages=replaced,
            provider_reason=miss.reason if miss is not None else None,
            provider_missed_tokens=miss.missed_tokens if miss is not None else None,
        )

    if not current.same_model(previous):
        return event("model_switch", None, 0, 0, was=_ref(previous), now=_ref(current))
    before, after = previous.wire, current.wire
    if before is not None and after is not None:
        if before.api != after.api:
            return event("api_switch", None, 0, 0, was=before.api, now=after.api)
        if before.cache_key != after.cache_key:
            return event("cache_key", None, 0, 0, was=before.cache_key, now=after.cache_key)
    common = common_prefix_length(previous.chain, current.chain)
    if common == len(previous.chain):
        broken = marker_break(before.markers, after.markers) if before and after else None
        if broken is None:
            return event("none", None, None, sum(tokens[:common]))
        index, cacheable = _reach(current, broken)
        segment, number = _segment_at(current, broken.lost[0])
        return event("cache_marker", segment, index, cacheable, number=number, gap=broken.gap)
    cacheable = sum(tokens[:common])
    if common < max(len(previous.system), len(current.system)):
        key = _key(current.system.keys, previous.system.keys, common)
        return event("system_prompt", key, common, cacheable)
    offset = common - len(current.system)
    if offset < max(len(previous.tools), len(current.tools)):
        return event("tool_schema", _key(current.tools.keys, previous.tools.keys, offset), common, cacheable)
    if current.kind == "summary":
        return event("none", None, None, cacheable)
    position = common - current.prefix_length
    kind, segment = _message_drift(previous.messages.keys, current.messages.keys, position, on_branch)
    if kind == "message_changed" and segment is not None and before is not None and after is not None:
        was, now = before.replayed(segment), after.replayed(segment)
        if was != now and _same_message_at(previous, current, position):
            return event(
                "reasoning_replay", segment, common, cacheable, was=was, now=now, number=position + 1
            )
    replaced = None
    if kind == "compaction":
        kept = set(current.messages.keys)
        replaced = sum(1 for key in previous.messages.keys if key not in kept)
    return event(kind, segment, common, cacheable, number=position + 1, replaced=replaced)


def _ref(record: RequestRecord) -> str:
    return f"{record.provider}/{record.model}"


def _same_message_at(previous: RequestRecord, current: RequestRecord, position: int) -> bool:
    keys = previous.messages.keys, current.messages.keys
    return position < min(map(len, keys)) and keys[0][position] == keys[1][position]


def _reach(current: RequestRecord, broken: MarkerBreak) -> tuple[int, int]:
    """(first segment not read, tokens read) when the prefix ending at `broken.read` is all the cache
    gave. Anthropic renders the tool definitions before the system prompt, so a marker on the last tool
    covers the tools alone, and any later one covers both."""
    if broken.read is None:
        return 0, 0
    segment, end = broken.read
    if end <= len(current.tools):
        return 0, current.tools.total()
    index = max(segment + 1, current.prefix_length)
    return index, sum(current.token_columns()[:index])


def _segment_at(record: RequestRecord, index: int) -> tuple[str | None, int | None]:
    """(key, message number or None) of segment `index` (-1: before the first segment)."""
    system, prefix = len(record.system), record.prefix_length
    if index < 0:
        return None, None
    if index >= prefix:
        position = index - prefix
        return (record.messages.keys[position] if position < len(record.messages) else None), position + 1
    if index < system:
        return record.system.keys[index], None
    return record.tools.keys[index - system], None


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
