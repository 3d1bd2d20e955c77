"""The figures a compaction is shown with, before → after, both the size of the whole request.

pi's `tokensBefore` (written into the entry as pi writes it) is the last reported usage plus a chars/4
estimate of what came after, and the estimate after used to count the context messages alone, so
"853 → 427" could be followed by a 1,307-token request. Here both sides measure the same thing, the
whole request (system prompt parts, tool schemas and context messages, measured as a request record
measures them), calibrated alike by the turn records before the compaction (`accounting.calibration`).
They are stored in the entry's details (`requestTokensBefore`, `requestTokensAfter`). Once the first
request after the compaction has reported its prompt, the figure after is that report less the
calibrated estimate of the messages added since the compaction: the report itself when the request
sent the compacted context alone, as the retry after an overflow does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypeAlias

from pi_tui.agent.tool import AgentTool
from pi_tui.ai.stream import ToolSpec
from pi_tui.config.model_config import ModelConfig
from pi_tui.context.accounting.calibration import (
    LOOKBACK,
    Calibration,
    calibrate,
    prefix_tokens,
    reported_prompt,
)
from pi_tui.context.accounting.record import (
    REQUEST_CUSTOM_TYPE,
    RequestRecord,
    messages_size,
    prefix_size,
)
from pi_tui.context.accounting.record_log import RecordLog
from pi_tui.context.compaction.preview import CompactionPreview
from pi_tui.context.system_prompt import SystemPrompt
from pi_tui.session_file.context_rebuild import path_context
from pi_tui.session_file.entries import (
    REQUEST_TOKENS_AFTER_KEY,
    REQUEST_TOKENS_BEFORE_KEY,
    CompactionEntry,
    CustomEntry,
    SessionEntry,
)
from pi_tui.session_file.store import SessionStore

BEFORE_KEY = REQUEST_TOKENS_BEFORE_KEY
AFTER_KEY = REQUEST_TOKENS_AFTER_KEY
SizeSource: TypeAlias = Literal["estimate", "reported"]


@dataclass(frozen=True)
class RequestPrefix:
    """The system prompt and tools the session's next request sends."""

    system_prompt: SystemPrompt | str
    tools: Sequence[ToolSpec]


class PrefixSource(Protocol):
    system_prompt: SystemPrompt
    active_tools: list[AgentTool[Any]]


def request_prefix(session: PrefixSource) -> RequestPrefix:
    """The prefix a live session's next request sends."""
    return RequestPrefix(session.system_prompt, [tool.spec() for tool in session.active_tools])


@dataclass(frozen=True)
class CompactionSize:
    before: int
    after: int

    def to_json_obj(self) -> dict[str, int]:
        """The two figures under the keys an entry's details and a compaction's JSON carry them by."""
        return {BEFORE_KEY: self.before, AFTER_KEY: self.after}


class RequestRecords:
    """The readable request records of a store, indexed once (records are deltas against earlier ones,
    wherever in the file those are)."""

    def __init__(self, store: SessionStore) -> None:
        self.store = store
        self.log = RecordLog()
        for entry in store.entries:
            if isinstance(entry, CustomEntry) and entry.custom_type == REQUEST_CUSTOM_TYPE:
                self.log.add(entry.id, entry.data)

    def turns_on_branch(self, leaf_id: str | None, limit: int = LOOKBACK + 1) -> list[RequestRecord]:
        """The newest `limit` turn records on root → `leaf_id`, oldest first."""
        if leaf_id is None:
            return []
        on_branch = {entry.id for entry in self.store.get_branch(leaf_id)}
        return self.log.newest_turns(on_branch.__contains__, limit)

    def calibration_at(self, leaf_id: str | None) -> Calibration:
        return calibrate(self.turns_on_branch(leaf_id))


def _messages_tokens(items: Sequence[SessionEntry], model: ModelConfig | None) -> int:
    context = path_context(items)
    return messages_size(model, context.messages, context.entry_ids)


