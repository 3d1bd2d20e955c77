"""A resumed conversation reads as the live one did (issue #27, item 11): a session played live, then its
file opened in a new app, shows the same lines: tool timings, the retry's outcome, the compaction's
note, an aborted reply's text."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from textual.geometry import Region

from pi_tui.agent import tool_execution
from pi_tui.ai import scripted
from pi_tui.ai.messages import AssistantMessage
from pi_tui.ai.scripted import ScriptedReply, ScriptedToolCall
from pi_tui.config.settings import CompactionSettings, RetrySettings, Settings
from pi_tui.session_file.store import SessionStore
from pi_tui.tui.widgets import conversation
from pi_tui.tui.widgets.conversation import ConversationView
from tests.support.waiting import until

from .chat_fixtures import make_chat_app
from .pilot_helpers import settle, submit

SIZE = (120, 90)
"""Tall enough that the whole conversation is mounted at once (no "earlier messages" page)."""
NOW_MS = 1_796_189_456_000
ERROR_503 = "503 Service Unavailable"
PARTIAL = "Partial answer before the stop. "


def conversation_lines(app: Any) -> list[str]:
    """The conversation's text as drawn: every shown leaf widget's rendered lines, in order."""
    view = app.screen.query_one(ConversationView)
    lines: list[str] = []
    for widget in view.walk_children(with_self=False):
        if widget.children or not all(node.display for node in widget.ancestors_with_self if node is not view):
            continue
        strips = widget.render_lines(Region(0, 0, widget.size.width, widget.size.height))
        lines.extend(strip.text.rstrip() for strip in strips)
    return lines


def streamed_text(session: Any) -> str:
    message = session.agent.state.streaming_message
    return message.text if isinstance(message, AssistantMessage) else ""


@pytest.fixture
def fixed_clocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every clock a timing is shown from stands still: live timings and timings derived from the file's
    timestamps are both 0.0s, whatever the machine's load."""
    monkeypatch.setattr(conversation, "clock", lambda: 100.0)
    monkeypatch.setattr(tool_execution, "now_ms", lambda: NOW_MS)
    monkeypatch.setattr(scripted, "time", SimpleNamespace(time=lambda: NOW_MS / 1000))


@pytest.mark.usefixtures("fixed_clocks")
async def test_a_resumed_session_shows_what_the_live_one_showed(tmp_path: Path) -> None:
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "notes.txt").write_text("alpha\nbeta\n")
    replies = [
        ScriptedReply(text="Reading.", tool_calls=[ScriptedToolCall(name="read", arguments={"path": "notes.txt"})]),
        ScriptedReply(text="The notes say alpha and beta."),
        ScriptedReply(error=ERROR_503),
        ScriptedReply(text="Fine now."),
        ScriptedReply(text="## Goal\nRead the notes."),
        # Long enough to be still streaming when Esc arrives, however loaded the machine.
        ScriptedReply(text=PARTIAL + "word " * 4_000, chunk_size=4, delay_s=0.02),
    ]
    settings = Settings(
        retry=RetrySettings(base_delay_ms=1, max_delay_ms=1),
        compaction=CompactionSettings(keep_recent_tokens=10),
    )
    app, session, _ = make_chat_app(tmp_path, replies, settings=settings)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await submit(pilot, "what is in notes.txt?")
        await submit(pilot, "and again")
        await submit(pilot, "/compact")
        app.screen.query_one("#prompt").text = "a long one"
        await pilot.press("enter")
        await until(lambda: PARTIAL in streamed_text(session), pilot=pilot, what="the reply's first words")
        await pilot.press("escape")
        await session.wait_for_idle()
        await settle(pilot)
        live = conversation_lines(app)
    path = session.store.path
    assert path is not None

    resumed_app, _, _ = make_chat_app(tmp_path, [], settings=settings, store=SessionStore.open(path))
    async with resumed_app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        resumed = conversation_lines(resumed_app)

    text = "\n".join(live)
    for shown in ("[done 0.0s]", "Retry 1 succeeded.", "Compacted ~", PARTIAL.strip(), "Aborted."):
        assert shown in text
    print("\n".join(live)); print("=====", "\n".join(resumed))
    assert resumed == live
