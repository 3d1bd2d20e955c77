"""Settled Markdown far from the viewport is parked: swapped for a blank widget of the same size.

Textual arranges every mounted widget on each relayout, and a Markdown reply is dozens of widgets (a
list item alone is four), so a long reply or a long live conversation slows every streaming frame.
Measured with `bench/tui.py --only stream`: a 16,000-character reply is over 900 widgets. A parked
segment keeps its place and height and holds its source; it is rebuilt before it scrolls into view.

Only Markdown a block marked `-settled` (no more text will be written to it) is parked, and only after
two tidy passes found it the same size, so a segment is never parked mid-relayout. A parked segment
whose width changes (a resize, a scroll bar) is rebuilt: its recorded height no longer holds.
"""

from __future__ import annotations

import asyncio
from weakref import WeakKeyDictionary

from textual.containers import ScrollableContainer
from textual.geometry import Region, Size
from textual.widget import Widget
from textual.widgets import Markdown

from pi_tui.tui.call_after import call_after
from pi_tui.tui.widgets.markdown_view import MarkdownView

TIDY_SECONDS = 0.15
"""Parking and rebuilding run at most this often, after the layout they measure has settled."""
MARGIN_SCREENS = 1
"""Markdown within this many viewport heights above or below the viewport stays (or is rebuilt)."""


class ParkedMarkdown(Widget):
    """Stands in for a settled Markdown segment: its exact size, nothing drawn, its source kept."""

    DEFAULT_CSS = """
    ParkedMarkdown { width: 1fr; height: auto; }
    """

    def __init__(self, source: str, size: Size) -> None:
        super().__init__()
        self.source = source
        self.parked_size = size

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        # `layout: stream` sizes every child by its content height, whatever its CSS height says.
        return self.parked_size.height

    def render(self) -> str:
        return ""


def markdown_source(block: Widget) -> str:
    """The Markdown text a block shows, parked segments included, in order. While a segment is being
    swapped (parked, or rebuilt from its parked form) both forms are mounted for a moment; the one on
    its way in or out (`-parking`, `-unparking`) is its twin and is not counted twice."""
    return "".join(
        child.source
        for child in block.children
        if isinstance(child, ParkedMarkdown)
        or (isinstance(child, Markdown) and not any(child.has_class(name) for name in SWAPPING))
    )


def _placed(child: Widget, block_top: int) -> Region:
    """Where `child` sits in the scroll container's content, whatever the scroll offset."""
    region = child.virtual_region
    if not region:
        return region
    return Region(0, block_top + region.y, region.width, region.height)


SWAPPING = ("-parking", "-unparking")


def _displayed(widget: Widget, container: Widget) -> bool:
    """`widget` takes part in `container`'s layout (neither it nor a block around it is `display: none`),
    so a layout will place it."""
    node: object = widget
    while isinstance(node, Widget) and node is not container:
        if not node.display:
            return False
        node = node.parent
    return True


class MarkdownParking:
    """Parks and rebuilds the settled Markdown in the blocks of one scroll container."""

    def __init__(self, container: ScrollableContainer, lock: asyncio.Lock) -> None:
        """`lock` is the one the container holds while it adds or removes blocks."""
        self._container = container
        self._lock = lock
        self._timer: asyncio.TimerHandle | None = None
        self._sizes: WeakKeyDictionary[Markdown, Size] = WeakKeyDictionary()

    def schedule(self) -> None:
        """Run a tidy pass soon, unless one is already due."""
        if self._timer is None and self._container.is_attached:
            self._timer = call_after(self._container, TIDY_SECONDS, self._run)

    async def _run(self) -> None:
        self._timer = None
        async with self._lock:
            pending = await self.tidy()
        if pending:
            self.schedule()

    async def tidy(self) -> bool:
        """Park settled Markdown far from the viewport, rebuild parked Markdown near it; True when another
        pass is due (Markdown waiting for a second look before it may be parked, or just rebuilt)."""
        viewport = self._container.scrollable_content_region
        if not viewport:
            # Before the container's first layout, as for a segment not placed yet (see below).
            return not viewport.width and _displayed(self._container, self._container.screen)
        # Measured in the container's unscrolled coordinates against the scroll offset as it is now:
        # screen regions still hold the previous offset until the next refresh, so a pass that ran
        # between a scroll and its repaint would rebuild nothing and schedule nothing.
        margin = viewport.height * MARGIN_SCREENS
        top = self._container.scroll_offset.y - margin
        near = Region(0, top, viewport.width, viewport.height + 2 * margin)
        pending = False
        for block in list(self._container.children):
            block_top = block.virtual_region.y + block.styles.gutter.top
            for child in list(block.children):
                if isinstance(child, ParkedMarkdown):
                    width = child.outer_size.width  # 0 until its first layout
                    resized = width and width != child.parked_size.width
                    if resized or _placed(child, block_top).overlaps(near):
                        await self._rebuild(block, child)
                        pending = True  # far ones rebuilt after a resize are parked again later
                elif isinstance(child, Markdown) and child.has_class("-settled"):
                    region = _placed(child, block_top)
                    if not region:
                        self._sizes.pop(child, None)
                        # No width: mounted since the last layout (a loaded machine lays out late). A pass
                        # that gave up on it would leave it mounted until a scroll, resize or more output.
                        if not region.width and _displayed(child, self._container):
                            pending = True
                    elif region.overlaps(near):
                        self._sizes.pop(child, None)
                    elif self._sizes.get(child) == region.size:
                        await self._park(block, child, region.size)
                    else:
                        self._sizes[child] = region.size
                        pending = True
        return pending

    async def _park(self, block: Widget, markdown: Markdown, size: Size) -> None:
        if not (block.is_attached and markdown.is_attached):  # removed during the pass (the app quits)
            return
        markdown.add_class("-parking")
        with self._container.app.batch_update():
            await block.mount(ParkedMarkdown(markdown.source, size), before=markdown)
            await markdown.remove()

    async def _rebuild(self, block: Widget, parked: ParkedMarkdown) -> None:
        # Built hidden and swapped in one batch, so nothing near the viewport moves while it is parsed.
        # A pass awaits between segments: a quit meanwhile removed the block (Textual's MountError, the
        # demo's exit code 1 when ctrl+q came as the last reply was being drawn).
        if not (block.is_attached and parked.is_attached):
            return
        markdown = MarkdownView(classes="-settled -unparking")
        await block.mount(markdown, before=parked)
        await markdown.update(parked.source)
        with self._container.app.batch_update():
            markdown.remove_class("-unparking")
            await parked.remove()
