"""The chat screen driven with Pilot: submit, stream, tools, abort, queueing, history."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Markdown, Static

from pi_tui.ai.scripted import ScriptedReply, ScriptedToolCall
from pi_tui.context.token_figures import format_tokens
from pi_tui.tui.screens import chat as chat_screen
from pi_tui.tui.screens.chat import ChatScreen
from pi_tui.tui.screens.start_page import StartScreen
from pi_tui.tui.widgets.conversation import ConversationView
from pi_tui.tui.widgets.message_blocks import AssistantBlock, UserBlock
from pi_tui.tui.widgets.prompt_area import PromptArea
from pi_tui.tui.widgets.tool_call_block import ToolCallBlock
from tests.support.waiting import until

from .chat_fixtures import make_chat_app
from .pilot_helpers import settle

SIZE = (120, 40)


async def wait_idle(app: object, session: object, pilot: object) -> None:
    await session.wait_for_idle()  # type: ignore[attr-defined]
    await settle(pilot)  # type: ignore[arg-type]


async def test_submit_streams_reply_and_tool_output(tmp_path: Path) -> None:
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "notes.txt").write_text("alpha\nbeta\n")
    replies = [
        ScriptedReply(
            thinking="Read the notes first.",
            tool_calls=[ScriptedToolCall(name="read", arguments={"path": "notes.txt"})],
        ),
        ScriptedReply(text="The notes say **alpha** and beta."),
    ]
    app, session, provider = make_chat_app(tmp_path, replies)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ChatScreen)
        await pilot.press(*"what is in notes.txt?")
        await pilot.press("enter")
        await wait_idle(app, session, pilot)

        conversation = app.screen.query_one(ConversationView)
        kinds = [type(child).__name__ for child in conversation.children]
        assert kinds == ["UserBlock", "AssistantBlock", "ToolCallBlock", "AssistantBlock"]
        tool = conversation.query_one(ToolCallBlock)
        assert tool.tool_name == "read" and "notes.txt" in tool.summary
        assert "beta" in str(tool.query(Static)[1].render())
        final = list(conversation.query(AssistantBlock))[-1].query_one(Markdown)
        assert "alpha" in final.source
        assert app.screen.query_one(PromptArea).text == ""
        assert provider.calls == 2
        assert "notes.txt" in str(provider.contexts[0].messages[0].to_json_obj())


async def test_escape_aborts_and_returns_queued_text(tmp_path: Path) -> None:
    # 100 s of streaming: the reply must still be running when the steer is typed, however slowly the keys
    # arrive (a 10 s reply ended first on a loaded machine, and the steer then started a turn of its own).
    slow = ScriptedReply(text="word " * 4_000, chunk_size=4, delay_s=0.02)
    app, session, _ = make_chat_app(tmp_path, [slow])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press(*"first", "enter")
        await until(lambda: session.is_running)
        await pilot.press(*"steer me", "enter")
        # The editor hands the text over through the screen's message queue, not within the key press.
        await until(session.agent.has_queued_messages, pilot=pilot, what="the steer queued")
        await pilot.press("escape")
        await wait_idle(app, session, pilot)

        last = session.last_assistant_message()
        assert last is not None and last.stop_reason == "aborted"
        assert app.screen.query_one(PromptArea).text == "steer me"
        assert any("Aborted." in str(widget.render()) for widget in app.screen.query(Static))


async def test_one_escape_right_after_boot_does_not_open_the_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Esc twice within half a second opens the tree; the first Esc of a run is never a second one, even
    when the monotonic clock (time since boot) still reads under half a second."""
    monkeypatch.setattr(chat_screen, "time", SimpleNamespace(monotonic=lambda: 0.3))
    app, _session, _ = make_chat_app(tmp_path, [])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, ChatScreen)


