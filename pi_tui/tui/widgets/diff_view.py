"""An edit's or write's diff, coloured: added lines green, removed red, context dim, changed words
reversed (as pi draws it). Styles come from the widget's component classes, so a theme change recolours
the diff on the next paint."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, TypeAlias

from rich.style import Style
from rich.text import Text
from textual.widget import Widget

from pi_tui.tools.diff_lines import DiffKind, DiffLine

SpanRole: TypeAlias = Literal["plain", "changed"]
DIFF_COMPONENT_CLASSES = {"diff--add", "diff--remove", "diff--context", "diff--changed", "diff--more"}
DIFF_CSS = """
    & > .diff--add { color: $success; background: $success 12%; }
    & > .diff--remove { color: $error; background: $error 12%; }
    & > .diff--context { color: $text-muted; }
    & > .diff--changed { text-style: reverse; }
    & > .diff--more { color: $text-muted; text-style: italic; }
"""
"""Component-class rules for a widget that paints diff lines (nest it in the widget's own rule)."""


def diff_spans(line: DiffLine) -> list[tuple[str, SpanRole]]:
    """`line` as display text pieces, the changed words apart."""
    pieces: list[tuple[str, SpanRole]] = [(line.gutter, "plain")] if line.gutter else []
    position = 0
    for start, end in line.changed:
        if start > position:
            pieces.append((line.text[position:start], "plain"))
        pieces.append((line.text[start:end], "changed"))
        position = end
    if position < len(line.text) or not pieces:
        pieces.append((line.text[position:], "plain"))
    return pieces


def kind_class(kind: DiffKind) -> str:
    return f"diff--{kind}"


class DiffView(Widget):
    """Lines of a display diff, and an optional last line saying what is not shown."""

    DEFAULT_CSS = f"""
    DiffView {{
        height: auto;
        {DIFF_CSS}
    }}
    """
    COMPONENT_CLASSES = DIFF_COMPONENT_CLASSES

    def __init__(self, *, classes: str | None = None) -> None:
        super().__init__(classes=classes)
        self._lines: list[DiffLine] = []
        self._more = ""

    @property
    def shown_lines(self) -> list[DiffLine]:
        return self._lines

    def show(self, lines: Sequence[DiffLine], more: str = "") -> None:
        if list(lines) == self._lines and more == self._more:
            return
        self._lines = list(lines)
        self._more = more
        self.refresh(layout=True)

    def render(self) -> Text:
        changed = self.get_component_rich_style("diff--changed", partial=True)
        text = Text(no_wrap=False, end="")
        for index, line in enumerate(self._lines):
            if index:
                text.append("\n")
            style = self.get_component_rich_style(kind_class(line.kind))
            for piece, role in diff_spans(line):
                text.append(piece, style + changed if role == "changed" else style)
        if self._more:
            text.append(("\n" if self._lines else "") + self._more, self._more_style())
        return text

    def _more_style(self) -> Style:
        return self.get_component_rich_style("diff--more")
