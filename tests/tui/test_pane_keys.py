"""The side panes from the keyboard: F2-F4 put the focus in their pane, F6 moves between the parts of the
screen, F11 maximises the focused pane, and the footer lists the keys of where the focus is."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widget import Widget
from textual.widgets import TextArea
from textual.widgets._footer import FooterKey

from pi_tui.ai.scripted import ScriptedReply, ScriptedToolCall
from pi_tui.tui.screens.chat import ChatScreen
from pi_tui.tui.screens.tree_dialog import TreeDialog
from pi_tui.tui.widgets.compaction_timeline import CompactionTimeline
from pi_tui.tui.widgets.context_inspector import ContextInspector
from pi_tui.tui.widgets.conversation import ConversationView
from pi_tui.tui.widgets.prompt_area import PromptArea
from pi_tui.tui.widgets.tool_call_block import ToolCallBlock
from pi_tui.tui.widgets.tool_list import ToolList
from pi_tui.tui.widgets.tool_output_viewer import ToolOutputViewer
from tests.support.waiting import until

from .chat_fixtures import make_chat_app
from .pilot_helpers import settle, submit

WIDE = (120, 36)
NARROW = (80, 24)


def two_reads(tmp_path: Path) -> Any:
    """A chat whose conversation holds two tool-call blocks (focusable, so Tab would stop at each)."""
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "a.md").write_text("alpha\n")
    (tmp_path / "project" / "b.md").write_text("beta\n")
    calls = [
        ScriptedToolCall(name="read", arguments={"path": "a.md"}, id="call-a"),
        ScriptedToolCall(name="read", arguments={"path": "b.md"}, id="call-b"),
    ]
    app, _, _ = make_chat_app(tmp_path, [ScriptedReply(tool_calls=calls), ScriptedReply(text="both read")])
    return app


def chat(app: Any) -> ChatScreen:
    screen = app.screen
    assert isinstance(screen, ChatScreen)
    return screen


def focused(app: Any) -> Widget | None:
    widget: Widget | None = app.screen.focused
    return widget


def within(app: Any, kind: type[Widget]) -> bool:
    widget = focused(app)
    return widget is not None and any(isinstance(node, kind) for node in (widget, *widget.ancestors))


def footer_keys(app: Any) -> set[str]:
    return {key.key for key in app.screen.query(FooterKey) if "-command-palette" not in key.classes}


async def footer_shows(pilot: Any, *keys: str) -> set[str]:
    """The footer's keys once it has redrawn for the focus (it recomposes after a refresh)."""
    await until(lambda: set(keys) <= footer_keys(pilot.app), pilot=pilot, what=f"the footer to list {keys}")
    return footer_keys(pilot.app)


async def test_f2_f3_f4_focus_their_pane_from_the_editor_and_from_inside_a_pane(tmp_path: Path) -> None:
    app = two_reads(tmp_path)
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        await submit(pilot, "read both")
        assert isinstance(focused(app), PromptArea)
        await pilot.press("f3")
        assert isinstance(focused(app), ToolList)
        await pilot.press("f2")
        assert within(app, ContextInspector)
        chat(app).set_focus(chat(app).query_one("#inspector-detail", TextArea))  # deeper in a pane
        await pilot.press("f4")
        assert within(app, CompactionTimeline)
        await pilot.press("f3")
        assert isinstance(focused(app), ToolList)
        # Text typed right after the key goes where the key put the focus.
        await pilot.press("f6", *"hello")
        assert chat(app).query_one(PromptArea).text == "hello"


async def test_a_pane_key_returns_to_where_the_focus_was_in_that_pane(tmp_path: Path) -> None:
    app = two_reads(tmp_path)
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        await submit(pilot, "read both")
        await pilot.press("f3")
        line_view = chat(app).query_one(ToolOutputViewer).line_view
        chat(app).set_focus(line_view)
        await pilot.press("f2", "f3")
        assert focused(app) is line_view


async def test_f6_visits_conversation_panel_and_editor_and_skips_the_tool_blocks(tmp_path: Path) -> None:
    app = two_reads(tmp_path)
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        await submit(pilot, "read both")
        assert len(chat(app).query(ToolCallBlock)) == 2
        visited = []
        for _ in range(6):
            await pilot.press("f6")
            widget = focused(app)
            visited.append(widget.id if widget is not None else None)
        # Conversation, the open pane's table (Context, the panel's first tab), editor; and round again.
        assert visited == ["conversation", "inspector-table", "prompt"] * 2
        await pilot.press("shift+f6")  # back: editor → panel → conversation
        assert within(app, ContextInspector)
        await pilot.press("shift+f6")
        assert isinstance(focused(app), ConversationView)
        await pilot.press("f6", "f6")
        # The side panel hidden: F6 leaves it out.
        await pilot.press("ctrl+b", "f6")
        assert isinstance(focused(app), ConversationView)
        await pilot.press("f6")
        assert isinstance(focused(app), PromptArea)


async def after_two_reads(pilot: Any) -> tuple[ChatScreen, ConversationView]:
    """The chat once the two reads are answered: the screen and its conversation."""
    await settle(pilot)
    await submit(pilot, "read both")
    screen = chat(pilot.app)
    return screen, screen.query_one(ConversationView)


