"""Messages typed while the agent works: Tab queues a follow-up in any terminal (alt+enter reaches the app
as Enter under tmux), the queue is listed above the editor, one message can be edited or dropped, and
every toast names its message.

The agent is held busy by a command that waits for a file the test creates, so nothing depends on timing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual._xterm_parser import XTermParser
from textual.pilot import Pilot

from pi_tui.ai.scripted import ScriptedProvider, ScriptedReply, ScriptedToolCall
from pi_tui.session.agent_session import AgentSession
from pi_tui.tui.widgets.prompt_area import PromptArea
from pi_tui.tui.widgets.queued_messages import QueuedMessages
from pi_tui.tui.widgets.tool_call_block import ToolCallBlock
from tests.support.waiting import until

from .chat_fixtures import make_chat_app
from .pilot_helpers import settle, shown_notices, terminal_input

SIZE = (160, 48)
GATE = "release"
GATED = f"while [ ! -e {GATE} ]; do sleep 0.05; done; echo released"
"""A command that runs until the test creates `release` in the project folder."""


def gated_replies(*after: str) -> list[ScriptedReply]:
    """A reply that runs the gated command, then one plain reply per text in `after`."""
    call = ScriptedToolCall(name="bash", arguments={"command": GATED}, id="gate")
    return [ScriptedReply(tool_calls=[call]), *(ScriptedReply(text=text) for text in after)]


async def start_gated_run(pilot: Pilot[Any], session: AgentSession) -> None:
    terminal_input(pilot, "run the gated command\r")
    await until(lambda: session.is_running, pilot=pilot, what="the agent to start")
    await until(lambda: pilot.app.screen.query(ToolCallBlock), pilot=pilot, what="the gated command to start")


def release(tmp_path: Path) -> None:
    (tmp_path / "project" / GATE).touch()


def queue_rows(pilot: Pilot[Any]) -> list[str]:
    queue = pilot.app.screen.query_one(QueuedMessages)
    if not queue.display:
        return []
    return [str(queue.get_option_at_index(index).prompt) for index in range(queue.option_count)]


def user_texts(provider: ScriptedProvider) -> list[str]:
    """The text of each user message of the last request, in order."""
    messages = provider.contexts[-1].messages
    return [message.content[0].text for message in messages if message.role == "user"]  # type: ignore[union-attr]


def shown_actions(pilot: Pilot[Any]) -> set[str]:
    """The actions the footer offers now."""
    bindings = pilot.app.screen.active_bindings.values()
    return {binding.action for (_, binding, enabled, _) in bindings if enabled and binding.show}


async def toast_says(pilot: Pilot[Any], text: str) -> None:
    await until(
        lambda: any(text in notice for notice in shown_notices(pilot.app)),
        pilot=pilot,
        what=f"toast {text!r}",
    )


def test_alt_enter_under_tmux_is_read_as_enter() -> None:
    """Why Tab: tmux (and many terminals) send alt+enter as ESC CR, which Textual reads as a plain Enter."""
    parser = XTermParser(debug=False)
    keys = [event.key for event in [*parser.feed("\x1b\r"), *parser.feed("")]]  # type: ignore[attr-defined]
    assert keys == ["enter"]


async def test_tab_queues_a_follow_up_delivered_when_the_agent_stops(tmp_path: Path) -> None:
    app, session, provider = make_chat_app(tmp_path, gated_replies("done", "followed up"))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        await start_gated_run(pilot, session)
        terminal_input(pilot, "then update the changelog")
        await until(lambda: "queue_follow_up" in shown_actions(pilot), pilot=pilot, what="Tab in the footer")
        terminal_input(pilot, "\t")
        await until(lambda: session.queued_texts[1], pilot=pilot, what="the follow-up to be queued")
        assert session.queued_texts == ((), ("then update the changelog",))
        assert app.screen.query_one(PromptArea).text == ""
        await until(lambda: queue_rows(pilot), pilot=pilot, what="the queue to be listed")
        assert queue_rows(pilot) == ["follow-up  then update the changelog"]
        await toast_says(pilot, "Follow-up queued: “then update the changelog”")

        release(tmp_path)
        await until(lambda: provider.calls == 3, pilot=pilot, what="the follow-up to be sent")
        await session.wait_for_idle()
        await settle(pilot)
        assert user_texts(provider) == ["run the gated command", "then update the changelog"]
        assert session.last_assistant_text() == "followed up"
        assert queue_rows(pilot) == []


async def test_tab_with_nothing_running_does_not_queue(tmp_path: Path) -> None:
    app, session, _ = make_chat_app(tmp_path, [])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        editor = app.screen.query_one(PromptArea)
        terminal_input(pilot, "a draft")
        await until(lambda: editor.text == "a draft", pilot=pilot, what="the draft")
        assert "queue_follow_up" not in shown_actions(pilot)
        terminal_input(pilot, "\t")
        await until(lambda: not editor.has_focus, pilot=pilot, what="Tab to move the focus on")
        assert editor.text == "a draft" and session.queued_texts == ((), ())


async def test_steer_and_follow_up_are_listed_then_edited_and_dropped(tmp_path: Path) -> None:
    app, session, provider = make_chat_app(tmp_path, gated_replies("done"))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        await start_gated_run(pilot, session)
        terminal_input(pilot, "look at the failing test first\r")
        terminal_input(pilot, "and then\nwrite the docs\t")
        await until(lambda: len(queue_rows(pilot)) == 2, pilot=pilot, what="both messages listed")
        assert queue_rows(pilot) == [
            "steer      look at the failing test first",
            "follow-up  and then write the docs",
        ]
        await toast_says(pilot, "Steer queued: “look at the failing test first”")

        editor = app.screen.query_one(PromptArea)
        queue = app.screen.query_one(QueuedMessages)
        terminal_input(pilot, "\x1b[A")  # Up from the editor: the newest message
        await until(lambda: queue.has_focus, pilot=pilot, what="Up to select a queued message")
        assert queue.highlighted == 1
        terminal_input(pilot, "\r")  # Enter: back into the editor, to edit
        await until(lambda: editor.text == "and then\nwrite the docs", pilot=pilot, what="the edit")
        assert editor.has_focus and session.queued_texts == (("look at the failing test first",), ())

        editor.clear()
        terminal_input(pilot, "\x1b[A")
        await until(lambda: queue.has_focus, pilot=pilot, what="Up to select the steer")
        terminal_input(pilot, "\x1b[3~")  # Delete: drop it
        await until(lambda: session.queued_texts == ((), ()), pilot=pilot, what="the steer to be dropped")
        await until(lambda: editor.has_focus and not queue_rows(pilot), pilot=pilot, what="the list to close")
        await toast_says(pilot, "Removed the queued steer: “look at the failing test first”")

        release(tmp_path)
        await session.wait_for_idle()
        await settle(pilot)
        assert provider.calls == 2 and user_texts(provider) == ["run the gated command"]


async def test_followup_command_queues_and_escape_takes_everything_back(tmp_path: Path) -> None:
    app, session, _ = make_chat_app(tmp_path, gated_replies())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await start_gated_run(pilot, session)
        terminal_input(pilot, "/followup summarise what changed\r")
        await until(lambda: session.queued_texts[1], pilot=pilot, what="/followup to queue")
        assert session.queued_texts == ((), ("summarise what changed",))
        terminal_input(pilot, "\x1b")
        editor = app.screen.query_one(PromptArea)
        await until(lambda: editor.text == "summarise what changed", pilot=pilot, what="Esc to give it back")
        await until(lambda: not queue_rows(pilot), pilot=pilot, what="the list to close")
        await session.wait_for_idle()
        await settle(pilot)
