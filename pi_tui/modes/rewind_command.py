"""`pi-tui rewind SESSION [ENTRY] [--files|--conversation|--both] [--dry-run] [--force] [--json]`: the
headless `/rewind`. Without ENTRY it lists the points (every user message on every branch, and whether
its files can still be restored); with one it prints the files it would change and their diffs, then
rewinds, unless `--dry-run`; `--undo` puts the files the last rewind changed back as they were before
it. A file changed outside pi-tui since is a conflict: exit 1 with the conflicts listed, nothing
written, unless `--force`. What is restorable: docs/rewind.md.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from pi_tui.modes.session_command_support import fail, open_session, print_json, session_parser
from pi_tui.session.rewind import (
    RewindMode,
    RewindPlan,
    apply_rewind,
    plan_rewind,
    plan_undo,
    point_for,
    rewind_points,
    rewind_store,
)
from pi_tui.session.session_setup import checkpoints_for
from pi_tui.session_file.store import SessionStore
from pi_tui.session_file.tree_listing import FILES_GONE_NOTE
from pi_tui.tools.file_checkpoints.store import CheckpointStore


def run_rewind_command(argv: list[str]) -> int:
    parser = session_parser("pi-tui rewind", "Rewind a session's files, conversation or both to an entry.")
    parser.add_argument("entry", nargs="?", help="the entry (a user message: the state before it)")
    modes = parser.add_mutually_exclusive_group()
    modes.add_argument("--files", dest="mode", action="store_const", const="files", help="restore files only")
    modes.add_argument(
        "--conversation",
        dest="mode",
        action="store_const",
        const="conversation",
        help="move the conversation only",
    )
    modes.add_argument("--both", dest="mode", action="store_const", const="both", help="both (the default)")
    parser.add_argument("--dry-run", action="store_true", help="show what would change; write nothing")
    parser.add_argument("--force", action="store_true", help="also overwrite files changed outside pi-tui")
    parser.add_argument(
        "--undo", action="store_true", help="the files the last rewind changed, back as they were before it"
    )
    options = parser.parse_args(argv)
    mode: RewindMode = options.mode or "both"
    if options.undo and (options.entry is not None or options.mode not in (None, "files")):
        return fail("--undo takes no ENTRY and restores files only")
    writes = options.entry is not None or (options.undo and not options.dry_run)
    store = open_session(options.session, options.session_dir, writes=writes)
    if isinstance(store, str):
        return fail(store)
    checkpoints = checkpoints_for(store)
    if options.undo:
        return _undo(store, checkpoints, options)
    if options.entry is None:
        points = rewind_points(store, checkpoints)
        if options.json:
            print_json(
                [
                    {
                        "entryId": point.entry_id,
                        "text": point.text,
                        "onCurrentBranch": point.on_current_branch,
                        "restorable": point.restorable,
                    }
                    for point in points
                ]
            )
            return 0
        for point in points:
            where = "•" if point.on_current_branch else " "
            gone = "" if point.restorable else f"  {FILES_GONE_NOTE}"
            sys.stdout.write(f"{point.entry_id} {where} {_one_line(point.text)}{gone}\n")
        if not points:
            sys.stdout.write("No user messages.\n")
        return 0
    entry = store.get_entry(options.entry)
    if entry is None:
        return fail(f"no entry {options.entry} in {store.path}")
    plan = None
    if mode != "conversation":
        plan = plan_rewind(store, checkpoints, store.cwd, point_for(store, entry.id))
        _print_plan(plan, json_out=options.json)
        if plan.conflicts and not options.force:
            names = ", ".join(item.path for item in plan.conflicts)
            return fail(f"changed outside pi-tui since, not overwritten: {names} (--force overwrites them)")
    if options.dry_run:
        return 0
    if not store.writable:
        return fail(f"the session cannot be written: {store.read_only_reason}")
    result = asyncio.run(
        rewind_store(store, checkpoints, store.cwd, entry.id, mode, plan=plan, force=options.force)
    )
    outcome = result.outcome
    if outcome is not None and not options.json:
        for path in outcome.restored:
            sys.stdout.write(f"restored {path}\n")
        for path, reason in outcome.failed:
            sys.stdout.write(f"not restored {path}: {reason}\n")
        if mode != "files":
            sys.stdout.write(f"conversation now continues from {store.leaf_id}\n")
    return 1 if outcome is not None and outcome.failed else 0


def _undo(store: SessionStore, checkpoints: CheckpointStore, options: argparse.Namespace) -> int:
    """`--undo`: the last rewind on the current branch taken back (it kept what it replaced)."""
    plan = plan_undo(store, checkpoints, store.cwd)
    if plan is None:
        return fail("no rewind on the current branch changed a file: nothing to undo")
    _print_plan(plan, json_out=options.json)
    if plan.conflicts and not options.force:
        names = ", ".join(item.path for item in plan.conflicts)
        return fail(f"changed outside pi-tui since, not overwritten: {names} (--force overwrites them)")
    if options.dry_run:
        return 0
    if not store.writable:
        return fail(f"the session cannot be written: {store.read_only_reason}")
    outcome = apply_rewind(store, checkpoints, store.cwd, plan, force=options.force)
    if not options.json:
        for path in outcome.restored:
            sys.stdout.write(f"restored {path}\n")
        for path, reason in outcome.failed:
            sys.stdout.write(f"not restored {path}: {reason}\n")
    return 1 if outcome.failed else 0


def _one_line(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= 80 else flat[:79] + "…"


def _print_plan(plan: RewindPlan, *, json_out: bool) -> None:
    if json_out:
        print_json(plan.to_json_obj())
        return
    if not plan.files:
        sys.stdout.write("Files: nothing to restore.\n")
    for item in plan.files:
        label = {
            "restore": "restore",
            "delete": "delete",
            "conflict": "CONFLICT",
            "unavailable": "cannot restore",
        }
        reason = f" ({item.reason})" if item.reason else ""
        if item.action == "conflict":
            reason = " (changed outside pi-tui since; left unless --force)"
        sys.stdout.write(f"{label[item.action]:<15} {item.path}{reason}\n")
        for line in item.diff:
            sys.stdout.write(f"    {line}\n")
    for warning in plan.warnings:
        sys.stdout.write(f"note: {warning}\n")