async def test_on_80_columns_an_open_pane_replaces_the_conversation_and_f6_skips_it(tmp_path: Path) -> None:
    app = two_reads(tmp_path)
    async with app.run_test(size=NARROW) as pilot:
        screen, conversation = await after_two_reads(pilot)
        assert conversation.display and not screen.query_one("#side").display
        await pilot.press("f3")
        await settle(pilot)
        assert not conversation.display and screen.query_one("#side").region.width == NARROW[0]
        await pilot.press("f6")
        assert isinstance(focused(app), PromptArea)
        await pilot.press("f6")
        assert isinstance(focused(app), ToolList)
        await pilot.press("ctrl+b")  # the pane goes, the conversation comes back, the editor has the keys
        await settle(pilot)
        assert conversation.display and conversation.region.width == NARROW[0]
        assert isinstance(focused(app), PromptArea)


async def test_on_80_columns_esc_closes_the_pane_and_is_not_the_first_of_a_double_press(
    tmp_path: Path,
) -> None:
    app = two_reads(tmp_path)
    async with app.run_test(size=NARROW) as pilot:
        screen, conversation = await after_two_reads(pilot)
        await pilot.press("f4")
        await settle(pilot)
        assert not conversation.display
        await pilot.press("escape")
        await settle(pilot)
        assert conversation.display and not screen.query_one("#side").display
        assert isinstance(focused(app), PromptArea)
        assert not isinstance(app.screen, TreeDialog)
        await pilot.press("escape", "escape")  # now the session tree, as anywhere else
        await until(lambda: isinstance(app.screen, TreeDialog), pilot=pilot, what="the tree")


async def test_f11_maximises_the_focused_pane_and_restores_it(tmp_path: Path) -> None:
    app = two_reads(tmp_path)
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        await submit(pilot, "read both")
        screen = chat(app)
        await pilot.press("f3", "f11")
        await settle(pilot)
        assert isinstance(screen.maximized, ToolOutputViewer)
        assert screen.maximized.region.width == WIDE[0]
        await pilot.press("f4")  # another pane takes the maximised one's place
        await settle(pilot)
        assert isinstance(screen.maximized, CompactionTimeline) and within(app, CompactionTimeline)
        await pilot.press("f11")
        await settle(pilot)
        assert screen.maximized is None and within(app, CompactionTimeline)
        await pilot.press("f6", "f6", "f11")  # editor → conversation, then F11
        await settle(pilot)
        assert isinstance(screen.maximized, ConversationView)
        await pilot.press("f11")
        await settle(pilot)
        assert screen.maximized is None


async def test_the_footer_lists_the_keys_that_act_where_the_focus_is(tmp_path: Path) -> None:
    app = two_reads(tmp_path)
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        await submit(pilot, "read both")
        editor = await footer_shows(pilot, "enter", "escape", "ctrl+o", "f2", "f1", "f6")
        assert {"t", "s", "f11", "ctrl+t", "ctrl+q"}.isdisjoint(editor)
        await pilot.press("f3")
        tools = await footer_shows(pilot, "t", "ctrl+f", "f11", "f1", "f6")
        assert {"enter", "escape", "ctrl+o", "ctrl+t", "s", "r", "f2"}.isdisjoint(tools)
        await pilot.press("f2")
        context = await footer_shows(pilot, "s", "r", "f11")
        assert {"t", "enter", "ctrl+o"}.isdisjoint(context)
        await pilot.press("f4")
        compactions = await footer_shows(pilot, "r", "c", "v", "s", "d", "a", "n", "f11")
        assert {"t", "enter"}.isdisjoint(compactions)
        await pilot.press("f6", "f6")
        conversation = await footer_shows(pilot, "escape", "ctrl+o", "ctrl+t", "f11")
        assert {"enter", "t", "s"}.isdisjoint(conversation)
        # The keys not listed still work where they are not listed.
        await pilot.press("f3", "ctrl+t")
        assert chat(app).has_class("-hide-thinking")


async def test_esc_in_the_tools_pane_reaches_the_screen_unless_a_search_is_open(tmp_path: Path) -> None:
    app = two_reads(tmp_path)
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        await submit(pilot, "read both")
        await pilot.press("f3", "ctrl+f")
        assert chat(app).query_one(ToolOutputViewer).has_class("-searching")
        await pilot.press("escape")  # closes the search only
        assert not chat(app).query_one(ToolOutputViewer).has_class("-searching")
        assert not isinstance(app.screen, TreeDialog)
        await pilot.press("escape")  # the keyboard back to the editor, and not the first of a double press
        assert isinstance(focused(app), PromptArea)
        assert not isinstance(app.screen, TreeDialog)
        await pilot.press("escape", "escape")  # idle, empty editor: Esc Esc is the session tree
        await until(lambda: isinstance(app.screen, TreeDialog), pilot=pilot, what="the tree from the pane")


async def test_a_narrower_screen_that_hides_the_focused_part_gives_the_keys_to_the_editor(
    tmp_path: Path,
) -> None:
    app = two_reads(tmp_path)
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        await pilot.press("f6", "f6")  # the panel, as it stands beside the conversation
        assert within(app, ContextInspector)
        await pilot.resize_terminal(*NARROW)  # no pane was asked for: the panel goes
        await settle(pilot)
        assert isinstance(focused(app), PromptArea)
        await pilot.resize_terminal(*WIDE)
        await pilot.press("f3", "f6", "f6")  # a pane asked for, then the conversation
        assert isinstance(focused(app), ConversationView)
        await pilot.resize_terminal(*NARROW)  # the pane takes the conversation's place
        await settle(pilot)
        assert isinstance(focused(app), PromptArea)
