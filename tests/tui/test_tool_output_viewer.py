"""The tool-output viewer pane in a tiny host app: selecting, toggling, searching, following, highlighting."""

from __future__ import annotations

import threading
import tracemalloc
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from rich.color import Color
from textual.app import App, ComposeResult
from textual.pilot import Pilot

from pi_tui.tui import spill_reader
from pi_tui.tui.spill_reader import SpillReader
from pi_tui.tui.themed_app import ThemedApp
from pi_tui.tui.tool_calls import LineRange, ToolCallInfo
from pi_tui.tui.widgets.line_view import LineView
from pi_tui.tui.widgets.tool_list import ToolList
from pi_tui.tui.widgets.tool_output_viewer import SpillOpener, ToolOutputViewer
from tests.support.waiting import until

from .pilot_helpers import settle

SIZE = (120, 40)
THEMES = ["pi-dark", "pi-light"]
SPILL_NAME = "/home/user/.pi-tui/sessions/demo/spill/pi-bash-5f1e2d3c4b5a6978.log"


class ViewerApp(ThemedApp[None]):
    def __init__(self, calls: Sequence[ToolCallInfo], open_spill: SpillOpener) -> None:
        super().__init__()
        self.calls = list(calls)
        self.open_spill = open_spill

    def compose(self) -> ComposeResult:
        yield ToolOutputViewer(open_spill=self.open_spill)

    def on_mount(self) -> None:
        self.query_one(ToolOutputViewer).update_calls(self.calls)


def call(
    call_id: str, text: str, *, name: str = "bash", args: str = "", status: str = "done", **extra: Any
) -> ToolCallInfo:
    fields: dict[str, Any] = {
        "key": call_id,
        "id": call_id,
        "name": name,
        "args_summary": args,
        "status": status,
        "model_text": text,
        "lines": text.count("\n") + 1,
        "bytes": len(text.encode()),
        "truncated": False,
        "spill_path": None,
        "shown_range": None,
    }
    fields.update(extra)
    return ToolCallInfo(**fields)


def numbered_spill(tmp_path: Path, count: int) -> tuple[Path, ToolCallInfo]:
    """A `seq 1 count` spill file and the call whose model saw its last 20 lines."""
    path = tmp_path / "pi-bash-0001.log"
    path.write_bytes(b"".join(f"{n}\n".encode() for n in range(1, count + 1)))
    total = count + 1
    first = total - 19
    preview = "\n".join(str(n) for n in range(first, count + 1)) + "\n"
    notice = f"[Showing lines {first}-{total} of {total}. Full output: {SPILL_NAME}]"
    spilled = call(
        "c-seq",
        f"{preview}\n\n{notice}",
        args=f"seq 1 {count}",
        lines=total,
        bytes=path.stat().st_size,
        truncated=True,
        spill_path=SPILL_NAME,
        shown_range=LineRange(first, total),
        first_line=first,
    )
    return path, spilled


def opener(path: Path) -> SpillOpener:
    """Map the spill name the calls carry to the real file (the name stays fixed for snapshots)."""
    return lambda _name: SpillReader(path)


def sample_calls(tmp_path: Path, count: int = 200) -> tuple[list[ToolCallInfo], SpillOpener]:
    path, spilled = numbered_spill(tmp_path, count)
    calls = [
        call("c-read", "TODO\n- write greet.py\n- greet pi", name="read", args="notes.txt"),
        spilled,
        call(
            "c-ls", "ls: cannot access 'nope'\n\nCommand exited with code 2", args="ls nope", status="error"
        ),
    ]
    return calls, opener(path)


def viewer_of(pilot: Pilot[Any]) -> ToolOutputViewer:
    return pilot.app.query_one(ToolOutputViewer)


def visible_text(view: LineView) -> list[str]:
    return [view.render_line(y).text.rstrip() for y in range(view.scrollable_content_region.height)]


def row_background(view: LineView, y: int) -> Color | None:
    style = list(view.render_line(y))[-1].style
    assert style is not None
    return style.bgcolor


