"""The compositor fix: a relayout after a scroll arranges the screen once, and places widgets exactly as
Textual's own full arrangement does. The layout filing fix: a block in a `layout: stream` list grows with
its content even when a new block is mounted in the same frame."""

from __future__ import annotations

from typing import Any

import pytest
from textual import messages
from textual._compositor import Compositor
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Static

from pi_tui.tui.textual_fixes import file_nested_layouts, keep_full_map_after_reflow
from pi_tui.tui.themed_app import ThemedApp


class ScrollingHost(ThemedApp[None]):
    """A growing, bottom-anchored list beside a scroll view (a table), as the chat screen has."""

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="log"):
            for number in range(40):
                yield Static(f"line {number}")
        yield DataTable()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("a", "b")
        table.add_rows([(str(n), "x" * 80) for n in range(30)])
        self.query_one("#log").anchor()


async def arrangements(monkeypatch: pytest.MonkeyPatch) -> tuple[int, int, Any]:
    """(reflows, full arrangements during a screen relayout besides its reflow's own) while a
    bottom-anchored list grows by ten lines; plus the final map and the one a fresh arrangement gives."""
    counts = {"reflows": 0, "redundant": 0}
    inside = {"layout": False, "reflow": False}
    arrange_root = Compositor._arrange_root
    reflow = Compositor.reflow
    refresh_layout = Screen._refresh_layout

    def counting_arrange(self: Compositor, root: Any, size: Any, visible_only: bool = True) -> Any:
        counts["redundant"] += not visible_only and inside["layout"] and not inside["reflow"]
        return arrange_root(self, root, size, visible_only)

    def counting_reflow(self: Compositor, parent: Any, size: Any) -> Any:
        counts["reflows"] += 1
        inside["reflow"] = True
        try:
            return reflow(self, parent, size)
        finally:
            inside["reflow"] = False

    def tracked_layout(self: Screen[Any], *args: Any, **kwargs: Any) -> None:
        inside["layout"] = True
        try:
            refresh_layout(self, *args, **kwargs)
        finally:
            inside["layout"] = False

    monkeypatch.setattr(Compositor, "_arrange_root", counting_arrange)
    monkeypatch.setattr(Compositor, "reflow", counting_reflow)
    monkeypatch.setattr(Screen, "_refresh_layout", tracked_layout)
    app = ScrollingHost()
    async with app.run_test(size=(80, 20)) as pilot:
        log = app.query_one("#log", VerticalScroll)
        await pilot.pause()
        counts.update(reflows=0, redundant=0)
        for number in range(10):
            await log.mount(Static(f"more {number}"))
            log.scroll_end(animate=False)
            await pilot.pause()
        compositor = app.screen._compositor
        placed = {widget: geometry.region for widget, geometry in compositor.full_map.items()}
        fresh, _ = arrange_root(compositor, compositor.root, compositor.size, False)
        expected = {widget: geometry.region for widget, geometry in fresh.items()}
    return counts["reflows"], counts["redundant"], (placed, expected)


async def test_a_relayout_arranges_the_screen_once(monkeypatch: pytest.MonkeyPatch) -> None:
    assert keep_full_map_after_reflow()
    reflows, redundant, (placed, expected) = await arrangements(monkeypatch)
    assert reflows >= 10
    assert redundant == 0
    assert placed == expected


async def test_without_the_fix_textual_arranges_twice(monkeypatch: pytest.MonkeyPatch) -> None:
    """Guards the premise: if a Textual upgrade stops re-arranging, this fails and the fix can go."""
    keep_full_map_after_reflow()
    monkeypatch.setattr(Compositor, "reflow", Compositor.reflow.__wrapped__)  # type: ignore[attr-defined]
    monkeypatch.setattr("pi_tui.tui.themed_app.keep_full_map_after_reflow", lambda: True)
    reflows, redundant, (placed, expected) = await arrangements(monkeypatch)
    assert reflows >= 10
    assert redundant >= reflows // 3
    assert placed == expected


def test_applying_twice_patches_once() -> None:
    assert keep_full_map_after_reflow()
    patched = Compositor.reflow
    assert keep_full_map_after_reflow()
    assert Compositor.reflow is patched


class StreamHost(ThemedApp[None]):
    """A `layout: stream` list of auto-height blocks, each holding a line of text, as the conversation has."""

    CSS = "#stream { layout: stream; } #stream > Vertical { height: auto; }"

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="stream"):
            for number in range(3):
                with Vertical():
                    yield Static(f"block {number}")


async def filed_under_the_stream() -> bool:
    """Whether a block whose text asked for a relayout is filed under the stream list, where the stream
    layout looks for the children it must measure again (it reuses the placements of those before)."""
    app = StreamHost()
    async with app.run_test(size=(60, 30)) as pilot:
        await pilot.pause()
        screen = app.screen
        stream = app.query_one("#stream", VerticalScroll)
        first = stream.query(Vertical).first()
        # The screen is handed the request directly and read at once: no layout pass can come between.
        screen._layout_widgets.clear()
        await screen._on_layout(messages.Layout(first.query_one(Static)))
        return first in screen._layout_widgets.get(stream, set())


async def test_a_block_whose_text_grew_is_measured_again() -> None:
    """The command block aborted with Esc and the "Aborted." reply after it asked for a relayout in the same
    frame: without this the block kept its old height and its last lines ("Command aborted") were cut."""
    assert file_nested_layouts()
    assert await filed_under_the_stream()


async def test_without_the_fix_textual_files_only_the_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """Guards the premise: if a Textual upgrade files the block itself, this fails and the fix can go."""
    file_nested_layouts()
    monkeypatch.setattr(Screen, "_on_layout", Screen._on_layout.__wrapped__)  # type: ignore[attr-defined]
    monkeypatch.setattr("pi_tui.tui.themed_app.file_nested_layouts", lambda: True)
    assert not await filed_under_the_stream()


def test_applying_the_filing_fix_twice_patches_once() -> None:
    assert file_nested_layouts()
    patched = Screen._on_layout
    assert file_nested_layouts()
    assert Screen._on_layout is patched