def measure_compaction(
    items: Sequence[SessionEntry],
    first_kept_entry_id: str,
    summary: str,
    *,
    model: ModelConfig | None,
    prefix: RequestPrefix | None,
    records: RequestRecords,
) -> CompactionSize:
    """The whole request before compacting the branch `items` and after, keeping from
    `first_kept_entry_id` with `summary`. Without `prefix` the one the last recorded request sent is
    counted (none recorded: the messages alone)."""
    leaf_id = items[-1].id if items else None
    turns = records.turns_on_branch(leaf_id)
    if prefix is not None:
        fixed = prefix_size(model, prefix.system_prompt, prefix.tools)
    else:
        fixed = prefix_tokens(turns[-1]) if turns else 0
    compaction = CompactionEntry(
        id="",
        parent_id=leaf_id,
        timestamp=items[-1].timestamp if items else "",
        summary=summary,
        first_kept_entry_id=first_kept_entry_id,
        tokens_before=0,
    )
    calibration = calibrate(turns)
    return CompactionSize(
        before=calibration.request(fixed, _messages_tokens(items, model)),
        after=calibration.request(fixed, _messages_tokens([*items, compaction], model)),
    )


def _descendants(store: SessionStore, entry_id: str) -> set[str]:
    """`entry_id` and every entry below it (a parent always comes first in the file)."""
    found = {entry_id}
    for entry in store.entries:
        if entry.parent_id in found:
            found.add(entry.id)
    return found


def reported_after(records: RequestRecords, entry: CompactionEntry) -> int | None:
    """The reported figure after `entry`: see the module docstring; None before any report."""
    below = _descendants(records.store, entry.id)
    for index, record_id in enumerate(records.log.entry_ids):
        if records.log.kinds[index] != "turn" or record_id not in below:
            continue
        record = records.log.full(record_id)
        if record is None or reported_prompt(record) <= 0:
            continue
        added = sum(
            count
            for key, count in zip(record.messages.keys, record.messages.tokens, strict=True)
            if key in below
        )
        return reported_prompt(record) - records.calibration_at(record_id).messages(added)
    return None


@dataclass(frozen=True)
class ShownSize:
    """What a compaction is shown with; `after` None: not known (a compaction pi-tui did not measure,
    before any report after it)."""

    before: int
    after: int | None
    after_source: SizeSource | None


def shown_size(records: RequestRecords, entry: CompactionEntry) -> ShownSize:
    details: dict[str, Any] = entry.details if isinstance(entry.details, dict) else {}
    before, after = details.get(BEFORE_KEY), details.get(AFTER_KEY)
    reported = reported_after(records, entry)
    if reported is not None:
        return ShownSize(entry.request_tokens_before, reported, "reported")
    if isinstance(before, int) and isinstance(after, int):
        return ShownSize(before, after, "estimate")
    return ShownSize(entry.tokens_before, None, None)


def estimated(size: CompactionSize) -> ShownSize:
    """A compaction just made: both figures are estimates until the next request reports."""
    return ShownSize(size.before, size.after, "estimate")


def preview_size_text(preview: CompactionPreview, arrow: str = "→") -> str:
    """A preview's whole-request figures (the after one assumes the summary's size)."""
    return size_text(ShownSize(preview.tokens_before, preview.tokens_after_estimate, "estimate"), arrow)


def size_text(size: ShownSize, arrow: str = "→") -> str:
    """`~1,310 → ~612 (-53%)`: `~` marks an estimate; the after figure loses it once reported."""
    if size.after is None:
        return f"{size.before:,} {arrow} ?"
    mark = "~" if size.after_source == "estimate" else ""
    saved = round(100 * (size.before - size.after) / size.before) if size.before else 0
    before = f"~{size.before:,}" if size.after_source is not None else f"{size.before:,}"
    change = f"{-saved:+d}%" if saved else "0%"
    return f"{before} {arrow} {mark}{size.after:,} ({change})"