async def test_moving_through_the_list_selects_a_call(tmp_path: Path) -> None:
    calls, open_spill = sample_calls(tmp_path)
    messages: list[Any] = []
    async with ViewerApp(calls, open_spill).run_test(size=SIZE, message_hook=messages.append) as pilot:
        viewer = viewer_of(pilot)
        viewer.tool_list.focus()
        await pilot.press("down")
        await settle(pilot)
        assert viewer.selected == "c-seq"
        assert any(isinstance(m, ToolList.ToolSelected) and m.call_key == "c-seq" for m in messages)
        # 19 numbers, the output's empty last line, the blank before the notice, the notice; numbered as
        # the notice counts the full output, the notice itself unnumbered
        assert viewer.line_view.line_count == 22
        shown = visible_text(viewer.line_view)
        assert shown[0].split() == ["182", "182"] and shown[19] == "201"
        assert shown[20] == "" and shown[21].startswith("    [Showing lines 182-201 of 201.")
        await pilot.press("down")
        await settle(pilot)
        assert viewer.selected == "c-ls"
        assert visible_text(viewer.line_view)[:3] == [
            "1 ls: cannot access 'nope'",
            "2",
            "3 Command exited with code 2",
        ]


async def test_calls_of_another_branch_leave_the_list_and_the_view(tmp_path: Path) -> None:
    calls, open_spill = sample_calls(tmp_path)
    async with ViewerApp(calls, open_spill).run_test(size=SIZE) as pilot:
        viewer = viewer_of(pilot)
        viewer.select("c-ls")
        await settle(pilot)
        viewer.update_calls([calls[0]])
        await settle(pilot)
        assert [key.value for key in viewer.tool_list.rows] == [calls[0].id]
        assert viewer.selected == calls[0].id  # the view follows the list's cursor to what is left
        viewer.update_calls([])
        await settle(pilot)
        assert not viewer.tool_list.rows
        assert viewer.selected is None and viewer.line_view.line_count == 0
        assert str(viewer.query_one("#tool-output-title").render()) == "No tool call selected."


async def test_a_growing_count_widens_its_column(tmp_path: Path) -> None:
    running = call("c-run", "1", args="seq 1 200000", status="running", lines=1)
    async with ViewerApp([running], opener(tmp_path / "none")).run_test(size=SIZE) as pilot:
        viewer = viewer_of(pilot)
        await settle(pilot)
        viewer.update_calls([call("c-run", "1", args="seq 1 200000", lines=200_001)])
        await settle(pilot)
        table = viewer.tool_list
        assert table.columns["lines"].get_render_width(table) >= len("200,001") + 2
        assert str(table.get_cell("c-run", "lines")) == "200,001"


async def test_arguments_that_look_like_markup_are_shown_as_typed(tmp_path: Path) -> None:
    odd = call("c-odd", "ok", args='echo "[/]" [b]not bold[/b]')
    async with ViewerApp([odd], opener(tmp_path / "none")).run_test(size=SIZE) as pilot:
        await settle(pilot)  # a str cell would have failed the render: "[/]" closes nothing
        table = viewer_of(pilot).tool_list
        drawn = [table.render_line(y).text for y in range(3)]
        assert any('echo "[/]" [b]not bold[/b]' in row for row in drawn)


async def test_calls_handed_over_before_mount_are_listed(tmp_path: Path) -> None:
    calls, open_spill = sample_calls(tmp_path)

    class EarlyApp(App[None]):
        def compose(self) -> ComposeResult:
            viewer = ToolOutputViewer(open_spill=open_spill)
            viewer.update_calls(calls)
            yield viewer

    async with EarlyApp().run_test(size=SIZE) as pilot:
        await settle(pilot)
        viewer = viewer_of(pilot)
        assert viewer.tool_list.row_count == 3
        assert viewer.selected == "c-read"  # the cursor's first row is shown


async def test_toggle_shows_the_full_output_with_the_models_lines_highlighted(tmp_path: Path) -> None:
    calls, open_spill = sample_calls(tmp_path, count=5000)
    async with ViewerApp(calls, open_spill).run_test(size=SIZE) as pilot:
        viewer = viewer_of(pilot)
        viewer.select("c-seq")
        await settle(pilot)
        assert viewer.reader is None
        await pilot.press("t")
        await settle(pilot)
        view = viewer.line_view
        assert viewer.mode == "full" and view.is_paged
        assert view.line_count == 5001
        # The view went to the lines the model saw: the last 20, so as far down as it goes.
        assert view.scroll_offset.y == view.max_scroll_y > 4900
        await settle(pilot)
        rows = visible_text(view)
        first_seen = 4981 - view.scroll_offset.y
        assert rows[first_seen].split() == ["4982", "4982"]
        seen = view.get_component_rich_style("line-view--seen").bgcolor
        assert seen is not None
        assert row_background(view, first_seen) == seen  # seen by the model
        assert row_background(view, first_seen - 1) != seen  # line 4981: not seen
        notice = str(viewer.query_one("#tool-output-notice").render())
        assert "lines 4,982-5,001" in notice
        await pilot.press("t")
        await settle(pilot)
        assert str(viewer.mode) == "model" and not view.is_paged and viewer.reader is None


