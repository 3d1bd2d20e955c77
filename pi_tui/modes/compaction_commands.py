"""Headless compaction commands, each `run_*_command(argv) -> exit code`, all with `--json`:

- `pi-tui compactions <session> [--show ID]`: the timeline of every compaction across all branches;
  `--show` prints one compaction's summary, its diff to the previous summary and its loss audit;
- `pi-tui compact <session> [--preview] [--instructions TEXT] [--model REF --base-url URL
  --api-key-file PATH]`: compact the session's current branch now (or only preview the cut, without a
  model call);
- `pi-tui restore <session> <compaction-id>`: continue from just before a compaction; prints the new
  leaf id.

`<session>` is a path or a session-id prefix, resolved as `--session` is. Errors go to stderr with
exit status 1.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import TYPE_CHECKING, TextIO

from pi_tui.ai.providers import stream_by_api
from pi_tui.config.api_key_option import ApiKeyFileError, add_api_key_options, command_line_key
from pi_tui.config.models import resolve_model
from pi_tui.config.settings import Settings
from pi_tui.config.settings_files import load_settings
from pi_tui.context.compaction.preview import CompactionPreview, counted, rows_text
from pi_tui.context.compaction.summary_diff import format_summary_diff
from pi_tui.modes.session_command_support import fail, open_session, print_json, session_parser
from pi_tui.session.branch_run_model import branch_model
from pi_tui.session.compaction_ops import (
    COMPACTION_CANCELLED,
    PreviewBasis,
    compact_store,
    preview_for_store,
    restore_before,
)
from pi_tui.session.compaction_records import (
    CompactionRecord,
    audit_compaction,
    diff_compaction,
    list_compactions,
)
from pi_tui.session.compaction_sizes import estimated, preview_size_text, size_text
from pi_tui.session.next_request import live_context_for
from pi_tui.session.restore_hold import restore_cost
from pi_tui.session_file.entries import CompactionEntry
from pi_tui.session_file.store import SessionStore
from pi_tui.session_file.tree_listing import FILES_GONE_NOTE

if TYPE_CHECKING:
    from pi_tui.session.rewind import RewindOutcome, RewindPlan

INTERRUPTED_EXIT = 130


# --- pi-tui compactions ---------------------------------------------------------------------------


def print_timeline(
    records: list[CompactionRecord], out: TextIO, files_gone: frozenset[str] = frozenset()
) -> None:
    """One line per compaction; those in `files_gone` can no longer bring their files back."""
    if not records:
        out.write("No compactions.\n")
        return
    for record in records:
        marker = "*" if record.on_current_branch else " "
        missing = sum(counts["missing"] for counts in record.audit.values())
        listed = sum(counts["listed"] for counts in record.audit.values())
        out.write(
            f"{marker} {record.entry_id}  {record.timestamp}  {record.reason:<9}  "
            f"{size_text(record.size, arrow='->'):>26}  "
            f"kept from {record.first_kept_entry_id}  {record.model or '-'}  "
            f"summary {record.summary_length} chars  audit {missing}/{listed} missing\n"
        )
        if record.summary_call is not None:
            out.write(f"    summary call {record.summary_call.describe()}\n")
        if record.entry_id in files_gone:
            out.write(f"    {FILES_GONE_NOTE}: the checkpoint size cap dropped some (docs/rewind.md)\n")
    out.write("(* = on the current branch)\n")


def _show(store: SessionStore, compaction_id: str, as_json: bool) -> int:
    entry = store.get_entry(compaction_id)
    diff = diff_compaction(store, compaction_id)
    audit = audit_compaction(store, compaction_id)
    if not isinstance(entry, CompactionEntry) or diff is None or audit is None:
        return fail(f"{compaction_id} is not a compaction entry")
    if as_json:
        print_json(
            {
                "id": entry.id,
                "summary": entry.summary,
                "diff": [section.to_json_obj() for section in diff],
                "audit": audit.to_json_obj(),
            }
        )
        return 0
    out = sys.stdout
    out.write(f"Compaction {entry.id} ({entry.timestamp}), {entry.tokens_before} tokens before\n\n")
    out.write(entry.summary.rstrip("\n") + "\n\n--- diff to the previous summary ---\n")
    out.write(format_summary_diff(diff))
    out.write("\n--- loss audit ---\n")
    for item in audit.items:
        state = "kept   " if item.survives else "MISSING"
        out.write(f"{state}  {item.kind:<7}  {item.text}  ({item.count}x, {item.entry_id})\n")
    return 0


def run_compactions_command(argv: list[str]) -> int:
    parser = session_parser("pi-tui compactions", "List every compaction of a session, on all branches.")
    parser.add_argument("--show", metavar="ID", help="one compaction: summary, diff and loss audit")
    options = parser.parse_args(argv)
    store = open_session(options.session, options.session_dir, writes=False)
    if isinstance(store, str):
        return fail(store)
    if options.show:
        return _show(store, options.show, options.json)
    records = list_compactions(store)
    gone = _files_gone(store, records)
    if options.json:
        print_json(
            [{**record.to_json_obj(), "filesRestorable": record.entry_id not in gone} for record in records]
        )
    else:
        print_timeline(records, sys.stdout, gone)
    return 0


def _files_gone(store: SessionStore, records: list[CompactionRecord]) -> frozenset[str]:
    """The compactions whose restore could no longer bring the files along (the cap dropped some)."""
    if not records:
        return frozenset()
    from pi_tui.session.rewind import FileAvailability
    from pi_tui.session.session_setup import checkpoints_for

    availability = FileAvailability(store, checkpoints_for(store))
    gone: set[str] = set()
    for record in records:
        entry = store.get_entry(record.entry_id)
        if entry is not None and not availability.restorable_after(entry.parent_id):
            gone.add(record.entry_id)
    return frozenset(gone)


# --- pi-tui compact -------------------------------------------------------------------------------


def print_preview(preview: CompactionPreview, out: TextIO) -> None:
    out.write(f"Cut before {preview.first_kept_entry_id}{' (split turn)' if preview.is_split_turn else ''}\n")
    out.write(f"Summarised: {rows_text(preview.summarised_rows)}")
    if preview.turn_prefix:
        out.write(f" (of which turn prefix: {counted(len(preview.turn_prefix), 'message')})")
    out.write(f"\nKept: {rows_text(preview.kept)}\n")
    out.write(f"Tokens (whole request): {preview_size_text(preview, arrow='->')}")
    out.write(f" (summary up to {preview.summary_budget:,})\n")
    for label, items in (("summarised", preview.summarised_rows), ("kept", preview.kept)):
        for item in items:
            out.write(f"  {label:<10} {item.entry_id}  {item.role:<17} {item.tokens:>7}\n")


def _model_ref(options: argparse.Namespace, settings: Settings, store: SessionStore) -> str | None:
    if options.model:
        return str(options.model)
    if settings.default_model:
        provider = settings.default_provider
        return f"{provider}/{settings.default_model}" if provider else settings.default_model
    branch_model = store.build_context().model
    return f"{branch_model.provider}/{branch_model.model_id}" if branch_model is not None else None


def run_compact_command(argv: list[str]) -> int:
    parser = session_parser("pi-tui compact", "Compact a session's current branch (as /compact).")
    parser.add_argument("--preview", action="store_true", help="show the cut and token counts; no model call")
    parser.add_argument("--instructions", metavar="TEXT", help="additional focus for the summary")
    parser.add_argument("--model", metavar="REF", help="provider/id or id (default: the session's model)")
    parser.add_argument("--base-url", metavar="URL", help="OpenAI-compatible endpoint")
    add_api_key_options(parser)
    options = parser.parse_args(argv)
    try:
        api_key = command_line_key(options, sys.stderr)
    except ApiKeyFileError as error:
        return fail(str(error))
    store = open_session(options.session, options.session_dir, writes=not options.preview)
    if isinstance(store, str):
        return fail(store)
    settings = load_settings(store.cwd).settings
    if options.preview:
        model, _ = branch_model(store)
        preview = preview_for_store(store, PreviewBasis(settings.compaction, model))
        if isinstance(preview, str):
            return fail(preview)
        if options.json:
            print_json(preview.to_json_obj())
        else:
            print_preview(preview, sys.stdout)
        return 0
    resolution = resolve_model(_model_ref(options, settings, store), options.base_url, api_key)
    if resolution.model is None:
        return fail("; ".join(str(item) for item in resolution.diagnostics))
    try:
        outcome = asyncio.run(
            compact_store(
                store,
                model=resolution.model,
                api_key=resolution.api_key,
                stream_fn=stream_by_api,
                settings=settings.compaction,
                custom_instructions=options.instructions,
                reason="manual",
                live=live_context_for(store, resolution.model),
            )
        )
    except KeyboardInterrupt:  # the summary task was cancelled: nothing was appended
        fail(COMPACTION_CANCELLED)
        return INTERRUPTED_EXIT
    if outcome.error is not None:
        if options.json:
            print_json(outcome.to_json_obj())
        return fail(outcome.error)
    if options.json:
        print_json(outcome.to_json_obj())
    else:
        sys.stdout.write(
            f"Compacted: {outcome.entry_id}  {size_text(estimated(outcome.size), arrow='->')} tokens"
            f"  kept from {outcome.first_kept_entry_id}  ({outcome.duration_ms} ms)\n"
        )
    return 0


# --- pi-tui restore -------------------------------------------------------------------------------


def run_restore_command(argv: list[str]) -> int:
    parser = session_parser("pi-tui restore", "Continue from just before a compaction, on a new branch.")
    parser.add_argument("compaction_id", help="id of the compaction entry to undo")
    parser.add_argument(
        "--files", action="store_true", help="bring the files back to that point too (docs/rewind.md)"
    )
    parser.add_argument("--force", action="store_true", help="with --files: overwrite files changed outside")
    options = parser.parse_args(argv)
    store = open_session(options.session, options.session_dir, writes=True)
    if isinstance(store, str):
        return fail(store)
    settings = load_settings(store.cwd).settings
    ref = _model_ref(argparse.Namespace(model=None), settings, store)
    model = resolve_model(ref, None, None).model if ref is not None else None
    cost = restore_cost(store, options.compaction_id, model, settings.compaction)
    entry = store.get_entry(options.compaction_id)
    # The files are planned first: a conflict refuses the whole restore, so nothing moves.
    files = _files_plan(store, entry.parent_id) if isinstance(entry, CompactionEntry) else None
    if options.files and files is not None and files.conflicts and not options.force:
        from pi_tui.session.rewind import plan_lines

        sys.stderr.write("\n".join(plan_lines(files)) + "\n")
        names = ", ".join(item.path for item in files.conflicts)
        return fail(f"changed outside pi-tui since, not overwritten: {names} (--force overwrites them)")
    outcome = restore_before(store, options.compaction_id)
    if outcome.error is not None:
        return fail(outcome.error)
    restored = None
    if options.files and files is not None and files.files:
        from pi_tui.session.rewind import apply_rewind
        from pi_tui.session.session_setup import checkpoints_for

        restored = apply_rewind(store, checkpoints_for(store), store.cwd, files, force=options.force)
    if options.json:
        files_json = files.to_json_obj() if files is not None else None
        done = {"restored": restored.restored, "failed": dict(restored.failed)} if restored else None
        print_json(
            {
                **outcome.to_json_obj(),
                "cost": cost.to_json_obj() if cost is not None else None,
                "files": files_json,
                "filesRestored": done,
            }
        )
    else:
        sys.stdout.write(f"{outcome.leaf_id}\n")
        if cost is not None:  # the leaf id alone on stdout, for scripts
            sys.stderr.write(f"pi-tui: restored. {cost.describe()}\n")
        _report_files(files, restored, store, options.files)
    return 1 if restored is not None and restored.failed else 0


def _files_plan(store: SessionStore, point: str | None) -> RewindPlan | None:
    """What bringing the files to `point` would change (None when the session kept no checkpoint)."""
    from pi_tui.session.rewind import FileHistory, plan_rewind
    from pi_tui.session.session_setup import checkpoints_for

    history = FileHistory(store)
    if not history.records:
        return None
    return plan_rewind(store, checkpoints_for(store), store.cwd, point, history=history)


def _report_files(
    files: RewindPlan | None, restored: RewindOutcome | None, store: SessionStore, asked: bool
) -> None:
    """On stderr (stdout keeps the leaf id alone): what the files did, or the offer to bring them."""
    from pi_tui.session.rewind import plan_lines

    if files is None or not files.files:
        return
    if not asked:
        sys.stderr.write(
            f"pi-tui: {len(files.files)} file(s) differ from that point; "
            f"`pi-tui restore {store.path} ID --files` (or `pi-tui rewind`) brings them back:\n"
        )
        sys.stderr.write("".join(f"  {line}\n" for line in plan_lines(files) if not line.startswith(" ")))
        return
    if restored is None:
        return
    for path in restored.restored:
        sys.stderr.write(f"pi-tui: restored {path}\n")
    for item in restored.left:
        sys.stderr.write(f"pi-tui: left {item.path} ({item.reason or item.action})\n")
    for path, reason in restored.failed:
        sys.stderr.write(f"pi-tui: not restored {path}: {reason}\n")
