"""Every compaction of the session (all branches), each with its summary and the diff to the one before."""

from __future__ import annotations

from pi_tui.context.compaction.summary_diff import SectionDiff
from pi_tui.export.html_text import esc, when
from pi_tui.export.markdown_html import markdown_to_html
from pi_tui.session.compaction_records import CompactionRecord, diff_compaction, list_compactions
from pi_tui.session.compaction_sizes import size_text
from pi_tui.session_file.entries import CompactionEntry
from pi_tui.session_file.store import SessionStore


def _diff_line(line: str) -> str:
    if line.startswith(("+++", "---", "@@")):
        css = "hunk"
    elif line.startswith("+"):
        css = "add"
    elif line.startswith("-"):
        css = "del"
    else:
        return esc(line) + "\n"
    return f'<span class="{css}">{esc(line)}</span>'


def _diff(diffs: list[SectionDiff]) -> str:
    changed = [item for item in diffs if item.status != "unchanged"]
    unchanged = [item.heading for item in diffs if item.status == "unchanged"]
    parts: list[str] = []
    for item in changed:
        lines = "".join(_diff_line(line) for line in item.diff)
        parts.append(f'<h4>{esc(item.heading)} ({esc(item.status)})</h4><pre class="diff">{lines}</pre>')
    if unchanged:
        parts.append(f'<p class="muted">Unchanged: {esc(", ".join(unchanged))}</p>')
    return "".join(parts) or '<p class="muted">No differences.</p>'


def _one(store: SessionStore, record: CompactionRecord) -> str:
    entry = store.get_entry(record.entry_id)
    summary = entry.summary if isinstance(entry, CompactionEntry) else ""
    branch = "on the current branch" if record.on_current_branch else "on another branch"
    facts = [
        ("Time", when(record.timestamp)),
        ("Reason", record.reason + (" (extension)" if record.from_hook else "")),
        ("Tokens (whole request)", size_text(record.size)),
        ("First kept entry", record.first_kept_entry_id),
        ("Summary model", record.model or "—"),
        ("Where", branch),
    ]
    diffs = diff_compaction(store, record.entry_id) or []
    css = "compaction" if record.on_current_branch else "compaction off-branch"
    return (
        f'<section class="{css}" id="compaction-{esc(record.entry_id)}">'
        f"<h3>Compaction {esc(record.entry_id)}</h3>"
        '<dl class="meta">'
        + "".join(f"<dt>{esc(key)}</dt><dd>{esc(value)}</dd>" for key, value in facts)
        + "</dl>"
        + "<details open><summary>Summary</summary>"
        + f'<div class="md">{markdown_to_html(summary)}</div></details>'
        + f"<details><summary>Diff to the previous summary</summary>{_diff(diffs)}</details>"
        + "</section>"
    )


def compactions_section(store: SessionStore) -> str:
    records = list_compactions(store)
    if not records:
        return '<p class="muted">No compactions in this session.</p>'
    return "\n".join(_one(store, record) for record in records)
