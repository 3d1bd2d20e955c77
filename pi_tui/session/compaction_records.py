"""Every compaction of a session file, with what each one summarised (the F4 pane, `pi-tui compactions`).

Covers all branches in file order. Reason, model and the request sizes come from pi-tui's `details`
keys (see `compaction_sizes`, which also corrects the size after from the next reported usage); pi's
own entries have none of them (reason `unknown`). The summarised span of a compaction is
recomputed from the file: from the previous compaction's kept region (as `prepare_compaction`
chose it) up to the entry it kept first, history and split-turn prefix together.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pi_tui.context.compaction.loss_audit import LossAudit, audit_span
from pi_tui.context.compaction.preparation import SpanMessage, boundary_start, span_messages
from pi_tui.context.compaction.summary_diff import SectionDiff, diff_summaries
from pi_tui.context.compaction.summary_run import SummaryCallFacts
from pi_tui.session.compaction_sizes import RequestRecords, ShownSize, shown_size
from pi_tui.session_file.context_rebuild import last_compaction_index
from pi_tui.session_file.entries import CompactionEntry
from pi_tui.session_file.store import SessionStore

UNKNOWN_REASON = "unknown"


def _details(entry: CompactionEntry) -> dict[str, Any]:
    return entry.details if isinstance(entry.details, dict) else {}


def _compaction(store: SessionStore, compaction_id: str) -> CompactionEntry | None:
    entry = store.get_entry(compaction_id)
    return entry if isinstance(entry, CompactionEntry) else None


def summarized_span(store: SessionStore, entry: CompactionEntry) -> list[SpanMessage]:
    """The messages `entry`'s summary replaced."""
    if entry.parent_id is None:
        return []
    items = store.get_branch(entry.parent_id)
    start = boundary_start(items, last_compaction_index(items))
    end = next(
        (index for index, earlier in enumerate(items) if earlier.id == entry.first_kept_entry_id), len(items)
    )
    return span_messages(items, start, max(start, end))


def audit_compaction(store: SessionStore, compaction_id: str) -> LossAudit | None:
    """The loss audit of one compaction, or None for an id that is not a compaction."""
    entry = _compaction(store, compaction_id)
    if entry is None:
        return None
    return audit_span(summarized_span(store, entry), entry.summary)


def previous_summary(store: SessionStore, entry: CompactionEntry) -> str | None:
    """The summary of the compaction before `entry` on its branch, if any."""
    if entry.parent_id is None:
        return None
    for earlier in reversed(store.get_branch(entry.parent_id)):
        if isinstance(earlier, CompactionEntry):
            return earlier.summary
    return None


def diff_compaction(store: SessionStore, compaction_id: str) -> list[SectionDiff] | None:
    """Section diff against the previous summary on the same branch (the first one: against nothing)."""
    entry = _compaction(store, compaction_id)
    if entry is None:
        return None
    return diff_summaries(previous_summary(store, entry) or "", entry.summary)


@dataclass(frozen=True)
class CompactionRecord:
    entry_id: str
    timestamp: str
    reason: str
    size: ShownSize
    """The whole request before → after, as shown."""
    entry_tokens_before: int
    """pi's `tokensBefore` as the entry holds it."""
    first_kept_entry_id: str
    model: str | None
    summary_length: int
    audit: dict[str, dict[str, int]]
    on_current_branch: bool
    from_hook: bool
    summary_call: SummaryCallFacts | None = None
    """How the summary was asked for and what it cost; None for compactions written by pi."""

    def to_json_obj(self) -> dict[str, Any]:
        return {
            "id": self.entry_id,
            "timestamp": self.timestamp,
            "reason": self.reason,
            "tokensBefore": self.size.before,
            "tokensAfter": self.size.after,
            "tokensAfterSource": self.size.after_source,
            "entryTokensBefore": self.entry_tokens_before,
            "firstKeptEntryId": self.first_kept_entry_id,
            "model": self.model,
            "summaryLength": self.summary_length,
            "audit": self.audit,
            "onCurrentBranch": self.on_current_branch,
            "fromHook": self.from_hook,
            "summaryCall": self.summary_call.to_details() if self.summary_call is not None else None,
        }


def list_compactions(store: SessionStore) -> list[CompactionRecord]:
    """Every compaction entry of the file, in file order."""
    current = {entry.id for entry in store.get_branch()}
    requests = RequestRecords(store)
    records: list[CompactionRecord] = []
    for entry in store.entries:
        if not isinstance(entry, CompactionEntry):
            continue
        details = _details(entry)
        reason = details.get("reason")
        model = details.get("model")
        records.append(
            CompactionRecord(
                entry_id=entry.id,
                timestamp=entry.timestamp,
                reason=reason if isinstance(reason, str) else UNKNOWN_REASON,
                size=shown_size(requests, entry),
                entry_tokens_before=entry.tokens_before,
                first_kept_entry_id=entry.first_kept_entry_id,
                model=model if isinstance(model, str) else None,
                summary_length=len(entry.summary),
                audit=audit_span(summarized_span(store, entry), entry.summary).counts(),
                on_current_branch=entry.id in current,
                from_hook=bool(entry.from_hook),
                summary_call=SummaryCallFacts.from_details(entry.details),
            )
        )
    return records
