"""A request no compaction can make fit, through the real openai client and the loopback server: the
session reports it at once (the event the TUI shows as an error line) and never asks for a summary of an
empty conversation; a silent overflow after a recovery is reported, not compacted again."""

from __future__ import annotations

from pathlib import Path

from pi_tui.ai.messages import UserMessage
from pi_tui.config.models import resolve_model
from pi_tui.config.settings import CompactionSettings, RetrySettings, Settings
from pi_tui.context.compaction.triggers import OVERFLOW_RECOVERY_FAILED
from pi_tui.context.resources import load_resources
from pi_tui.session.agent_session import AgentSession, SessionConfig
from pi_tui.session.session_events import AnyEvent, CompactionEndEvent, CompactionStartEvent
from pi_tui.session_file.store import SessionStore
from tests.support import faults
from tests.support.cli_process import write_local_models
from tests.support.conversation import conversation_entries
from tests.support.openai_server import OpenAIServer, StreamReply, chunk, text_reply, usage

WINDOW = 1024
LONG_PROMPT = "word " * 3000
"""15,000 characters: about 3,750 tokens by pi's estimate, far above the window."""


def write_small_window(server: OpenAIServer) -> None:
    write_local_models(server, {"id": "small", "contextWindow": WINDOW, "maxTokens": 256})


def make_session(tmp_path: Path, compaction: CompactionSettings) -> AgentSession:
    resolution = resolve_model("local/small")
    assert resolution.model is not None
    settings = Settings(compaction=compaction, retry=RetrySettings(enabled=False))
    return AgentSession(
        SessionConfig(
            store=SessionStore.create(str(tmp_path), tmp_path / "sessions"),
            resources=load_resources(tmp_path, settings=settings, home=tmp_path),
            model=resolution.model,
            api_key=resolution.api_key,
        )
    )


def accepted(text: str, prompt_tokens: int) -> StreamReply:
    """A server serving more than models.json says: it answers and reports the prompt it took."""
    reported = chunk(no_choices=True, usage=usage(prompt_tokens, 5))
    return StreamReply([chunk(content=text), chunk(finish_reason="stop"), reported])


def record(session: AgentSession) -> list[AnyEvent]:
    events: list[AnyEvent] = []
    session.subscribe(events.append)
    return events


def summary_requests(server: OpenAIServer) -> int:
    return sum("condense conversations" in str(request.body["messages"][0]) for request in server.requests)


async def test_a_refused_first_prompt_is_reported_without_a_summary_call(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    write_small_window(openai_server)
    openai_server.enqueue(faults.context_overflow(), text_reply("an invented summary"), text_reply("again"))
    session = make_session(tmp_path, CompactionSettings())
    events = record(session)

    await session.prompt(LONG_PROMPT)

    assert openai_server.faults_served == ["overflow"]
    assert len(openai_server.requests) == 1 and summary_requests(openai_server) == 0
    assert not [event for event in events if isinstance(event, CompactionStartEvent)]
    [end] = [event for event in events if isinstance(event, CompactionEndEvent)]
    assert end.reason == "overflow" and end.result is None and not end.will_retry
    notice = end.error_message or ""
    assert notice.startswith("Context overflow: the request is about ")
    assert "(estimated)" in notice and "local/small's context window is 1,024 tokens" in notice
    assert "Shorten the prompt" in notice
    stored = [entry.message for entry in conversation_entries(session.store.entries)]
    assert isinstance(stored[0], UserMessage) and stored[0].content[0].text == LONG_PROMPT  # type: ignore[union-attr]


async def test_an_accepted_prompt_above_the_window_is_reported_with_the_counted_size(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    write_small_window(openai_server)
    openai_server.enqueue(accepted("an answer", 3000), text_reply("an invented summary"), accepted("x", 3000))
    session = make_session(tmp_path, CompactionSettings())
    events = record(session)

    await session.prompt(LONG_PROMPT)

    assert len(openai_server.requests) == 1 and summary_requests(openai_server) == 0
    [end] = [event for event in events if isinstance(event, CompactionEndEvent)]
    notice = end.error_message or ""
    assert notice.startswith("Context overflow: the request is 3,000 tokens (as the provider counted it)")
    assert "raise contextWindow in models.json" in notice
    assert session.last_assistant_text() == "an answer"

    # The next prompt is sent without the same notice again before it; its reply is over the threshold,
    # which is told once as a threshold that cannot compact.
    openai_server.replies[:] = [accepted("second answer", 900)]
    await session.prompt("short")
    ends = [event for event in events if isinstance(event, CompactionEndEvent)]
    assert [event.reason for event in ends] == ["overflow", "threshold"]
    assert (ends[1].error_message or "").startswith("Auto-compaction cannot run: nothing older than")
    assert session.last_assistant_text() == "second answer"


async def test_a_threshold_with_nothing_older_is_told_once_without_a_summary_call(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    write_small_window(openai_server)
    openai_server.enqueue(
        accepted("fits", 900), accepted("fits again", 910), text_reply("an invented summary")
    )
    session = make_session(tmp_path, CompactionSettings(reserve_tokens=200))
    events = record(session)

    await session.prompt("a question")
    await session.prompt("another")

    assert len(openai_server.requests) == 2 and summary_requests(openai_server) == 0
    assert not [event for event in events if isinstance(event, CompactionStartEvent)]
    [end] = [event for event in events if isinstance(event, CompactionEndEvent)]
    assert end.reason == "threshold" and end.result is None
    assert end.error_message == (
        "Auto-compaction cannot run: nothing older than the kept 256 recent tokens"
        " (compaction.keepRecentTokens, unset: a quarter of the window at most)."
        " To let it run: lower compaction.keepRecentTokens, or use a model with a larger window."
    )


async def test_a_second_silent_overflow_after_a_recovery_is_reported(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    write_small_window(openai_server)
    openai_server.enqueue(
        accepted("first answer", 100),
        accepted("too big", 3000),
        text_reply("## Goal\nThe first question."),
        accepted("still too big", 3000),
        text_reply("## Goal\nsummary of a summary"),
        accepted("never asked for", 3000),
    )
    session = make_session(tmp_path, CompactionSettings(reserve_tokens=200, keep_recent_tokens=50))
    events = record(session)
    await session.prompt("a first question")

    await session.prompt(LONG_PROMPT)

    ends = [event for event in events if isinstance(event, CompactionEndEvent)]
    assert [(end.reason, end.result is not None, end.error_message) for end in ends] == [
        ("overflow", True, None),
        ("overflow", False, OVERFLOW_RECOVERY_FAILED),
    ]
    assert len(openai_server.requests) == 4 and summary_requests(openai_server) == 1
