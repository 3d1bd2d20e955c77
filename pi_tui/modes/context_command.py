"""`pi-tui context <session> [--json] [--leaf <id>] [--records N] [--request]`: the inspector's data as
text or JSON, or the exact request the session's next model call would send.

Works on pi's own session files too: without request records every figure comes from the transcript
and is marked as an estimate. The window comes from models.json when the branch's model is listed there,
else pi-tui's default window (said so in the output).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any, TextIO

from pydantic.alias_generators import to_camel

from pi_tui.ai.served_window import probe_served_window
from pi_tui.config.model_config import ModelConfig
from pi_tui.config.settings_files import load_settings
from pi_tui.context.accounting.blame import drift_cause, drift_cost, provider_blame
from pi_tui.context.accounting.geometry import used_how
from pi_tui.context.cache_policy import (
    cache_clock,
    cache_clock_json,
    cache_clock_line,
    cache_settings_json,
    cache_settings_line,
)
from pi_tui.context.compaction.blocker import blocked_line
from pi_tui.modes.request_preview import preview_session, show_next_request
from pi_tui.modes.session_command_support import report_file_problems
from pi_tui.session.branch_run_model import branch_model
from pi_tui.session.context_edits import EditAction, apply_context_edit, plan_context_edit
from pi_tui.session.inspector import DEFAULT_RECORDS, InspectorCache, InspectorData, build_inspector_data
from pi_tui.session_file.session_arg import SessionArgError, resolve_session_arg
from pi_tui.session_file.store import SessionStore

BAR_WIDTH = 60
LARGEST_MESSAGES = 5
BAR_PARTS = (
    ("prefix", "P"),
    ("summary", "S"),
    ("kept", "K"),
    ("new_tail", "N"),
    ("free", "."),
    ("reserve", "R"),
)


def budget_bar(data: InspectorData, width: int = BAR_WIDTH) -> str:
    """One character per 1/`width` of the budget, the parts in order, rounded by largest remainder."""
    split = data.geometry.split
    values = [getattr(split, name) for name, _ in BAR_PARTS]
    total = sum(values)
    if total <= 0:
        return "[" + " " * width + "]"
    exact = [value * width / total for value in values]
    cells = [int(x) for x in exact]
    order = sorted(range(len(values)), key=lambda i: exact[i] - cells[i], reverse=True)
    for i in order[: width - sum(cells)]:
        cells[i] += 1
    return "[" + "".join(mark * count for (_, mark), count in zip(BAR_PARTS, cells, strict=True)) + "]"


def _camel(value: Any) -> Any:
    """Dataclass dumps use Python names; the JSON uses camelCase throughout, like pi's files."""
    if isinstance(value, dict):
        return {to_camel(key): _camel(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_camel(item) for item in value]
    return value


def inspector_json(data: InspectorData, notes: list[str]) -> dict[str, Any]:
    """The report as one JSON object (camelCase keys; records exactly as stored, but expanded)."""
    document: dict[str, Any] = _camel(
        {
            "sessionId": data.session_id,
            "leafId": data.leaf_id,
            "model": data.model.ref if data.model is not None else None,
            "source": data.source,
            "notes": notes,
            "usage": asdict(data.usage) if data.usage is not None else None,
            "geometry": asdict(data.geometry),
            "forecast": asdict(data.forecast),
            "prefix": (
                {
                    "source": data.prefix.source,
                    "tokens": data.prefix.tokens,
                    "segments": [asdict(s) for s in data.prefix.segments],
                }
                if data.prefix is not None
                else None
            ),
            "messageCount": data.message_count,
            "contextTokens": data.context_tokens,
            "autoCompactionBlocked": asdict(data.blocked) if data.blocked is not None else None,
            "records": [
                {
                    "entryId": view.entry_id,
                    "record": view.record.model_dump(mode="json", by_alias=True, exclude_none=True),
                    "drift": (
                        {
                            **asdict(view.drift),
                            "cause": drift_cause(view.drift),
                            "provider_cause": provider_blame(view.drift),
                        }
                        if view.drift is not None
                        else None
                    ),
                }
                for view in data.records
            ],
        }
    )
    return document


def _n(value: int) -> str:
    return f"{value:,}"


def print_report(
    data: InspectorData,
    notes: list[str],
    out: TextIO,
    largest: Sequence[tuple[str, str, int]] = (),
    cache_line: str | None = None,
    clock_line: str | None = None,
) -> None:
    """The human report; `largest` lists the biggest context messages as (key, zone, tokens);
    `cache_line` pi 1.6's cache settings (`cache_settings_line`), `clock_line` the cache's clock."""
    geometry = data.geometry
    split = geometry.split
    model = data.model.ref if data.model is not None else "(none)"
    out.write(f"Session {data.session_id}  leaf {data.leaf_id}  model {model}\n")
    marked = (
        "from request records" if data.source == "records" else "ESTIMATE (no request records on this branch)"
    )
    out.write(f"Source: {marked}\n")
    for note in notes:
        out.write(f"Note: {note}\n")
    out.write(f"Context: {_n(geometry.used_tokens)} / {_n(geometry.context_window)} ({used_how(geometry)})\n")
    if cache_line is not None:
        out.write(f"Cache: {cache_line}\n")
    if clock_line is not None:
        out.write(f"Cache clock: {clock_line}\n")
    out.write(f"\nBudget {budget_bar(data)}\n")
    out.write(
        f"  P prefix {geometry.prefix_text} · S summary {_n(split.summary)}"
        f" · K kept {_n(split.kept)} · N new {_n(split.new_tail)}"
        f" · free {_n(split.free)} · R reserve {_n(split.reserve)}\n"
    )
    auto = "on" if geometry.auto_compaction else "off"
    out.write(
        f"  threshold {_n(geometry.threshold)} (window − reserve {_n(geometry.reserve_tokens)}; auto {auto})"
        f" · tokens left {_n(geometry.tokens_left)} ({geometry.used_source})\n"
    )
    if data.blocked is not None:
        out.write(f"  {blocked_line(data.blocked)}\n")
    calibration = geometry.calibration
    if calibration.basis != "none":
        out.write(
            f"  estimates calibrated by the last reported prompt ({calibration.basis}):"
            f" prefix ×{calibration.prefix_ratio:.2f}, messages ×{calibration.message_ratio:.2f}\n"
        )
    if geometry.boundary is not None:
        out.write(
            f"  keep-recent boundary: {geometry.boundary.entry_id}"
            f" ({_n(geometry.boundary.tokens_kept)} tokens kept; target {_n(geometry.keep_recent_tokens)})\n"
        )
    else:
        out.write(f"  keep-recent boundary: not computed (target {_n(geometry.keep_recent_tokens)} tokens)\n")
    source = data.prefix.source if data.prefix is not None else "unknown: no request record"
    out.write(f"\nSegments (prefix {source})\n")
    for segment in data.prefix.segments if data.prefix is not None else ():
        out.write(
            f"  {segment.section:<8} {segment.key:<40} {_n(segment.tokens):>9}  {segment.fingerprint}\n"
        )
    for key, zone, count in largest:
        out.write(f"  {'message':<8} {key + ' (' + zone + ')':<40} {_n(count):>9}\n")
    messages = f"{data.message_count} messages in context"
    out.write(f"  {'total':<8} {messages:<40} {_n(data.context_tokens):>9}\n")
    if data.records:
        out.write(f"\nRequests (last {len(data.records)})\n")
        for view in data.records:
            record = view.record
            used = record.usage
            reported = (
                f"in {_n(used.input)} cached {_n(used.cache_read)} out {_n(used.output)}"
                if used
                else "no usage"
            )
            drift = view.drift
            blame: str = "first" if drift is None else ("no drift" if not drift.drifted else drift.kind)
            if drift is not None and drift.drifted:
                blame += f": {drift_cause(drift)}: {drift_cost(drift)}"
            if drift is not None:
                blame += f"; cacheable {_n(drift.cacheable_tokens)}"
                provider = provider_blame(drift)
                if provider is not None:
                    blame += f"; {provider}"
            out.write(
                f"  {view.entry_id} {record.kind:<14} {_n(record.total_tokens()):>8} tok"
                f"  {reported}  {blame}\n"
            )
    outlook = data.forecast
    out.write("\nForecast: next request ≈ " + _n(outlook.next_request_tokens) + " tokens")
    if outlook.typical_turn_tokens is not None:
        out.write(
            f"; typical turn {_n(outlook.typical_turn_tokens)} (median of last {outlook.turns_sampled})"
        )
    if outlook.turns_left is not None:
        out.write(f"; ~{outlook.turns_left} turns before auto-compaction")
    out.write("\n")


def _edit_context(store: SessionStore, model: ModelConfig | None, options: argparse.Namespace) -> int:
    """`--hide` / `--unhide`: the preview, and with `--yes` the `context_edit` it describes."""
    target = options.hide if options.hide is not None else options.unhide
    action: EditAction = "restore" if options.unhide is not None else "note" if options.note else "hide"
    if options.yes and store.read_only_reason is not None:
        sys.stderr.write(f"pi-tui context: session is read-only: {store.read_only_reason}\n")
        return 1
    preview = plan_context_edit(store, model, target, action, options.note)
    if isinstance(preview, str):
        sys.stderr.write(f"pi-tui context: {preview}\n")
        return 1
    written = apply_context_edit(store, preview).id if options.yes else None
    if options.json:
        report = {
            "targetId": preview.target_id,
            "action": preview.action,
            "lostText": preview.lost_text,
            "tokensSavedPerTurn": preview.saved_per_turn,
            "rereadTokens": preview.reread_tokens,
            "extraCost": preview.extra_cost,
            "written": written,
        }
        json.dump(report, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
        return 0
    sys.stdout.write("\n".join(preview.lines()) + "\n")
    if written is not None:
        undo = f"pi-tui context {store.session_id} --unhide {target} --yes"
        sys.stdout.write(f"Written: context_edit {written} (undo: {undo})\n")
    else:
        sys.stdout.write("Preview only: add --yes to write it.\n")
    return 0


def run_context_command(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="pi-tui context", description="Show a session's context usage, budget, requests and drift."
    )
    parser.add_argument("session", help="session file path or id prefix")
    parser.add_argument("--json", action="store_true", help="one JSON object instead of the report")
    parser.add_argument("--leaf", metavar="ID", help="entry id to inspect instead of the session's leaf")
    parser.add_argument(
        "--records", metavar="N", type=int, default=DEFAULT_RECORDS, help="request records shown"
    )
    parser.add_argument(
        "--request",
        action="store_true",
        help="the body and headers the next model call would send (keys shown as [redacted])",
    )
    parser.add_argument("--prompt", metavar="TEXT", help="with --request: the next user message")
    parser.add_argument(
        "--base-url",
        metavar="URL",
        help="the model's server, for a model not in models.json: its served window is asked for",
    )
    edits = parser.add_argument_group("context edits (pi 1.6's context_edit entries)")
    edits.add_argument("--hide", metavar="ENTRY", help="leave an entry out of every later request")
    edits.add_argument("--note", metavar="TEXT", help="with --hide: put this note in its place instead")
    edits.add_argument("--unhide", metavar="ENTRY", help="undo an entry's edit: restore its original content")
    edits.add_argument("--yes", action="store_true", help="write the edit (without it: the preview only)")
    options = parser.parse_args(argv)
    if options.note is not None and options.hide is None:
        sys.stderr.write("pi-tui context: --note goes with --hide ENTRY\n")
        return 2
    if options.hide is not None and options.unhide is not None:
        sys.stderr.write("pi-tui context: --hide and --unhide are one edit each: give one\n")
        return 2
    resolved = resolve_session_arg(options.session, os.getcwd())
    if isinstance(resolved, SessionArgError):
        sys.stderr.write(f"pi-tui context: {resolved.message}\n")
        return 1
    if not resolved.is_file():
        sys.stderr.write(f"pi-tui context: no session file at {resolved}\n")
        return 1
    store = SessionStore.open(resolved, migrate=False)
    report_file_problems(store)
    if options.leaf is not None and store.get_entry(options.leaf) is None:
        sys.stderr.write(f"pi-tui context: entry {options.leaf} not found in {resolved}\n")
        return 1
    model, note = branch_model(store, options.leaf)
    if model is not None and note is not None and options.base_url:
        model.base_url = options.base_url
        served = asyncio.run(probe_served_window(model.base_url, model.id, None))
        if served is not None:
            model.context_window, model.window_source = served.tokens, served.source
            note = f"{model.ref} is not in models.json: window {served.tokens:,} tokens from {served.source}"
    notes = [note] if note else []
    if options.hide is not None or options.unhide is not None:
        return _edit_context(store, model, options)
    if options.request:
        return show_next_request(store, model, options.prompt, as_json=options.json)
    loaded = load_settings(store.cwd)
    for problem in loaded.diagnostics:
        sys.stderr.write(f"pi-tui: {problem}\n")
    cache = InspectorCache()
    data = build_inspector_data(
        store,
        loaded.settings,
        model,
        leaf_id=options.leaf,
        record_limit=max(0, options.records),
        cache=cache,
        current_prefix=lambda: preview_session(store, model).measure_prefix(),
    )
    if data.geometry.reserve_note is not None:
        notes.append(data.geometry.reserve_note)
    clock = cache_clock(store.get_branch(options.leaf), model, loaded.settings)
    if options.json:
        report = inspector_json(data, notes)
        report["cacheSettings"] = cache_settings_json(loaded.settings, model)
        report["cacheClock"] = cache_clock_json(clock)
        json.dump(report, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        line = cache_settings_line(loaded.settings, model)
        largest = cache.ledger.largest(LARGEST_MESSAGES)
        print_report(data, notes, sys.stdout, largest, line, cache_clock_line(clock))
    return 0
