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
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any

from textual._compositor import Compositor
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


async def stop_markdown_stream(stream: MarkdownStream) -> None:
    """Stop `stream`, also when its task never ran (see the module docstring). Nothing is lost then: a
    written fragment yields to the loop, so a stream that was written to has started."""
    try:
        await stream.stop()
    except asyncio.CancelledError:
        current = asyncio.current_task()
        if current is not None and current.cancelling():
            raise
