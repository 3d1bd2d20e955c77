"""Compaction of a stored session: prepare from the store, summarise, append the entry; restore and
re-compact (docs/compaction.md).

These are the functions `AgentSession` (triggers: after a run, before a prompt, overflow; decided by
`pi_tui.context.compaction.triggers.check_compaction`) and the headless commands call. Every outcome
is a value: failures carry pi's texts (`Nothing to compact (session too small)`, `Already
compacted`, `Compaction cancelled`, `Compaction failed: <msg>`).

Restore writes a marker: moving the leaf writes nothing in pi's format and a reopened file's leaf
is its last line, so `restore_before` appends a `custom` entry `pi-tui.restore`
(`data: {"compactionId": ...}`) as a child of the compaction's parent. It contributes nothing to the
context (pi ignores custom entries), sits on the new branch, and makes the move survive a reopen.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from pi_tui.ai.abort import AbortSignal
from pi_tui.ai.messages import SystemMessage, ThinkingLevel, Usage, usage_sum
from pi_tui.ai.provider_call import now_ms
from pi_tui.ai.stream import LlmContext, StreamFunction
from pi_tui.ai.system_messages import checkpoint_message, replay_system_messages
from pi_tui.config.compaction_budget import resolved_compaction
from pi_tui.config.model_config import ModelConfig
from pi_tui.config.settings import CompactionSettings
from pi_tui.context.compaction.inline_summary import output_budget
from pi_tui.context.compaction.preparation import (
    CompactionPreparation,
    nothing_to_summarise,
    prepare_compaction,
    unprepared_reason,
)
from pi_tui.context.compaction.preview import CompactionPreview, preview_compaction
from pi_tui.context.compaction.strategy import choose_strategy
from pi_tui.context.compaction.summary_call import SummaryFailure, SummaryModel
from pi_tui.context.compaction.summary_run import SummaryCallFacts, write_summary
from pi_tui.session.compaction_pins import active_pins
from pi_tui.session.compaction_sizes import (
    CompactionSize,
    RequestPrefix,
    RequestRecords,
    measure_compaction,
    request_prefix,
)
from pi_tui.session_file.entries import CompactionEntry
from pi_tui.session_file.ids import iso_to_ms
from pi_tui.session_file.store import SessionError, SessionStore

if TYPE_CHECKING:
    from pi_tui.session.agent_session import AgentSession

CompactionReason: TypeAlias = Literal["manual", "threshold", "overflow"]
RESTORE_CUSTOM_TYPE = "pi-tui.restore"
COMPACTION_FAILED = "Compaction failed"
COMPACTION_CANCELLED = "Compaction cancelled"


def latest_compaction_ms(store: SessionStore) -> int | None:
    """Timestamp (Unix ms) of the latest compaction on the current branch, for `check_compaction`."""
    for entry in reversed(store.get_branch()):
        if isinstance(entry, CompactionEntry):
            return iso_to_ms(entry.timestamp)
    return None


def prepare_for_store(store: SessionStore, settings: CompactionSettings) -> CompactionPreparation | None:
    """pi's `prepareCompaction` on the current branch (None: already compacted or nothing to keep)."""
    return prepare_compaction(store.get_branch(), settings)


@dataclass(frozen=True)
class PreviewBasis:
    """What a compaction preview is planned and measured with: the compaction settings, and the model
    and the prefix (system prompt, tools) the next request sends, when they are known."""

    settings: CompactionSettings
    model: ModelConfig | None = None
    prefix: RequestPrefix | None = None

    @classmethod
    def of_session(cls, session: AgentSession) -> PreviewBasis:
        """An open session's: its next request is the one the preview measures."""
        return cls(session.resources.settings.compaction, session.model, request_prefix(session))


def preview_for_store(store: SessionStore, basis: PreviewBasis) -> CompactionPreview | str:
    """`/compact --preview`: the preview, or why there is nothing to compact. No model call. Its
    tokens before and after are the whole request's, as `compaction_sizes` measures them."""
    items = store.get_branch()
    records = RequestRecords(store)
    settings = resolved_compaction(basis.settings, basis.model)

    def sizer(first_kept_entry_id: str, summary: str) -> tuple[int, int]:
        size = measure_compaction(
            items, first_kept_entry_id, summary, model=basis.model, prefix=basis.prefix, records=records
        )
        return size.before, size.after

    return preview_compaction(items, settings, sizer)


