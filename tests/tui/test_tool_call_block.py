"""Tool-call blocks: live output is redrawn at a bounded rate, the final result at once."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Static

from pi_tui.tui.themed_app import ThemedApp
from pi_tui.tui.widgets import tool_call_block
from pi_tui.tui.widgets.conversation import ConversationView
from pi_tui.tui.widgets.tool_call_block import ToolCallBlock
from tests.support.clocks import StallingTimerClock
from tests.support.waiting import until

from .screen_capture import screen_text


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


class ConversationHost(ThemedApp[None]):
    def compose(self) -> ComposeResult:
        yield ConversationView()


async def test_a_block_in_the_conversation_is_as_tall_as_its_lines_at_the_width_it_is_drawn() -> None:
    """The conversation's stream layout measured a block two cells wider than it drew it (its left
    margin): a notice that wraps onto one more line there lost its last line."""
    app = ConversationHost()
    async with app.run_test(size=(62, 20)) as pilot:
        conversation = app.query_one(ConversationView)
        block = ToolCallBlock("c1", "bash", {"command": "seq 3"})
        await conversation.mount(block)
        notice_width = block.query_one(".tool-notice").content_region.width or 55
        notice = "[" + "x" * notice_width + "]"  # one line two cells wider, two lines here
        block.show_output(f"1\n2\n3\n\n{notice}", status="done")
        await until(lambda: "x]" in screen_text(app), pilot=pilot, what="the notice's last line")
        drawn = sum(child.outer_size.height for child in block.children if child.display)
        assert block.content_size.height == drawn


class OneBlock(App[None]):
    def __init__(self, name: str, args: dict[str, str]) -> None:
        super().__init__()
        self.block_name, self.block_args = name, args

    def compose(self) -> ComposeResult:
        yield ToolCallBlock("c1", self.block_name, self.block_args)


async def test_a_six_line_read_shows_all_six_lines() -> None:
    """Hiding one line behind a line saying so ("… 1 earlier lines") saved nothing and hid the file's
    start."""
    app = OneBlock("read", {"path": "six.txt"})
    async with app.run_test() as pilot:
        app.query_one(ToolCallBlock).show_output("".join(f"line {n}\n" for n in range(1, 7)))
        await pilot.pause()
        assert tail_of(app).split("\n") == [f"line {n}" for n in range(1, 7)]


async def test_a_long_read_shows_its_first_lines_and_says_how_many_follow() -> None:
    app = OneBlock("read", {"path": "long.txt"})
    async with app.run_test() as pilot:
        app.query_one(ToolCallBlock).show_output("".join(f"line {n}\n" for n in range(1, 21)))
        await pilot.pause()
        shown = tail_of(app).split("\n")
        assert shown[: tool_call_block.TAIL_LINES] == [
            f"line {n}" for n in range(1, tool_call_block.TAIL_LINES + 1)
        ]
        assert shown[-1] == f"… {20 - tool_call_block.TAIL_LINES} more lines (ctrl+o to expand)"


async def test_a_failing_commands_preview_keeps_the_traceback_line_and_no_trailing_blanks() -> None:
    body = "Traceback (most recent call last):\n" + "".join(f'  File "x.py", line {n}\n' for n in range(8))
    body += "ValueError: bad\n\n\nCommand exited with code 1"
    app = OneBlock("bash", {"command": "python x.py"})
    async with app.run_test() as pilot:
        app.query_one(ToolCallBlock).show_output(body, is_error=True)
        await pilot.pause()
        shown = tail_of(app).split("\n")
        assert shown[0] == "Traceback (most recent call last):"
        assert shown[1].startswith("… ") and "earlier lines" in shown[1]
        assert "" not in shown
        assert shown[-1] in ("ValueError: bad", "Command exited with code 1")


async def test_one_earlier_line_is_singular() -> None:
    assert tool_call_block._earlier_lines(1, False) == "… 1 earlier line (ctrl+o to expand)"
    assert tool_call_block._more_lines(2, True) == "… 2 more lines; F3 for all"
