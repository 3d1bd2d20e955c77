"""Textual's footer of key hints, which drops whole hints that do not fit instead of cutting the last one.

Textual's `Footer` lays its hints out in a row and lets the row overflow: at 80 columns the last hint
lost its label ("f1" alone). Here the hints are measured once laid out, and while the row is wider than
the footer the least needed hints are hidden, each with its label (a key group with its one label).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from textual.events import Resize
from textual.geometry import Spacing
from textual.widget import Widget
from textual.widgets import Footer
from textual.widgets._footer import FooterKey, FooterLabel, KeyGroup

MEASURE_TRIES = 3
"""Refreshes to wait for the hints' first layout before fitting without them measured."""


@dataclass(frozen=True)
class Hint:
    """One hint as the footer shows it: a key and its label, or a group's keys and the group's label."""

    action: str
    widgets: tuple[Widget, ...]


def hints_of(children: Sequence[Widget]) -> list[Hint]:
    """The footer's hints in row order; the command palette's key (docked right) is not among them."""
    hints: list[Hint] = []
    group: KeyGroup | None = None
    for child in children:
        if isinstance(child, KeyGroup):
            group = child
        elif isinstance(child, FooterLabel) and group is not None:
            keys = list(group.query_children(FooterKey))
            hints.append(Hint(keys[0].action if keys else "", (group, child)))
            group = None
        elif isinstance(child, FooterKey) and not child.has_class("-command-palette"):
            hints.append(Hint(child.action, (child,)))
    return hints


def row_width(widgets: Sequence[tuple[int, Spacing]]) -> int:
    """Columns a horizontal row of (width, margin) boxes takes up to its last box's right edge: Textual
    collapses the margins of neighbours to the larger one (`textual/layouts/horizontal.py`)."""
    if not widgets:
        return 0
    total = widgets[0][1].left + sum(width for width, _ in widgets)
    for (_, left), (_, right) in pairwise(widgets):
        total += max(left.right, right.left)
    return total


def hints_to_drop(
    hints: Sequence[Hint],
    widths: dict[Widget, tuple[int, Spacing]],
    room: int,
    drop_first: Sequence[str],
    keep: Sequence[str],
) -> set[Hint]:
    """The hints to hide so that the rest fit in `room` columns: first those whose action is in
    `drop_first` (in that order), then the others from the right, the ones in `keep` last of all."""
    listed = [hint for action in drop_first for hint in hints if hint.action == action]
    rest = [hint for hint in reversed(hints) if hint not in listed and hint.action not in keep]
    kept = [hint for hint in reversed(hints) if hint.action in keep and hint not in listed]
    dropped: set[Hint] = set()
    for hint in [*listed, *rest, *kept]:
        shown = [widths[widget] for h in hints if h not in dropped for widget in h.widgets]
        if row_width(shown) <= room:
            break
        dropped.add(hint)
    return dropped


class KeyHints(Footer):
    """A `Footer` whose hints are each shown whole or not at all.

    `drop_first` names the actions whose hints go first when the row is too wide, in that order; then
    the others go from the right; `keep` names the ones that go only when nothing else is left."""

    def __init__(
        self,
        *,
        drop_first: Sequence[str] = (),
        keep: Sequence[str] = (),
        id: str | None = None,
        compact: bool = False,
        show_command_palette: bool = True,
    ) -> None:
        super().__init__(id=id, compact=compact, show_command_palette=show_command_palette)
        self.drop_first = tuple(drop_first)
        self.keep = tuple(keep)
        self._widths: dict[Widget, tuple[int, Spacing]] = {}
        """Each hint widget's laid-out width and margins: a hidden widget has no layout to read."""

    async def recompose(self) -> None:
        # The footer rebuilds its hints whenever the bindings change (the focus moved): new widgets,
        # shown in full until measured.
        await super().recompose()
        self._measure_again()

    def on_resize(self, event: Resize) -> None:
        self._fit(0)

    def _watch_compact(self, compact: bool) -> None:
        # Compact hints are narrower: the same widgets, restyled in place.
        self._measure_again()

    def _measure_again(self) -> None:
        self._widths = {}
        for hint in hints_of(list(self.children)):
            for widget in hint.widgets:
                widget.display = True
        self.call_after_refresh(self._fit, MEASURE_TRIES)

    def _fit(self, tries: int) -> None:
        hints = hints_of(list(self.children))
        widgets = [widget for hint in hints for widget in hint.widgets]
        for widget in widgets:
            if widget not in self._widths and widget.display and widget.outer_size.width:
                self._widths[widget] = (widget.outer_size.width, widget.styles.margin)
        if any(widget not in self._widths for widget in widgets):
            if tries > 0:
                self.call_after_refresh(self._fit, tries - 1)
            return
        dropped = hints_to_drop(hints, self._widths, self._room(), self.drop_first, self.keep)
        for hint in hints:
            for widget in hint.widgets:
                widget.display = hint not in dropped

    def _room(self) -> int:
        room = self.size.width
        for child in self.children:
            if child.has_class("-command-palette") and child.display:
                room -= child.outer_size.width + child.styles.margin.left + child.styles.margin.right
        return room
