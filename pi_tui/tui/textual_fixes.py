"""Corrections to Textual (8.2.8) that the project relies on.

The compositor: `Compositor.reflow` arranges every widget into a fresh full map, but leaves the map
flagged stale when an earlier scroll (`reflow_visible`) or an update of an off-screen widget flagged it.
It also drops the visible map. The first `widget.region` asked afterwards, which is nearly always a scroll
view's own `refresh()` from `_size_updated` in the same relayout, then arranges everything again. While a
reply streams into an anchored conversation that is every frame: measured in `bench/tui.py --only stream`
it is half of the layout time. Marking the map fresh after `reflow` changes no geometry: it is the map
`full_map` would rebuild from the same tree.

Markdown streams: `MarkdownStream.stop` cancels the stream's task and awaits it. A task cancelled before
its first step never reaches its own `except CancelledError`, so the CancelledError rises into the caller.
In a message handler that ends the widget's message loop without a word, and the screen answers no key
again. A reply aborted before any text (Esc while a tool ran) did exactly that.

Nested relayouts: `Screen._on_layout` files a widget that asked for a relayout under each auto-sized
ancestor, so that a `layout: stream` container re-measures from that child on and reuses the placements
before it. It tests the wrong set (whether the child is itself an ancestor on file, not whether the
ancestor holds it), so a block whose own child grew is not filed under the conversation. When another
block is mounted in the same frame, the stream layout reuses the grown block's old height: the tail of a
command aborted with Esc ("Command aborted") was cut off under the "Aborted." reply that followed it.

Stream layout widths: `StreamLayout` places a child inside its horizontal margins but measures its height
as if it had none (the container's width less the child's gutter only). A tool block, indented by a left
margin, was measured two cells wider than it is drawn: a line that wraps once more at its real width
(a long spill path in a truncation notice) was cut off. `stream_margin_width` is what such a child
subtracts in `get_content_height`.
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any

from textual import messages
from textual._compositor import Compositor
from textual.layouts.stream import StreamLayout
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets._markdown import MarkdownStream

_APPLIED = "_pi_tui_fresh_after_reflow"


def keep_full_map_after_reflow() -> bool:
    """Patch `Compositor.reflow` once per process; False if this Textual lacks what the patch relies on
    (the patch is then skipped and Textual behaves as shipped)."""
    reflow = Compositor.reflow
    if getattr(reflow, _APPLIED, False):
        return True
    if not hasattr(Compositor(), "_full_map_invalidated"):
        return False

    @functools.wraps(reflow)
    def reflow_keeping_map(self: Compositor, parent: Any, size: Any) -> Any:
        result = reflow(self, parent, size)
        self._full_map_invalidated = False
        return result

    setattr(reflow_keeping_map, _APPLIED, True)
    Compositor.reflow = reflow_keeping_map  # type: ignore[method-assign]
    return True


def file_nested_layouts() -> bool:
    """Replace `Screen._on_layout` once per process with the corrected filing (see the module docstring);
    False if this Textual lacks what the replacement relies on (Textual then behaves as shipped)."""
    shipped = Screen.__dict__.get("_on_layout")
    if getattr(shipped, _APPLIED, False):
        return True
    code = getattr(shipped, "__code__", None)
    if shipped is None or code is None or "_layout_widgets" not in code.co_names:
        return False

    @functools.wraps(shipped)
    async def on_layout(self: Screen[Any], message: messages.Layout) -> None:
        message.stop()
        message.prevent_default()
        layout_required = False
        widget = message.widget
        for ancestor in message.widget.ancestors:
            if not isinstance(ancestor, Widget):
                break
            filed = self._layout_widgets.setdefault(ancestor, set())
            if widget not in filed:
                filed.add(widget)
                layout_required = True
            if not ancestor.styles.auto_dimensions:
                break
            widget = ancestor
        if layout_required and not self._layout_required:
            self._layout_required = True
            self.check_idle()

    setattr(on_layout, _APPLIED, True)
    Screen._on_layout = on_layout  # type: ignore[method-assign]
    return True


async def stop_markdown_stream(stream: MarkdownStream) -> None:
    """Stop `stream`, also when its task never ran (see the module docstring). Nothing is lost then: a
    written fragment yields to the loop, so a stream that was written to has started."""
    try:
        await stream.stop()
    except asyncio.CancelledError:
        current = asyncio.current_task()
        if current is not None and current.cancelling():
            raise


def stream_margin_width(widget: Widget) -> int:
    """The horizontal margins a `layout: stream` parent leaves out when it measures `widget`'s height
    (see the module docstring); 0 under any other layout, which measures inside the margins."""
    parent = widget.parent
    if not isinstance(parent, Widget) or not isinstance(parent.layout, StreamLayout):
        return 0
    margin = widget.styles.margin
    return margin.left + margin.right