async def test_history_walks_with_up_and_down(tmp_path: Path) -> None:
    app, session, _ = make_chat_app(tmp_path, [ScriptedReply(text="one"), ScriptedReply(text="two")])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press(*"first question", "enter")
        await wait_idle(app, session, pilot)
        await pilot.press(*"second question", "enter")
        await wait_idle(app, session, pilot)
        prompt = app.screen.query_one(PromptArea)
        await pilot.press(*"draft")
        await pilot.press("up")
        assert prompt.text == "second question"
        await pilot.press("up")
        assert prompt.text == "first question"
        await pilot.press("down", "down")
        assert prompt.text == "draft"


async def test_footer_counts_usage_and_context(tmp_path: Path) -> None:
    app, session, _ = make_chat_app(tmp_path, [ScriptedReply(text="hello there")])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press(*"hi", "enter")
        await wait_idle(app, session, pilot)
        usage = session.last_assistant_message().usage  # type: ignore[union-attr]
        footer = app.screen.query_one("#footer-usage", Static)
        assert f"↑{format_tokens(usage.input)}" in str(footer.render())
        context = str(app.screen.query_one("#footer-context", Static).render())
        assert context.endswith("%/32k (auto)")
        assert "scripted-model • medium" in str(app.screen.query_one("#footer-model", Static).render())


async def test_reopened_session_shows_its_transcript(tmp_path: Path) -> None:
    app, session, _ = make_chat_app(tmp_path, [ScriptedReply(text="remembered answer")])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press(*"remember this", "enter")
        await wait_idle(app, session, pilot)
        conversation = app.screen.query_one(ConversationView)
        await conversation.show_transcript(session.agent.state.messages)
        await settle(pilot)
        assert [type(child) for child in conversation.children] == [UserBlock, AssistantBlock]


def test_format_tokens_matches_pi() -> None:
    assert [format_tokens(n) for n in (999, 1500, 200_000, 1_500_000, 12_000_000)] == [
        "999",
        "1.5k",
        "200k",
        "1.5M",
        "12M",
    ]


async def test_start_page_keys_do_nothing_in_a_chat(tmp_path: Path) -> None:
    app, _, _ = make_chat_app(tmp_path, [])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        chat = app.screen
        chat.query_one(ConversationView).focus()  # not a text field: letters with no meaning here are typed
        await pilot.press("d", "a", "r")
        await settle(pilot)
        assert app.screen is chat
        # Under a chat the app keeps a bare screen, not the start page (never seen there, and its session
        # listing delayed the chat's first frame); its keys are not the chat's either.
        assert [type(screen) for screen in app.screen_stack] == [Screen, ChatScreen]
        start_page_actions = {
            binding.action for binding in StartScreen.BINDINGS if isinstance(binding, Binding)
        }
        shown = {binding.action for (_, binding, enabled, _) in chat.active_bindings.values() if enabled}
        assert not shown & start_page_actions
        assert str(chat.query_one(PromptArea).text) == "dar"  # typed into the editor, not lost


async def test_page_keys_in_the_editor_scroll_the_conversation(tmp_path: Path) -> None:
    app, session, _ = make_chat_app(
        tmp_path, [ScriptedReply(text="\n\n".join(f"line {n}" for n in range(80)))]
    )
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press(*"tell me", "enter")
        await wait_idle(app, session, pilot)
        conversation = app.screen.query_one(ConversationView)
        editor = app.screen.query_one(PromptArea)
        editor.text = "a draft\nof two lines"
        # The editor grows a line, the conversation shrinks by one and stays anchored at its end.
        await pilot.pause()
        await until(lambda: conversation.scroll_y == conversation.max_scroll_y, pilot=pilot)
        bottom = conversation.scroll_y
        page = conversation.scrollable_content_region.height
        assert bottom > 0 and editor.has_focus
        await pilot.press("pageup")
        await until(lambda: conversation.scroll_y == bottom - page, pilot=pilot)
        await pilot.press("pagedown")
        await until(lambda: conversation.scroll_y == bottom, pilot=pilot)
        assert editor.text == "a draft\nof two lines" and editor.has_focus