async def test_full_view_of_an_unspilled_call_is_the_model_text(tmp_path: Path) -> None:
    calls, open_spill = sample_calls(tmp_path)
    async with ViewerApp(calls, open_spill).run_test(size=SIZE) as pilot:
        viewer = viewer_of(pilot)
        viewer.select("c-read")
        await pilot.press("t")
        await settle(pilot)
        assert not viewer.line_view.is_paged
        assert visible_text(viewer.line_view)[:2] == ["1 TODO", "2 - write greet.py"]
        assert "nothing was cut" in str(viewer.query_one("#tool-output-title").render())


async def test_search_in_the_model_view_steps_with_n_and_shift_n(tmp_path: Path) -> None:
    text = "\n".join(f"row {n}" + (" match" if n % 10 == 0 else "") for n in range(100))
    async with ViewerApp([call("c1", text)], opener(tmp_path / "none")).run_test(size=SIZE) as pilot:
        viewer = viewer_of(pilot)
        viewer.select("c1")
        await settle(pilot)
        await pilot.press("ctrl+f", "x", "escape")
        assert not viewer.has_class("-searching") and viewer.line_view.matches == []
        await pilot.press("ctrl+f", "backspace", *"aTCH", "enter")
        await settle(pilot)
        view = viewer.line_view
        assert view.matches == [n for n in range(100) if n % 10 == 0]
        assert view.current_match == 0
        assert str(viewer.query_one("#tool-output-status").render()) == "1 of 10"
        await pilot.press("n", "n")
        assert view.current_match == 20
        await pilot.press("N", "N", "N")
        assert view.current_match == 90  # wrapped backwards
        await pilot.pause()
        assert str(viewer.query_one("#tool-output-status").render()) == "10 of 10"
        rows = visible_text(view)
        assert any(row.endswith("row 90 match") for row in rows)


async def test_search_in_a_spill_file_finds_a_line_near_the_end(tmp_path: Path) -> None:
    calls, open_spill = sample_calls(tmp_path, count=20000)
    async with ViewerApp(calls, open_spill).run_test(size=SIZE) as pilot:
        viewer = viewer_of(pilot)
        viewer.select("c-seq")
        await pilot.press("t")
        await settle(pilot)
        viewer.line_view.scroll_to_line(0)
        await pilot.press("ctrl+f", *"19990", "enter")
        await settle(pilot)
        view = viewer.line_view
        assert view.matches == [19989]
        assert view.current_match == 19989
        await settle(pilot)
        assert any(row.split() == ["19990", "19990"] for row in visible_text(view))


async def test_follow_tail_sticks_to_the_end_until_the_user_scrolls_up(tmp_path: Path) -> None:
    running = call("c-run", "start", status="running")
    async with ViewerApp([running], opener(tmp_path / "none")).run_test(size=SIZE) as pilot:
        viewer = viewer_of(pilot)
        viewer.select("c-run")
        view = viewer.line_view
        assert view.follow
        text = "\n".join(f"out {n}" for n in range(200))
        viewer.append_live("c-run", text)
        await pilot.pause()
        assert view.line_count == 200
        assert view.scroll_offset.y == view.max_scroll_y > 0
        view.focus()
        await pilot.press("up")
        assert not view.follow
        at = view.scroll_offset.y
        viewer.append_live("c-run", text + "\nmore 1\nmore 2")
        await pilot.pause()
        assert view.line_count == 202 and view.scroll_offset.y == at
        await pilot.press("f")
        await pilot.pause()
        assert view.follow and view.scroll_offset.y == view.max_scroll_y
        assert visible_text(view)[-1].split() == ["202", "more", "2"]


async def test_the_full_view_of_a_running_call_grows_with_its_spill_file(tmp_path: Path) -> None:
    path = tmp_path / "pi-bash-live.log"
    path.write_bytes(b"".join(f"line {n}\n".encode() for n in range(1, 3001)))
    running = call("c-run", "line 3000\n", status="running", truncated=True, spill_path=SPILL_NAME)
    async with ViewerApp([running], opener(path)).run_test(size=SIZE) as pilot:
        viewer = viewer_of(pilot)
        viewer.select("c-run")
        await pilot.press("t")
        await settle(pilot)
        view = viewer.line_view
        assert view.follow and view.line_count == 3001
        with path.open("ab") as file:
            file.write(b"".join(f"line {n}\n".encode() for n in range(3001, 3101)))
        viewer.append_live("c-run", "line 3100\n")
        await settle(pilot)
        assert view.line_count == 3101
        assert view.scroll_offset.y == view.max_scroll_y
        await settle(pilot)
        assert visible_text(view)[-2].split() == ["3100", "line", "3100"]


