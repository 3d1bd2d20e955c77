"""One-line budget bar: the context window split into prefix | summary | kept | new tail | free | reserve."""

from __future__ import annotations

from dataclasses import dataclass

from rich.segment import Segment
from rich.style import Style
from textual.geometry import Size
from textual.reactive import reactive
from textual.strip import Strip
from textual.widget import Widget

from pi_tui.context.accounting.geometry import BudgetGeometry

PARTS: tuple[tuple[str, str, str], ...] = (
    ("prefix", "prefix", "█"),
    ("summary", "summary", "█"),
    ("kept", "kept", "█"),
    ("new_tail", "new", "█"),
    ("free", "free", "░"),
    ("reserve", "reserve", "▒"),
)
"""(BudgetSplit field, legend name and component class suffix, bar glyph), in window order."""
THRESHOLD_MARK = "T"
KEEP_MARK = "K"
LEGEND_GAP = "  "
BAR_ROWS = 2
"""The bar itself and the marker row under it; the legend follows."""


@dataclass(frozen=True)
class LegendItem:
    part: str
    """Component class suffix that colours the swatch."""
    swatch: str
    label: str

    @property
    def width(self) -> int:
        return len(self.swatch) + 1 + len(self.label)


def bar_cells(values: list[int], width: int) -> list[int]:
    """Cells per part, proportional to `values`, summing to `width` (largest remainder rounding).

    A non-empty part gets at least one cell (taken from the biggest part) so a small prefix stays visible.
    """
    total = sum(values)
    if total <= 0 or width <= 0:
        return [0] * len(values)
    exact = [value * width / total for value in values]
    cells = [int(x) for x in exact]
    order = sorted(range(len(values)), key=lambda i: exact[i] - cells[i], reverse=True)
    for index in order[: width - sum(cells)]:
        cells[index] += 1
    for index, value in enumerate(values):
        biggest = max(range(len(cells)), key=lambda i: cells[i])
        if value > 0 and cells[index] == 0 and cells[biggest] > 1:
            cells[index] = 1
            cells[biggest] -= 1
    return cells


def marker_column(tokens: int, total: int, width: int) -> int:
    """The bar column where the token offset `tokens` falls."""
    if total <= 0 or width <= 0:
        return 0
    return max(0, min(width - 1, tokens * width // total))


def legend_items(geometry: BudgetGeometry) -> list[LegendItem]:
    split = geometry.split
    items = []
    for field, name, glyph in PARTS:
        value = getattr(split, field)
        shown = geometry.prefix_text if field == "prefix" else f"{value:,}"
        items.append(LegendItem(name, glyph, f"{name} {shown}"))
    items.append(LegendItem("marker", THRESHOLD_MARK, f"threshold {geometry.threshold:,}"))
    if geometry.boundary is not None:
        items.append(LegendItem("marker", KEEP_MARK, f"keep-recent {geometry.boundary.tokens_kept:,}"))
    return items


def wrap_legend(items: list[LegendItem], width: int) -> list[list[LegendItem]]:
    lines: list[list[LegendItem]] = [[]]
    used = 0
    for item in items:
        needed = item.width if not lines[-1] else len(LEGEND_GAP) + item.width
        if lines[-1] and used + needed > width:
            lines.append([])
            used, needed = 0, item.width
        lines[-1].append(item)
        used += needed
    return lines


class BudgetBar(Widget):
    """The window as coloured cells with threshold (T) and keep-recent (K) markers and a legend.

    Colours come from the component classes (theme variables only), so themes restyle it without code.
    """

    DEFAULT_CSS = """
    BudgetBar {
        height: auto;
        width: 1fr;
        & > .budget-bar--prefix { color: $pi-prefix; }
        & > .budget-bar--summary { color: $pi-summary; }
        & > .budget-bar--kept { color: $pi-kept; }
        & > .budget-bar--new { color: $pi-tail; }
        & > .budget-bar--free { color: $pi-free; }
        & > .budget-bar--reserve { color: $pi-reserve; }
        & > .budget-bar--marker { color: $error; text-style: bold; }
        & > .budget-bar--label { color: $text-muted; }
    }
    """

    COMPONENT_CLASSES = {
        "budget-bar--prefix",
        "budget-bar--summary",
        "budget-bar--kept",
        "budget-bar--new",
        "budget-bar--free",
        "budget-bar--reserve",
        "budget-bar--marker",
        "budget-bar--label",
    }

    geometry: reactive[BudgetGeometry | None] = reactive(None, layout=True)
    """The budget to draw; None draws an empty placeholder."""

    def _style(self, part: str) -> Style:
        return self.get_component_rich_style(f"budget-bar--{part}")

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        if self.geometry is None or self.geometry.context_window <= 0:
            return 1
        return BAR_ROWS + len(wrap_legend(legend_items(self.geometry), width))

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        base = self.rich_style
        geometry = self.geometry
        if geometry is None or geometry.context_window <= 0:
            text = "No context window known" if geometry is not None else "No data yet"
            line = [Segment(text, self._style("label"))] if y == 0 else []
            return Strip(line).adjust_cell_length(width, base)
        if y == 0:
            segments = self._bar(geometry, width)
        elif y == 1:
            segments = self._markers(geometry, width)
        else:
            lines = wrap_legend(legend_items(geometry), width)
            segments = self._legend(lines[y - BAR_ROWS]) if y - BAR_ROWS < len(lines) else []
        return Strip(segments).adjust_cell_length(width, base).crop(0, width)

    def _bar(self, geometry: BudgetGeometry, width: int) -> list[Segment]:
        values = [getattr(geometry.split, field) for field, _, _ in PARTS]
        cells = bar_cells(values, width)
        return [
            Segment(glyph * count, self._style(name))
            for (_, name, glyph), count in zip(PARTS, cells, strict=True)
            if count
        ]

    def _markers(self, geometry: BudgetGeometry, width: int) -> list[Segment]:
        total = geometry.split.total
        row = [" "] * width
        if geometry.boundary is not None:
            start = geometry.split.used - geometry.boundary.tokens_kept
            row[marker_column(start, total, width)] = KEEP_MARK
        row[marker_column(geometry.threshold, total, width)] = THRESHOLD_MARK
        return [Segment("".join(row), self._style("marker"))]

    def _legend(self, items: list[LegendItem]) -> list[Segment]:
        segments: list[Segment] = []
        for index, item in enumerate(items):
            if index:
                # Styled like the labels: an unstyled gap would show the terminal's background instead.
                segments.append(Segment(LEGEND_GAP, self._style("label")))
            segments.append(Segment(item.swatch, self._style(item.part)))
            segments.append(Segment(" " + item.label, self._style("label")))
        return segments