@dataclass
class CompactionOutcome:
    """A finished compaction (`entry_id` set) or why there is none (`error`, `cancelled`).

    `tokens_before` is pi's figure, as written into the entry; `size` is the whole request before and
    after, the figures to show (see `compaction_sizes`)."""

    entry_id: str | None = None
    summary: str = ""
    first_kept_entry_id: str | None = None
    tokens_before: int = 0
    size: CompactionSize = field(default_factory=lambda: CompactionSize(0, 0))
    duration_ms: int = 0
    usage: list[Usage] = field(default_factory=list)
    pinned: list[str] = field(default_factory=list)
    error: str | None = None
    cancelled: bool = False
    summary_call: SummaryCallFacts | None = None

    @property
    def ok(self) -> bool:
        return self.entry_id is not None

    def to_json_obj(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "entryId": self.entry_id,
            "firstKeptEntryId": self.first_kept_entry_id,
            "tokensBefore": self.tokens_before,
            **self.size.to_json_obj(),
            "durationMs": self.duration_ms,
            "usage": [usage.to_json_obj() for usage in self.usage],
            "pinned": self.pinned,
            "error": self.error,
            "cancelled": self.cancelled,
            "summary": self.summary,
            **(self.summary_call.to_details() if self.summary_call is not None else {}),
        }


def prompt_in_force(store: SessionStore) -> SystemMessage | None:
    """The compaction's `systemMessage` (pi 1.6): the prompt sections and tools the context's system
    messages declare, as one checkpoint; None when the context declares none (an older file)."""
    checkpoint = replay_system_messages(store.build_context().messages)
    return checkpoint_message(checkpoint, now_ms()) if checkpoint.seen else None


def compaction_details(
    read_files: list[str],
    modified_files: list[str],
    *,
    size: CompactionSize,
    model: ModelConfig,
    duration_ms: int,
    usage: list[Usage],
    reason: CompactionReason,
    pinned: list[str],
    summary_call: SummaryCallFacts,
) -> dict[str, Any]:
    """pi's `{readFiles, modifiedFiles}` first (pi reads only those), then pi-tui's own keys."""
    return {
        "readFiles": read_files,
        "modifiedFiles": modified_files,
        **size.to_json_obj(),
        "model": model.ref,
        "durationMs": duration_ms,
        "summaryUsage": [item.to_json_obj() for item in usage],
        "reason": reason,
        "pinned": pinned,
        **summary_call.to_details(),
    }


