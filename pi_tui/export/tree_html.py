"""The session tree, every branch, with labels; the current path and the leaf marked."""

from __future__ import annotations

from pi_tui.export.html_text import anchor, esc
from pi_tui.session_file.store import SessionStore
from pi_tui.session_file.tree_listing import tree_lines

INDENT = "  "


def tree_section(store: SessionStore) -> str:
    lines = tree_lines(store, "default")
    if not lines:
        return '<p class="muted">The session has no entries.</p>'
    # The leaf itself may be hidden (a label, a record): then its nearest shown ancestor is "here".
    here = next((line.entry_id for line in lines if line.is_leaf), None)
    if here is None:
        here = next((line.entry_id for line in reversed(lines) if line.on_branch), None)
    rows: list[str] = []
    for line in lines:
        is_leaf = line.entry_id == here
        mark = "● " if is_leaf else ("• " if line.on_branch else "  ")
        fork = "├ " if line.starts_branch else ""
        text = esc(line.text)
        if line.on_branch:
            # Entries on the current branch are in the conversation above: link to them.
            text = f'<a href="#{anchor(line.entry_id)}">{text}</a>'
        label = f' <span class="label">[{esc(line.label)}]</span>' if line.label else ""
        css = "line leaf" if is_leaf else ("line" if line.on_branch else "line off-branch")
        rows.append(
            f'<span class="{css}">{esc(INDENT * line.depth + fork + mark)}{text}{label}'
            f' <span class="muted">{esc(line.entry_id)}</span></span>'
        )
    legend = '<p class="muted">● the leaf (where the session continues) · • on the current branch</p>'
    return legend + '<div class="tree">' + "".join(rows) + "</div>"
