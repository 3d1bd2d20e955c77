"""An edit's or write's diff (pi's display diff in the result's details) as coloured HTML lines."""

from __future__ import annotations

from pi_tui.export.html_text import esc
from pi_tui.tools.diff_lines import DiffKind, DiffLine, parse_diff
from pi_tui.tools.stream_sanitizer import sanitize_text

LINE_CLASSES: dict[DiffKind, str] = {"add": "add", "remove": "del", "context": "ctx"}
"""`add` and `del` are the classes the compaction diffs use too (one stylesheet rule each)."""


def _line(line: DiffLine) -> str:
    text = sanitize_text(line.text)
    if len(text) != len(line.text):  # cleaning moved the spans: show the line without them
        return f'<span class="{LINE_CLASSES[line.kind]}">{esc(line.gutter + text)}</span>'
    parts = [esc(line.gutter)]
    position = 0
    for start, end in line.changed:
        parts.append(esc(text[position:start]))
        parts.append(f'<span class="changed">{esc(text[start:end])}</span>')
        position = end
    parts.append(esc(text[position:]))
    return f'<span class="{LINE_CLASSES[line.kind]}">{"".join(parts)}</span>'


def diff_html(diff: str) -> str:
    """The diff as a `<pre class="diff tool-diff">`, one classed block span per line."""
    lines = "".join(_line(line) for line in parse_diff(diff))
    return f'<div class="muted">Diff:</div><pre class="diff tool-diff">{lines}</pre>'