class GatedReader(SpillReader):
    """Indexes one step, then waits for the test: the first screen must not wait for the whole index."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.gate = threading.Event()
        self.steps = 0

    def _index_step(self, chunks: int) -> bool:
        self.steps += 1
        if self.steps > 1:
            self.gate.wait(10)
        return super()._index_step(chunks)


async def test_a_200k_line_file_shows_its_first_screen_before_indexing_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(spill_reader, "CHUNK_BYTES", 1 << 16)  # the 1.3 MB file takes several steps
    path, spilled = numbered_spill(tmp_path, 200_000)
    spilled = ToolCallInfo(**{**spilled.__dict__, "shown_range": None})
    readers: list[GatedReader] = []

    def open_gated(_name: str) -> SpillReader:
        readers.append(GatedReader(path))
        return readers[-1]

    async with ViewerApp([spilled], open_gated).run_test(size=SIZE) as pilot:
        viewer = viewer_of(pilot)
        viewer.select("c-seq")
        await pilot.press("t")
        reader = readers[0]
        await until(lambda: viewer.line_view.cached_line_count, pilot=pilot)
        assert not reader.index_complete
        assert 0 < viewer.line_view.line_count < 200_001
        assert visible_text(viewer.line_view)[0].split() == ["1", "1"]
        reader.gate.set()
        await settle(pilot)
        assert reader.index_complete and viewer.line_view.line_count == 200_001


async def test_a_50mb_spill_file_is_viewed_and_searched_in_bounded_memory(tmp_path: Path) -> None:
    path = tmp_path / "pi-bash-big.log"
    line = b"x" * 99 + b"\n"
    with path.open("wb") as file:
        for _ in range(500):
            file.write(line * 1000)
        file.write(b"the needle near the end\n" + line * 10)
    size = path.stat().st_size
    assert size > 50_000_000
    big = call("c-big", "tail", truncated=True, spill_path=SPILL_NAME, lines=500_012, bytes=size)
    async with ViewerApp([big], opener(path)).run_test(size=SIZE) as pilot:
        viewer = viewer_of(pilot)
        viewer.select("c-big")
        await settle(pilot)
        tracemalloc.start()
        try:
            await pilot.press("t")
            await settle(pilot)
            viewer.line_view.scroll_to_line(250_000)
            await settle(pilot)
            await pilot.press("ctrl+f", *"needle", "enter")
            await settle(pilot)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        view = viewer.line_view
        assert view.line_count == 500_012
        assert view.matches == [500_000]
        await settle(pilot)
        assert any("the needle near the end" in row for row in visible_text(view))
        assert peak < 16 * 1024 * 1024, f"peak {peak / 1e6:.1f} MB"
        assert view.cached_line_count <= 4096


async def test_an_unreadable_spill_file_falls_back_to_the_model_text(tmp_path: Path) -> None:
    _, spilled = numbered_spill(tmp_path, 100)
    async with ViewerApp([spilled], opener(tmp_path / "deleted.log")).run_test(size=SIZE) as pilot:
        viewer = viewer_of(pilot)
        viewer.select("c-seq")
        await pilot.press("t")
        await settle(pilot)
        assert viewer.reader is None and not viewer.line_view.is_paged
        assert viewer.line_view.line_count == 22
        assert "Cannot read the full output" in str(viewer.query_one("#tool-output-notice").render())


def snapshot_app(tmp_path: Path, theme: str) -> ViewerApp:
    calls, open_spill = sample_calls(tmp_path, count=200)
    app = ViewerApp(calls, open_spill)
    app.theme = theme
    return app


async def open_full_view_and_search(pilot: Pilot[Any]) -> None:
    await settle(pilot)
    viewer = viewer_of(pilot)
    viewer.select("c-seq")
    await pilot.press("t")
    await settle(pilot)
    await pilot.press("ctrl+f", *"19", "enter")
    await settle(pilot)
    pilot.app.screen.set_focus(None)
    await pilot.pause()


@pytest.mark.parametrize("theme", THEMES)
def test_snapshot(snap_compare: Any, tmp_path: Path, theme: str) -> None:
    app = snapshot_app(tmp_path, theme)
    assert snap_compare(app, terminal_size=SIZE, run_before=open_full_view_and_search)