async def compact_store(
    store: SessionStore,
    *,
    model: ModelConfig,
    api_key: str | None,
    stream_fn: StreamFunction,
    settings: CompactionSettings,
    custom_instructions: str | None = None,
    reason: CompactionReason = "manual",
    signal: AbortSignal | None = None,
    thinking_level: ThinkingLevel | None = None,
    live: LlmContext | None = None,
    prefix: RequestPrefix | None = None,
) -> CompactionOutcome:
    """Prepare, summarise and append the entry.

    `live` is the request the session would send now without a new message (system prompt, tools and
    the conversation converted for the model); with it the summary may be asked inside it (the inline
    strategy, chosen by `compaction.strategy`), else it is written by pi's serialising calls (one, or
    two in parallel for a split turn). The caller rebuilds its agent state from `store.build_context()`
    afterwards. Pinned items of the session are carried into the summary. `thinking_level` defaults to
    the branch's level. `prefix`: what the session's next request sends besides messages (default:
    what the last recorded one sent).
    """
    started = time.monotonic()
    settings = resolved_compaction(settings, model)
    items = store.get_branch()
    prepared = prepare_compaction(items, settings)
    if prepared is None:
        return CompactionOutcome(error=unprepared_reason(items))
    empty = nothing_to_summarise(prepared)
    if empty is not None:  # no model call, no entry: the context would only grow
        return CompactionOutcome(error=empty)
    if not store.writable:
        return CompactionOutcome(error=f"{COMPACTION_FAILED}: session is read-only: {store.read_only_reason}")
    level = thinking_level if thinking_level is not None else store.build_context().thinking_level
    pins = [pin.text for pin in active_pins(store)]
    target = SummaryModel(model=model, stream_fn=stream_fn, api_key=api_key, thinking_level=level)
    choice = choose_strategy(
        settings.strategy,
        model,
        overflow=reason == "overflow",
        has_conversation=live is not None and bool(live.messages),
        context_tokens=prepared.tokens_before,
        output_tokens=min(output_budget(prepared), model.max_tokens),
    )
    result, facts = await write_summary(
        prepared, target, choice, live, custom_instructions=custom_instructions, pins=pins, signal=signal
    )
    if isinstance(result, SummaryFailure):
        if result.cancelled:
            return CompactionOutcome(error=COMPACTION_CANCELLED, cancelled=True)
        return CompactionOutcome(error=f"{COMPACTION_FAILED}: {result.message}")
    if signal is not None and signal.aborted:
        return CompactionOutcome(error=COMPACTION_CANCELLED, cancelled=True)
    size = measure_compaction(
        items,
        result.first_kept_entry_id,
        result.summary,
        model=model,
        prefix=prefix,
        records=RequestRecords(store),
    )
    duration_ms = round((time.monotonic() - started) * 1000)
    details = compaction_details(
        result.read_files,
        result.modified_files,
        size=size,
        model=model,
        duration_ms=duration_ms,
        usage=result.usages,
        reason=reason,
        pinned=result.pinned,
        summary_call=facts,
    )
    entry = store.append_compaction(
        result.summary,
        result.first_kept_entry_id,
        result.tokens_before,
        details,
        from_hook=False,
        usage=usage_sum(result.usages),
        system_message=prompt_in_force(store),
    )
    return CompactionOutcome(
        entry_id=entry.id,
        summary=result.summary,
        first_kept_entry_id=result.first_kept_entry_id,
        tokens_before=result.tokens_before,
        size=size,
        duration_ms=duration_ms,
        usage=result.usages,
        pinned=result.pinned,
        summary_call=facts,
    )


@dataclass(frozen=True)
class RestoreOutcome:
    """`leaf_id`: the new leaf (the `pi-tui.restore` marker); `restored_to`: the compaction's parent."""

    leaf_id: str | None = None
    restored_to: str | None = None
    error: str | None = None

    def to_json_obj(self) -> dict[str, Any]:
        return {"leafId": self.leaf_id, "restoredTo": self.restored_to, "error": self.error}


def restore_before(store: SessionStore, compaction_id: str) -> RestoreOutcome:
    """Undo a compaction: continue from the entry just before it, on a new branch.

    The raw history is still in the file, so the rebuilt context holds the pre-compaction messages
    again. The move is persisted with a `pi-tui.restore` marker entry (see the module docstring).
    """
    entry = store.get_entry(compaction_id)
    if not isinstance(entry, CompactionEntry):
        return RestoreOutcome(error=f"{compaction_id} is not a compaction entry")
    if not store.writable:
        return RestoreOutcome(error=f"session is read-only: {store.read_only_reason}")
    try:
        if entry.parent_id is None:
            store.reset_leaf()
        else:
            store.branch(entry.parent_id)
    except SessionError as error:
        return RestoreOutcome(error=str(error))
    marker = store.append_custom(RESTORE_CUSTOM_TYPE, {"compactionId": compaction_id})
    return RestoreOutcome(leaf_id=marker.id, restored_to=entry.parent_id)


async def recompact(
    store: SessionStore,
    compaction_id: str,
    instructions: str | None,
    *,
    model: ModelConfig,
    api_key: str | None,
    stream_fn: StreamFunction,
    settings: CompactionSettings,
    signal: AbortSignal | None = None,
    thinking_level: ThinkingLevel | None = None,
    prefix: RequestPrefix | None = None,
) -> CompactionOutcome:
    """Restore before `compaction_id`, then compact again with `instructions` (a manual compaction)."""
    restored = restore_before(store, compaction_id)
    if restored.error is not None:
        return CompactionOutcome(error=restored.error)
    return await compact_store(
        store,
        model=model,
        api_key=api_key,
        stream_fn=stream_fn,
        settings=settings,
        custom_instructions=instructions,
        reason="manual",
        signal=signal,
        thinking_level=thinking_level,
        prefix=prefix,
    )
