"""Overflow recovery and restore end to end through the real openai client and the loopback server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pi_tui.config.settings import CompactionSettings, RetrySettings, Settings
from pi_tui.session.session_events import AnyEvent, CompactionEndEvent
from pi_tui.session_file.entries import CompactionEntry
from tests.session.test_agent_session_retry import make_session, write_models
from tests.support.openai_server import ErrorReply, OpenAIServer, StreamReply, text_reply

OVERFLOW_TEXT = (
    "This model's maximum context length is 32000 tokens. Please reduce the length of the messages."
)
OVERFLOW_BODY = {"error": {"message": OVERFLOW_TEXT}}


def texts(body: dict[str, Any]) -> str:
    return str(body["messages"])


SMALL_KEEP = Settings(
    compaction=CompactionSettings(reserve_tokens=1000, keep_recent_tokens=50),
    retry=RetrySettings(enabled=False),
)
"""Keeps so little that the early turn is summarised when the late question overflows."""


def enqueue_overflow_after_an_early_turn(server: OpenAIServer, summary: StreamReply) -> None:
    """An early answer, the late question's overflow, the summary call's reply, the recovered answer.
    The cut keeps the early answer, so only the early question is summarised (a split turn with no
    older history: one call for the turn prefix)."""
    server.enqueue(
        text_reply("EARLY-ANSWER " * 60),
        ErrorReply(400, OVERFLOW_BODY),
        summary,
        text_reply("recovered after compaction"),
    )


async def test_overflow_compacts_continues_and_restore_brings_history_back(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    write_models(openai_server, "primary")
    settings = SMALL_KEEP
    enqueue_overflow_after_an_early_turn(
        openai_server, text_reply("## Original Request\nThe early question.")
    )
    openai_server.enqueue(text_reply("answer with the full history"))
    session = make_session(tmp_path, settings)
    events: list[AnyEvent] = []
    session.subscribe(events.append)
    await session.prompt("EARLY-QUESTION " * 60)

    await session.prompt("the late question")

    ends = [event for event in events if isinstance(event, CompactionEndEvent)]
    assert [(event.reason, event.will_retry) for event in ends] == [("overflow", True)]
    assert session.last_assistant_text() == "recovered after compaction"
    continued = openai_server.requests[3].body
    assert "compacted into the following summary" in texts(continued)
    assert "EARLY-QUESTION" not in texts(continued)
    assert len(openai_server.requests) == 4

    [compaction] = [entry for entry in session.store.entries if isinstance(entry, CompactionEntry)]
    restored = await session.restore_compaction(compaction.id)
    assert restored.error is None
    await session.prompt("again, with everything")

    final = openai_server.requests[-1].body
    assert "EARLY-QUESTION" in texts(final) and "compacted into the following summary" not in texts(final)
    assert session.last_assistant_text() == "answer with the full history"
