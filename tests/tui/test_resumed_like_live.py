"""A resumed conversation reads as the live one did (issue #27, item 11): a session played live, then its
file opened in a new app, shows the same lines: tool timings, the retry's outcome, the compaction's
note, an aborted reply's text."""

from __future__ import annotations

import shutil
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from textual.geometry import Region

from pi_tui.agent import tool_execution
from pi_tui.ai import scripted
from pi_tui.ai.messages import AssistantMessage, TextContent, ToolResultMessage, UserMessage
from pi_tui.ai.scripted import ScriptedReply, ScriptedToolCall
from pi_tui.config.settings import CompactionSettings, RetrySettings, Settings
from pi_tui.session.compaction_sizes import CompactionSize, ShownSize, estimated
from pi_tui.session_file.store import SessionStore
from pi_tui.tui.session_preview_data import message_line
from pi_tui.tui.widgets import conversation
from pi_tui.tui.widgets.conversation import ConversationView, compaction_note, retry_notes, tool_seconds
from pi_tui.tui.widgets.message_blocks import NoticeBlock
from pi_tui.tui.widgets.tool_call_block import ToolCallBlock
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
        if widget.children or not all(
            node.display for node in widget.ancestors_with_self if node is not view
        ):
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
        ScriptedReply(
            text="Reading.", tool_calls=[ScriptedToolCall(name="read", arguments={"path": "notes.txt"})]
        ),
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
    assert resumed == live


def resumed_app(tmp_path: Path, pi_fixtures: Path, name: str) -> Any:
    """A chat on a copy of one of pi 1.6's sessions (`pi16/sessions/<name>`)."""
    copy = tmp_path / "sessions" / name
    copy.parent.mkdir(parents=True)
    shutil.copy(pi_fixtures / "pi16" / "sessions" / name, copy)
    app, _, _ = make_chat_app(tmp_path, [], store=SessionStore.open(copy))
    return app


def test_a_tool_call_runs_from_its_reply_s_end_to_its_result() -> None:
    call = AssistantMessage(timestamp=10_000, duration_ms=500)
    assert tool_seconds(call, ToolResultMessage(tool_call_id="a", tool_name="bash", timestamp=10_900)) == 0.4
    measured = ToolResultMessage(tool_call_id="a", tool_name="bash", timestamp=10_900, duration_ms=1_234)
    assert tool_seconds(call, measured) == 1.234  # pi 1.6's own figure, where it wrote one
    unknown = AssistantMessage(timestamp=10_000)  # written before pi 1.6: no `durationMs`
    assert (
        tool_seconds(unknown, ToolResultMessage(tool_call_id="a", tool_name="bash", timestamp=10_900)) is None
    )


async def test_resumed_pi16_tool_calls_show_how_long_they_ran(tmp_path: Path, pi_fixtures: Path) -> None:
    app = resumed_app(tmp_path, pi_fixtures, "b-tools.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        heads = [str(block.query("Static").first().render()) for block in app.screen.query(ToolCallBlock)]
    # The results' `durationMs` (7, 38, 10, 53, 37, 22, 10 and 1 ms); the last two calls failed.
    statuses = [head.rsplit("[", 1)[1] for head in heads]
    assert statuses == [
        "done 0.0s]",
        "done 0.0s]",
        "done 0.0s]",
        "done 0.1s]",
        "done 0.0s]",
        "done 0.0s]",
        "error 0.0s]",
        "error 0.0s]",
    ]


async def test_a_resumed_retry_shows_how_it_went(tmp_path: Path, pi_fixtures: Path) -> None:
    app = resumed_app(tmp_path, pi_fixtures, "g-overflow-retry.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        notices = [str(notice.render()) for notice in app.screen.query(NoticeBlock)]
    error_503 = '503: {"message":"Service temporarily unavailable","type":"fake"}'
    # The overflow goes to a compaction, not to a retry; the 429 and the 503 were retried.
    assert notices == [
        "Compacted 1,442 → ? tokens (whole request)",
        f"Retry 1 failed: {error_503}",
        "Retry 2 succeeded.",
    ]


def test_retries_that_ran_out_end_with_the_last_failure() -> None:
    def failed(code: int) -> AssistantMessage:
        return AssistantMessage(stop_reason="error", error_message=f"{code} Service Unavailable")

    messages = [
        UserMessage(content="hi", timestamp=1),
        failed(503),
        failed(502),
        UserMessage(content="?", timestamp=2),
    ]
    notes = retry_notes(messages)
    assert [(str(note.render()), note.has_class("-error")) for note in notes.values()] == [
        ("Retry failed after 1 attempts: 502 Service Unavailable", True)
    ]


def test_the_compaction_note_reads_alike_live_and_resumed() -> None:
    live = compaction_note(estimated(CompactionSize(1_200, 400)))
    assert live == "Compacted ~1,200 → ~400 (-67%) tokens (whole request)"
    assert compaction_note(ShownSize(1_200, 400, "estimate")) == live


def test_an_aborted_reply_is_previewed_with_its_text_and_the_conversation_s_marker() -> None:
    aborted = AssistantMessage(
        content=[TextContent(text="Half an answer")],
        stop_reason="aborted",
        error_message="Request was aborted.",
    )
    assert message_line(aborted).text == "Half an answer Aborted."
