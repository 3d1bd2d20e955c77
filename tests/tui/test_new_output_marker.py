"""The marker under the conversation: output arriving while the user is scrolled up says so, and the
marker goes once they are back at the end (ctrl+end from the editor, `end` in the conversation, a click).
Output arriving while they follow the end shows no marker."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from pi_tui.ai.scripted import ScriptedReply
from pi_tui.session.agent_session import AgentSession
from pi_tui.tui.widgets.conversation import ConversationView
from pi_tui.tui.widgets.new_output_marker import MARKER_TEXT, NewOutputMarker
from tests.support.waiting import until

from .chat_fixtures import make_chat_app
from .pilot_helpers import settle, submit, terminal_input
from .screen_capture import screen_text
from .test_abort_responsive import streamed_text

SIZE = (80, 24)
LONG = ScriptedReply(text="\n\n".join(f"paragraph {index}" for index in range(60)))


def streaming() -> ScriptedReply:
    return ScriptedReply(text="fresh " * 2_000, chunk_size=5, delay_s=0.05)


async def a_long_reply_then_a_streaming_one(pilot: Pilot[Any], session: AgentSession) -> ConversationView:
    await settle(pilot)
    await submit(pilot, "tell me a lot")
    conversation = pilot.app.screen.query_one(ConversationView)
    assert conversation.max_scroll_y > 0 and conversation.following
    return conversation


def marker_shown(pilot: Pilot[Any]) -> bool:
    return pilot.app.screen.query_one(NewOutputMarker).display and MARKER_TEXT in screen_text(pilot.app)


async def scrolled_up_while_output_arrives(pilot: Pilot[Any], session: AgentSession) -> ConversationView:
    conversation = await a_long_reply_then_a_streaming_one(pilot, session)
    await pilot.press("pageup")
    await until(lambda: not conversation.following, pilot=pilot, what="the view to leave the end")
    terminal_input(pilot, "more\r")
    await until(lambda: "fresh fresh" in streamed_text(session), pilot=pilot, what="the reply to stream")
    await until(lambda: marker_shown(pilot), pilot=pilot, what="the new-output marker")
    return conversation


async def test_ctrl_end_jumps_to_the_new_output_and_the_marker_goes(tmp_path: Path) -> None:
    app, session, _ = make_chat_app(tmp_path, [LONG, streaming()])
    async with app.run_test(size=SIZE) as pilot:
        conversation = await scrolled_up_while_output_arrives(pilot, session)
        await pilot.press("ctrl+end")
        await until(lambda: not marker_shown(pilot), pilot=pilot, what="the marker to go")
        assert conversation.following
        await until(lambda: conversation.is_vertical_scroll_end, pilot=pilot, what="the view at the end")
        session.abort()


@pytest.mark.parametrize("way_back", ["end in the conversation", "click"])
async def test_back_at_the_end_the_marker_goes(tmp_path: Path, way_back: str) -> None:
    app, session, _ = make_chat_app(tmp_path, [LONG, streaming()])
    async with app.run_test(size=SIZE) as pilot:
        conversation = await scrolled_up_while_output_arrives(pilot, session)
        if way_back == "click":
            await pilot.click(NewOutputMarker)
        else:
            conversation.focus()
            await until(lambda: conversation.has_focus, pilot=pilot, what="the conversation focused")
            await pilot.press("end")
        await until(lambda: not marker_shown(pilot), pilot=pilot, what="the marker to go")
        assert conversation.following
        session.abort()


async def test_no_marker_while_following_the_end(tmp_path: Path) -> None:
    app, session, _ = make_chat_app(tmp_path, [LONG, streaming()])
    async with app.run_test(size=SIZE) as pilot:
        await a_long_reply_then_a_streaming_one(pilot, session)
        terminal_input(pilot, "more\r")
        await until(lambda: "fresh fresh fresh" in streamed_text(session), pilot=pilot, what="streaming")
        await pilot.pause()
        assert not marker_shown(pilot)
        session.abort()
