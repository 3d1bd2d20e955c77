"""What the compaction timeline pane shows, built from a session store.

Pure and Textual-free: the screen calls these in a worker thread and hands the results to
`CompactionTimeline` / `CompactionDetail`, which only render them. Everything here is plain text
plus a `kind` per line; the widgets turn kinds into CSS classes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING, Literal, TypeAlias

from pi_tui.context.compaction.loss_audit import LossAudit
from pi_tui.context.compaction.pins import Pin
from pi_tui.context.compaction.preview import CompactionPreview, PreviewItem, rows_text
from pi_tui.context.compaction.summary_diff import SectionDiff
from pi_tui.session.compaction_ops import PreviewBasis, preview_for_store
from pi_tui.session.compaction_pins import active_pins
from pi_tui.session.compaction_records import (
    CompactionRecord,
    audit_compaction,
    diff_compaction,
    list_compactions,
)
from pi_tui.session.compaction_sizes import preview_size_text, size_text
from pi_tui.session.restore_hold import restore_hold
from pi_tui.session_file.entries import CompactionEntry
from pi_tui.session_file.ids import iso_to_ms
from pi_tui.session_file.store import SessionStore

if TYPE_CHECKING:
    from pi_tui.tools.file_checkpoints.store import CheckpointStore

ON_BRANCH_MARKER = "●"
FILES_GONE_MARKER = "✗"
"""Beside the branch mark: the point before this compaction can no longer restore its files."""
FILES_GONE_FACT = "not restorable: the checkpoint size cap dropped some (conversation only)"
UNKNOWN_VALUE = "?"
NO_MODEL = "—"
MAX_PREVIEW_ROWS = 200
"""A long kept tail is listed up to here, then counted: the pane is for reading, not for every id."""

DiffLineKind: TypeAlias = Literal["add", "remove", "hunk", "context"]
PreviewRowKind: TypeAlias = Literal["summarised", "prefix", "kept"]
_FILE_TAG = re.compile(r"<(read-files|modified-files)>\n?(.*?)\n?</\1>", re.DOTALL)
_FILE_TAG_TITLES = {"read-files": "Read files", "modified-files": "Modified files"}


@dataclass(frozen=True)
class TimelineRow:
    """One table row; `cells()` order matches `TIMELINE_COLUMNS`."""

    compaction_id: str
    branch: str
    time: str
    reason: str
    tokens: str
    model: str
    audit: str
    files_gone: bool = False
    """Restoring it cannot bring the files along: the checkpoint cap dropped some (docs/rewind.md)."""

    def cells(self) -> tuple[str, ...]:
        branch = self.branch + (FILES_GONE_MARKER if self.files_gone else "")
        return (branch, self.time, self.reason, self.tokens, self.model, self.audit)


TIMELINE_COLUMNS: tuple[tuple[str, str], ...] = (
    ("branch", " "),
    ("time", "Time"),
    ("reason", "Reason"),
    ("tokens", "Tokens"),
    ("model", "Model"),
    ("audit", "Missing"),
)
"""(column key, label) pairs; the keys are `TimelineRow` field names."""


def local_time(timestamp: str, *, seconds: bool = True) -> str:
    """`2026-11-29T23:15:12.049Z` → `11-29 23:15:12` in local time (the raw text if unparsable)."""
    ms = iso_to_ms(timestamp)
    if ms is None:
        return timestamp
    return datetime.fromtimestamp(ms / 1000).strftime("%m-%d %H:%M:%S" if seconds else "%m-%d %H:%M")


def row_for(record: CompactionRecord, *, files_gone: bool = False) -> TimelineRow:
    missing = sum(counts["missing"] for counts in record.audit.values())
    listed = sum(counts["listed"] for counts in record.audit.values())
    return TimelineRow(
        compaction_id=record.entry_id,
        branch=ON_BRANCH_MARKER if record.on_current_branch else "",
        # To the minute: the table shares the side panel's 60 columns; the detail gives the seconds.
        time=local_time(record.timestamp, seconds=False),
        reason=record.reason + (" (hook)" if record.from_hook else ""),
        tokens=size_text(record.size),
        model=record.model or NO_MODEL,
        audit=f"{missing}/{listed}",
        files_gone=files_gone,
    )


def timeline_rows(store: SessionStore, checkpoints: CheckpointStore | None = None) -> list[TimelineRow]:
    """Every compaction of the file (all branches), in file order; with `checkpoints`, each marked
    when restoring it could no longer bring the files along."""
    records = list_compactions(store)
    if checkpoints is None or not records:
        return [row_for(record) for record in records]
    from pi_tui.session.rewind import FileAvailability  # loaded on first use, off the first frame's path

    availability = FileAvailability(store, checkpoints)
    return [
        row_for(record, files_gone=not availability.restorable_after(_restored_to(store, record.entry_id)))
        for record in records
    ]


def _restored_to(store: SessionStore, compaction_id: str) -> str | None:
    """The entry a restore of this compaction continues from (`restore_before`): just before it."""
    entry = store.get_entry(compaction_id)
    return entry.parent_id if entry is not None else None


@dataclass(frozen=True)
class DiffLine:
    text: str
    kind: DiffLineKind


@dataclass(frozen=True)
class DiffSection:
    heading: str
    status: str
    lines: tuple[DiffLine, ...]


def _diff_kind(line: str) -> DiffLineKind:
    if line.startswith("@@"):
        return "hunk"
    if line.startswith("+"):
        return "add"
    if line.startswith("-"):
        return "remove"
    return "context"


def diff_sections(diffs: list[SectionDiff]) -> tuple[DiffSection, ...]:
    """Changed, added and removed sections with classified lines (file headers dropped)."""
    sections: list[DiffSection] = []
    for section in diffs:
        if section.status == "unchanged":
            continue
        body = [line for line in section.diff if not line.startswith(("--- ", "+++ "))]
        sections.append(
            DiffSection(
                section.heading, section.status, tuple(DiffLine(line, _diff_kind(line)) for line in body)
            )
        )
    return tuple(sections)


@dataclass(frozen=True)
class AuditRow:
    kind: str
    text: str
    entry_id: str
    count: int
    survives: bool
    pinned: bool


def audit_rows(audit: LossAudit, pins: list[Pin]) -> tuple[AuditRow, ...]:
    """Audit items grouped by kind (the audit's own order), each marked pinned when a pin holds its text."""
    pinned = {pin.key for pin in pins}
    return tuple(
        AuditRow(
            item.kind,
            item.text,
            item.entry_id,
            item.count,
            item.survives,
            Pin(item.kind, item.text).key in pinned,
        )
        for item in audit.items
    )


@dataclass(frozen=True)
class PreviewRow:
    kind: PreviewRowKind
    entry_id: str
    role: str
    tokens: int


@dataclass(frozen=True)
class NextCompaction:
    """The preview of the next compaction on the current branch, or why there is none (`unavailable`)."""

    facts: tuple[tuple[str, str], ...] = ()
    rows: tuple[PreviewRow, ...] = ()
    more_rows: int = 0
    unavailable: str | None = None
    paused: str | None = None
    """Why automatic compaction will not run at the threshold (after a restore), in words."""


def _rows(kind: PreviewRowKind, items: list[PreviewItem]) -> list[PreviewRow]:
    return [PreviewRow(kind, item.entry_id, item.role, item.tokens) for item in items]


def next_compaction(preview: CompactionPreview | str) -> NextCompaction:
    if isinstance(preview, str):
        return NextCompaction(unavailable=preview)
    facts = (
        ("Cut before", preview.first_kept_entry_id + (" (split turn)" if preview.is_split_turn else "")),
        ("Summarised", rows_text(preview.summarised_rows)),
        ("Kept", rows_text(preview.kept)),
        ("Tokens", preview_size_text(preview)),
        ("Summary budget", f"{preview.summary_budget:,} tokens"),
    )
    rows = (
        _rows("summarised", preview.summarized)
        + _rows("prefix", preview.turn_prefix)
        + _rows("kept", preview.kept)
    )
    return NextCompaction(
        facts=facts, rows=tuple(rows[:MAX_PREVIEW_ROWS]), more_rows=max(0, len(rows) - MAX_PREVIEW_ROWS)
    )


PAUSED_AFTER_RESTORE = (
    "Automatic compaction is paused since the restore: it runs again once you have sent a message and the "
    "next request would overflow the window (/compact still works)."
)


def preview_for(store: SessionStore, basis: PreviewBasis) -> NextCompaction:
    """The next compaction's preview (no model call)."""
    preview = next_compaction(preview_for_store(store, basis))
    if restore_hold(store) is not None:
        preview = replace(preview, paused=PAUSED_AFTER_RESTORE)
    return preview


def summary_markdown(summary: str) -> str:
    """The summary as Markdown: pi's `<read-files>` / `<modified-files>` tags become titled lists."""

    def as_list(match: re.Match[str]) -> str:
        paths = [line.strip() for line in match.group(2).split("\n") if line.strip()]
        return f"### {_FILE_TAG_TITLES[match.group(1)]}\n\n" + "\n".join(f"- `{path}`" for path in paths)

    return _FILE_TAG.sub(as_list, summary)


@dataclass(frozen=True)
class CompactionDetailData:
    """Everything the detail shows for one compaction, plus the next compaction's preview."""

    compaction_id: str
    facts: tuple[tuple[str, str], ...]
    summary: str
    """Markdown (see `summary_markdown`)."""
    diff: tuple[DiffSection, ...]
    unchanged: tuple[str, ...]
    """Headings of the sections identical to the previous summary."""
    audit: tuple[AuditRow, ...]
    audit_note: str
    preview: NextCompaction


def detail_for(
    store: SessionStore,
    compaction_id: str,
    basis: PreviewBasis,
    checkpoints: CheckpointStore | None = None,
) -> CompactionDetailData | None:
    """The detail of one compaction, or None when `compaction_id` is not a compaction of `store`."""
    entry = store.get_entry(compaction_id)
    diff = diff_compaction(store, compaction_id)
    audit = audit_compaction(store, compaction_id)
    if not isinstance(entry, CompactionEntry) or diff is None or audit is None:
        return None
    record = next((item for item in list_compactions(store) if item.entry_id == compaction_id), None)
    facts: list[tuple[str, str]] = [("Id", entry.id), ("Time", local_time(entry.timestamp))]
    if record is not None:
        facts += [
            ("Reason", record.reason),
            ("Tokens", size_text(record.size)),
            ("Model", record.model or NO_MODEL),
            ("Branch", "current" if record.on_current_branch else "other"),
        ]
        if record.summary_call is not None:
            facts.append(("Summary call", record.summary_call.describe()))
    facts += [("First kept", entry.first_kept_entry_id), ("Summary", f"{len(entry.summary):,} chars")]
    if checkpoints is not None:
        from pi_tui.session.rewind import FileAvailability

        if not FileAvailability(store, checkpoints).restorable_after(entry.parent_id):
            facts.append(("Files", FILES_GONE_FACT))
    missing = len(audit.missing)
    note = f"{missing} of {len(audit.items)} items missing from the summary"
    if audit.scanned_messages < audit.span_messages:
        note += f" (newest {audit.scanned_messages} of {audit.span_messages} messages read)"
    return CompactionDetailData(
        compaction_id=compaction_id,
        facts=tuple(facts),
        summary=summary_markdown(entry.summary),
        diff=diff_sections(diff),
        unchanged=tuple(section.heading for section in diff if section.status == "unchanged"),
        audit=audit_rows(audit, active_pins(store)),
        audit_note=note,
        preview=preview_for(store, basis),
    )
