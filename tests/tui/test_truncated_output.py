"""A 50,000-line output: what the conversation shows says where it starts and where the rest is, the
model view is numbered as the notice counts, and the spill file's path is never cut off."""

from __future__ import annotations

from pathlib import Path

from rich.cells import cell_len

from pi_tui.ai.scripted import ScriptedReply, ScriptedToolCall
from pi_tui.tui.screens.chat import ChatScreen
from pi_tui.tui.widgets.conversation import ConversationView
from pi_tui.tui.widgets.fitted_title import FittedTitle
from pi_tui.tui.widgets.path_notice import PathNotice, shorten_middle
from pi_tui.tui.widgets.tool_call_block import EXPANDED_TAIL_LINES, TAIL_LINES, ToolCallBlock
from pi_tui.tui.widgets.tool_output_viewer import ToolOutputViewer

from .chat_fixtures import make_chat_app
from .pilot_helpers import settle, submit

SIZE = (160, 48)
COUNT = 50_000
FIRST_SEEN = 48_001
"""`seq 1 50000` is 50,000 lines as pi 1.6 counts them (the final newline starts no line; 0.73.1 said
50,001); the model gets the last 2,000."""
COMMAND = f"seq 1 {COUNT}  # " + "every line of a long output, numbered, " * 4
"""Longer than the Tools pane is wide: its title shortens the command, not what follows it."""


async def test_a_long_output_says_what_is_hidden_and_where(tmp_path: Path) -> None:
    replies = [
        ScriptedReply(tool_calls=[ScriptedToolCall(name="bash", arguments={"command": COMMAND})]),
        ScriptedReply(text="done"),
    ]
    app, _, _ = make_chat_app(tmp_path, replies)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await submit(pilot, "count")
        screen = app.screen
        assert isinstance(screen, ChatScreen)
        block = screen.query_one(ConversationView).query_one(ToolCallBlock)
        notice = str(block.query_one(".tool-notice").render())
        assert notice.startswith(f"[Showing lines {FIRST_SEEN}-{COUNT} of {COUNT}. Full output: ")

        def tail() -> list[str]:
            return str(block.query_one(".tool-tail").render()).split("\n")

        collapsed = tail()
        # Every line above the last five counts: the 48,001 the model never saw and 1,994 it did.
        assert collapsed[0] == f"… {COUNT - TAIL_LINES:,} earlier lines (ctrl+o to expand)"
        assert collapsed[1:] == [str(n) for n in range(COUNT - TAIL_LINES + 1, COUNT + 1)]
        await pilot.press("ctrl+o")
        await settle(pilot)
        expanded = tail()
        assert expanded[0] == f"… {COUNT - EXPANDED_TAIL_LINES:,} earlier lines; F3 for all"
        assert (
            expanded[1] == str(COUNT - EXPANDED_TAIL_LINES + 1) and len(expanded) == EXPANDED_TAIL_LINES + 1
        )

        # The Tools pane: what the model got, numbered as its notice counts the full output.
        await pilot.press("f3")  # "F3 for all": the Tools pane, on this call
        await settle(pilot)
        viewer = screen.query_one(ToolOutputViewer)
        assert viewer.selected == block.call_key
        title = viewer.query_one("#tool-output-title", FittedTitle)
        shown_title = str(title.render())
        assert shown_title.startswith("bash seq 1 50000") and "…" in shown_title
        assert shown_title.endswith(" — what the model got [done]")
        assert cell_len(shown_title) <= title.content_size.width
        view = viewer.line_view
        assert view.line_text(0) == str(FIRST_SEEN) and view.line_number(0) == FIRST_SEEN
        last_output = view.line_count - 3  # the output's last line, a blank, the notice
        assert view.line_text(last_output) == str(COUNT)
        assert view.line_number(last_output) == COUNT and view.line_number(view.line_count - 1) is None
        view.scroll_to(y=0, animate=False, immediate=True)
        assert view.render_line(0).text.split() == [str(FIRST_SEEN), str(FIRST_SEEN)]

        # The spill path in the pane's notice: shortened from the middle to fit, never cut.
        header = viewer.query_one("#tool-output-notice", PathNotice)
        path = str(next(part for part in notice.split() if part.startswith("/")).rstrip("]"))
        width = header.content_size.width
        assert cell_len(path) > width  # long enough to need it
        shown = header.shown_text(width)
        short = shorten_middle(path, width - 1)
        assert short in shown and short.startswith(path[:8]) and short.endswith(Path(path).name)
        rendered = [line.text.rstrip() for line in header.render_lines(header.region.reset_offset)]
        assert rendered == [line.plain.rstrip() for line in header.render().wrap(app.console, width)]
        assert len(rendered) == header.size.height  # every wrapped line shown
        view.focus()
        await pilot.press("t")  # the full output: its notice names the file too
        await settle(pilot)
        full = header.shown_text(header.content_size.width)
        assert full.startswith("Highlighted: lines 48,001-50,000") and full.endswith(
            shorten_middle(path, width)
        )


def test_shorten_middle_keeps_both_ends_and_fits() -> None:
    path = "/home/someone/.pi-tui/sessions/--home-someone-project--/spill/0f4e/pi-bash-5f1e2d3c4b5a6978.log"
    for width in (12, 30, 61, len(path)):
        short = shorten_middle(path, width)
        assert cell_len(short) <= width
        assert short == path or ("…" in short and short.endswith("log") and short.startswith("/ho"))
    assert shorten_middle("short", 10) == "short"
