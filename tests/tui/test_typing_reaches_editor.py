"""Typed text is never lost: a printable key that means nothing where the keyboard is goes to the editor,
with the focus; a pane's own letters act only while the pane holds the keyboard; Esc in a pane gives the
keyboard back to the editor at every width; the footer names the part that holds the keyboard."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, Static

from pi_tui.tui.screens.chat import ChatScreen
from pi_tui.tui.widgets.context_inspector import ContextInspector
from pi_tui.tui.widgets.conversation import ConversationView
from pi_tui.tui.widgets.prompt_area import PromptArea
from pi_tui.tui.widgets.side_panel import SidePanel
from pi_tui.tui.widgets.tool_output_viewer import ToolOutputViewer
from tests.support.waiting import until

from .pilot_helpers import settle, submit, terminal_input
from .test_pane_keys import chat, focused, two_reads, within

SIZES = [(80, 24), (120, 36), (160, 48)]
PANE_KEYS = ["f2", "f3", "f4"]


def editor_text(app: Any) -> str:
    return str(app.screen.query_one(PromptArea).text)


def keyboard_label(app: Any) -> str:
    label = app.screen.query_one("#footer-keyboard", Static)
    return "" if label.has_class("-editor") else str(label.render())


async def opened(pilot: Any, key: str) -> None:
    await submit(pilot, "read both")
    await pilot.press(key)
    await settle(pilot)
    assert within(pilot.app, SidePanel)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("key", PANE_KEYS)
async def test_slash_compact_typed_in_a_pane_lands_in_the_editor(tmp_path: Path, key: str, size: Any) -> None:
    app = two_reads(tmp_path)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await opened(pilot, key)
        await pilot.press("slash", *"compact")
        await settle(pilot)
        assert editor_text(app) == "/compact"
        assert isinstance(focused(app), PromptArea)
        assert isinstance(app.screen, ChatScreen)  # no letter opened a dialog (r restore, c re-compact)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("key", PANE_KEYS)
async def test_esc_in_a_pane_gives_the_keyboard_back_to_the_editor(
    tmp_path: Path, key: str, size: Any
) -> None:
    app = two_reads(tmp_path)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await opened(pilot, key)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(focused(app), PromptArea)
        await pilot.press("r", "s", "t")  # a pane's letters, now typed
        assert editor_text(app) == "rst"
        assert isinstance(app.screen, ChatScreen)


async def test_text_typed_in_the_conversation_lands_in_the_editor(tmp_path: Path) -> None:
    app = two_reads(tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await submit(pilot, "read both")
        await pilot.press("f6")
        assert within(app, ConversationView)
        await pilot.press(*"hi there")
        assert editor_text(app) == "hi there"
        assert isinstance(focused(app), PromptArea)


async def test_a_burst_typed_in_a_pane_lands_in_the_editor_in_order(tmp_path: Path) -> None:
    app = two_reads(tmp_path)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await opened(pilot, "f4")
        terminal_input(pilot, "/compact now")
        await until(lambda: editor_text(app) == "/compact now", pilot=pilot, what="the burst in the editor")


async def test_a_panes_letters_act_only_while_it_holds_the_keyboard(tmp_path: Path) -> None:
    app = two_reads(tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        inspector = chat(app).query_one(ContextInspector)
        await opened(pilot, "f2")
        before = inspector.largest_first
        await pilot.press("s")
        assert inspector.largest_first is not before and editor_text(app) == ""
        await pilot.press("escape", "s")
        assert inspector.largest_first is not before  # unchanged: the s was typed
        assert editor_text(app) == "s"


async def test_the_footer_names_the_part_that_holds_the_keyboard(tmp_path: Path) -> None:
    app = two_reads(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert keyboard_label(app) == ""
        await opened(pilot, "f4")
        assert keyboard_label(app) == "keys: Compactions pane · esc: editor"
        await pilot.press("f2")
        assert keyboard_label(app) == "keys: Context pane · esc: editor"
        await pilot.press("escape")
        assert keyboard_label(app) == ""
        label = app.screen.query_one("#footer-keyboard", Static)
        assert not label.display


async def test_a_burst_after_the_tools_search_key_lands_whole_in_the_search_box(tmp_path: Path) -> None:
    app = two_reads(tmp_path)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await opened(pilot, "f3")
        box = chat(app).query_one("#tool-output-search", Input)
        terminal_input(pilot, "\x06123")  # ctrl+f, then 123, read in one go as a paste typed by tmux arrives
        await until(lambda: box.value == "123", pilot=pilot, what="'123' in the search box")
        assert chat(app).query_one(ToolOutputViewer).has_class("-searching") and editor_text(app) == ""
