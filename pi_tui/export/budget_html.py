"""The context budget of the leaf as a static bar and a table (the data `pi-tui context` shows).

The bar's segment widths are page-specific CSS rules (`flex-grow` = tokens), returned separately so
the page can put them in its one hashed `<style>` block: no inline style attributes are needed.
"""

from __future__ import annotations

from dataclasses import dataclass

from pi_tui.context.accounting.geometry import used_how
from pi_tui.export.html_text import esc, num
from pi_tui.session.inspector import InspectorData

SEGMENTS = (
    ("prefix", "prefix", "system prompt and tool schemas"),
    ("summary", "summary", "compaction summary"),
    ("kept", "kept", "kept tail (after the last compaction, before the keep-recent boundary)"),
    ("new_tail", "new-tail", "new tail (what the next compaction would keep)"),
    ("free", "free", "free before auto-compaction"),
    ("reserve", "reserve", "reserve for the reply"),
)


@dataclass(frozen=True)
class BudgetHtml:
    html: str
    css: str


def budget_section(data: InspectorData | None, notes: list[str]) -> BudgetHtml:
    if data is None:
        return BudgetHtml('<p class="muted">No budget: the branch is empty.</p>', "")
    geometry = data.geometry
    split = geometry.split
    total = split.total
    css: list[str] = []
    spans: list[str] = []
    rows: list[str] = []
    for field, name, text in SEGMENTS:
        value = int(getattr(split, field))
        share = f"{value / total * 100:.1f}%" if total > 0 else "—"
        if value > 0:
            css.append(f".bar .w-{name} {{ flex: {value} 0 0; }}")
            spans.append(f'<span class="seg-{name} w-{name}" title="{esc(text)}: {num(value)}"></span>')
        rows.append(
            f'<tr><td><span class="swatch seg-{name}"></span>{esc(text)}</td>'
            f'<td class="num">{num(value)}</td><td class="num">{share}</td></tr>'
        )
    source = (
        "from request records" if data.source == "records" else "estimate (no request records on this branch)"
    )
    model = data.model.ref if data.model is not None else "(none)"
    used = f"{num(geometry.used_tokens)} / {num(geometry.context_window)} ({used_how(geometry)})"
    facts = [
        ("Leaf", data.leaf_id or "—"),
        ("Model", model),
        ("Figures", source),
        ("Context", used),
        ("Threshold", f"{num(geometry.threshold)} (window − reserve {num(geometry.reserve_tokens)})"),
        ("Tokens left", f"{num(geometry.tokens_left)} before auto-compaction"),
        ("Messages", f"{data.message_count} in context, {num(data.context_tokens)} tokens"),
    ]
    if geometry.boundary is not None:
        facts.append(("Keep-recent boundary", f"{geometry.boundary.entry_id}"))
    notes_html = "".join(f'<p class="notice">{esc(note)}</p>' for note in notes)
    html = (
        notes_html
        + '<dl class="meta">'
        + "".join(f"<dt>{esc(key)}</dt><dd>{esc(value)}</dd>" for key, value in facts)
        + "</dl>"
        + f'<div class="bar" role="img" aria-label="context budget">{"".join(spans)}</div>'
        + '<table class="budget"><thead><tr><th>part</th><th class="num">tokens</th>'
        + '<th class="num">share</th></tr></thead><tbody>'
        + "".join(rows)
        + f'<tr><th>total</th><th class="num">{num(total)}</th><th></th></tr></tbody></table>'
        + _segments(data)
    )
    return BudgetHtml(html, "\n".join(css))


def _segments(data: InspectorData) -> str:
    if data.prefix is None:
        return '<p class="muted">Prefix segments unknown (no request record on this branch).</p>'
    rows = "".join(
        f'<tr><td>{esc(item.section)}</td><td class="mono">{esc(item.key)}</td>'
        f'<td class="num">{num(item.tokens)}</td></tr>'
        for item in data.prefix.segments
    )
    return (
        "<h3>Prefix segments</h3><table><thead><tr><th>section</th><th>key</th>"
        f'<th class="num">tokens</th></tr></thead><tbody>{rows}</tbody></table>'
    )
