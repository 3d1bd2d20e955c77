"""Tool-call blocks: live output is redrawn at a bounded rate, the final result at once."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Static

from pi_tui.tui.widgets import tool_call_block
from pi_tui.tui.widgets.tool_call_block import ToolCallBlock
from tests.support.clocks import StallingTimerClock
from tests.support.waiting import until


class BlockHost(App[None]):
    def compose(self) -> ComposeResult:
        yield ToolCallBlock("c1", "bash", {"command": "seq 3"})


def tail_of(app: App[None]) -> str:
    return str(app.query_one(ToolCallBlock).query(Static)[1].render())


@pytest.mark.parametrize("uptime", ["real clock", "clock near zero"])
async def test_live_output_waits_for_its_redraw_and_the_final_result_does_not(
    monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest, uptime: str
) -> None:
    if uptime == "clock near zero":
        request.getfixturevalue("freshly_booted")
    monkeypatch.setattr(tool_call_block, "LIVE_OUTPUT_SECONDS", 3600.0)  # no redraw falls due in this test
    app = BlockHost()
    async with app.run_test(size=(80, 20)) as pilot:
        block = app.query_one(ToolCallBlock)
        block.show_output("1", status="running", live=True)
        await pilot.pause()
        assert tail_of(app) == "1"
        block.show_output("1\n2", status="running", live=True)
        await pilot.pause()
        assert tail_of(app) == "1"
        block.show_output("1\n2\n3", status="done", live=False)
        await pilot.pause()
        assert tail_of(app) == "1\n2\n3"
        assert "[done]" in str(block.query(Static)[0].render())


async def test_a_due_redraw_shows_the_latest_live_output() -> None:
    app = BlockHost()
    async with app.run_test(size=(80, 20)) as pilot:
        block = app.query_one(ToolCallBlock)
        block.show_output("a", status="running", live=True)
        block.show_output("a\nb", status="running", live=True)
        block.show_output("a\nb\nc", status="running", live=True)
        await pilot.pause(2 * tool_call_block.LIVE_OUTPUT_SECONDS)
        await pilot.pause()
        assert tail_of(app) == "a\nb\nc"


async def test_live_output_is_redrawn_though_the_process_stalled_as_its_redraw_was_armed(
    stalling_timers: StallingTimerClock,
) -> None:
    app = BlockHost()
    async with app.run_test(size=(80, 20)) as pilot:
        block = app.query_one(ToolCallBlock)
        block.show_output("a", status="running", live=True)  # drawn at once: nothing drawn yet
        await pilot.pause()
        stalling_timers.stall_next()
        block.show_output("a\nb", status="running", live=True)
        await until(lambda: tail_of(app) == "a\nb", pilot=pilot, what="the redraw that fell due")
