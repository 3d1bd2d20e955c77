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
from pi_tui.context.token_figures import format_tokens

PARTS: tuple[tuple[str, str, str], ...] = (
    ("prefix", "prefix", "█"),
    ("summary", "summary", "█"),
    ("kept", "kept", "█"),
    ("new_tail", "new", "█"),
    ("free", "free", "░"),
    ("reserve", "reserve", "▒"),
)
"""(BudgetSplit field, legend name and component class suffix, bar glyph), in window order."""
SHORT_NAMES = {
    "prefix": "pre",
    "summary": "sum",
    "kept": "kept",
    "new": "new",
    "free": "free",
    "reserve": "res",
}
"""The legend's names where the full ones leave no room (the pane beside an 80-column conversation)."""
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


@dataclass(frozen=True)
class LegendStyle:
    """How much each legend item says: the narrower styles fit the legend on fewer lines."""

    short_names: bool = False
    round_figures: bool = False
    """Figures as the footer gives them (1.6k) rather than exact (1,602)."""
    markers: bool = True
    """Name the T and K marks with their figures (the headline gives both figures too)."""
    gap: str = LEGEND_GAP
    """Between items; one space still parts them, as each starts with its coloured swatch."""


LEGEND_STYLES = (
    LegendStyle(),
    LegendStyle(round_figures=True),
    LegendStyle(short_names=True, round_figures=True),
    LegendStyle(short_names=True, round_figures=True, gap=" "),
    LegendStyle(short_names=True, round_figures=True, gap=" ", markers=False),
)
"""From the fullest to the tersest: the first that fits the lines available is drawn."""


def legend_items(geometry: BudgetGeometry, style: LegendStyle = LEGEND_STYLES[0]) -> list[LegendItem]:
    split = geometry.split

    def figure(tokens: int) -> str:
        return format_tokens(tokens) if style.round_figures else f"{tokens:,}"

    items = []
    for field, name, glyph in PARTS:
        value = getattr(split, field)
        if field == "prefix" and not style.round_figures:
            shown = geometry.prefix_text
        elif field == "prefix" and not geometry.prefix_known:
            # `prefix_text`'s marks, without its words: "~" inferred, "?" unknown.
            shown = f"~{figure(value)}" if value else "?"
        else:
            shown = figure(value)
        label = SHORT_NAMES[name] if style.short_names else name
        items.append(LegendItem(name, glyph, f"{label} {shown}"))
    if style.markers:
        threshold = "" if style.short_names else "threshold "
        items.append(LegendItem("marker", THRESHOLD_MARK, f"{threshold}{figure(geometry.threshold)}"))
        if geometry.boundary is not None:
            keep = "" if style.short_names else "keep-recent "
            items.append(LegendItem("marker", KEEP_MARK, f"{keep}{figure(geometry.boundary.tokens_kept)}"))
    return items


def wrap_legend(items: list[LegendItem], width: int, gap: str = LEGEND_GAP) -> list[list[LegendItem]]:
    lines: list[list[LegendItem]] = [[]]
    used = 0
    for item in items:
        needed = item.width if not lines[-1] else len(gap) + item.width
        if lines[-1] and used + needed > width:
            lines.append([])
            used, needed = 0, item.width
        lines[-1].append(item)
        used += needed
    return lines


@dataclass(frozen=True)
class Legend:
    lines: list[list[LegendItem]]
    gap: str


def fitted_legend(geometry: BudgetGeometry, width: int, max_lines: int | None) -> Legend:
    """The legend's lines: the fullest style that fits in `max_lines` lines of `width` (None: any
    number, full style). Where even the tersest needs more, its last items are left out, never cut."""
    styles = LEGEND_STYLES if max_lines is not None else LEGEND_STYLES[:1]
    for style in styles:
        lines = wrap_legend(legend_items(geometry, style), width, style.gap)
        if max_lines is None or len(lines) <= max_lines:
            return Legend(lines, style.gap)
    return Legend(lines[:max_lines], style.gap)


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
    legend_lines: reactive[int | None] = reactive(None, layout=True)
    """At most this many legend lines (terser names and figures to fit); None: as many as it takes."""

    def _style(self, part: str) -> Style:
        return self.get_component_rich_style(f"budget-bar--{part}")

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        if self.geometry is None or self.geometry.context_window <= 0:
            return 1
        return BAR_ROWS + len(fitted_legend(self.geometry, width, self.legend_lines).lines)

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
            legend = fitted_legend(geometry, width, self.legend_lines)
            row = y - BAR_ROWS
            segments = self._legend(legend.lines[row], legend.gap) if row < len(legend.lines) else []
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

    def _legend(self, items: list[LegendItem], gap: str) -> list[Segment]:
        segments: list[Segment] = []
        for index, item in enumerate(items):
            if index:
                # Styled like the labels: an unstyled gap would show the terminal's background instead.
                segments.append(Segment(gap, self._style("label")))
            segments.append(Segment(item.swatch, self._style(item.part)))
            segments.append(Segment(" " + item.label, self._style("label")))
        return segments
