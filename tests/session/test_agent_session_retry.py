"""Failure handling of AgentSession against the loopback server: retries with backoff, Retry-After,
cancellation, and the fallback chain."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from pi_tui.ai.messages import AssistantMessage
from pi_tui.config.models import resolve_model
from pi_tui.config.settings import RetrySettings, Settings
from pi_tui.context.resources import load_resources
from pi_tui.session.agent_session import AgentSession, SessionConfig
from pi_tui.session.session_events import AnyEvent, AutoRetryEndEvent, AutoRetryStartEvent, ModelFallbackEvent
from pi_tui.session_file.store import SessionStore
from tests.support.conversation import conversation_entries, roles
from tests.support.openai_server import ErrorReply, OpenAIServer, text_reply

FAST = RetrySettings(base_delay_ms=10, max_delay_ms=200, max_retries=3)


def write_models(server: OpenAIServer, *model_ids: str) -> None:
    home = Path(os.environ["PI_TUI_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    provider = {
        "baseUrl": server.base_url,
        "apiKey": "loopback-key",
        "api": "openai-completions",
        "models": [{"id": model_id, "contextWindow": 32000} for model_id in model_ids],
    }
    (home / "models.json").write_text(json.dumps({"providers": {"local": provider}}))


def make_session(tmp_path: Path, settings: Settings, model_ref: str = "local/primary") -> AgentSession:
    resolution = resolve_model(model_ref)
    assert resolution.model is not None
    store = SessionStore.create(str(tmp_path), tmp_path / "sessions")
    return AgentSession(
        SessionConfig(
            store=store,
            resources=load_resources(tmp_path, settings=settings, home=tmp_path),
            model=resolution.model,
            api_key=resolution.api_key,
        )
    )


def record(session: AgentSession) -> list[AnyEvent]:
    events: list[AnyEvent] = []
    session.subscribe(events.append)
    return events


def overloaded(status: int = 429, **headers: str) -> ErrorReply:
    return ErrorReply(status, {"error": {"message": "Rate limit exceeded"}}, headers)


async def test_three_429s_then_success(openai_server: OpenAIServer, tmp_path: Path) -> None:
    write_models(openai_server, "primary")
    openai_server.enqueue(overloaded(), overloaded(), overloaded(), text_reply("finally"))
    session = make_session(tmp_path, Settings(retry=FAST))
    events = record(session)

    await session.prompt("hello")

    starts = [event for event in events if isinstance(event, AutoRetryStartEvent)]
    assert [(event.attempt, event.delay_ms) for event in starts] == [(1, 10), (2, 20), (3, 40)]
    assert "429" in starts[0].error_message
    assert [event for event in events if isinstance(event, AutoRetryEndEvent)] == [
        AutoRetryEndEvent(success=True, attempt=3)
    ]
    assert session.last_assistant_text() == "finally"
    # Every attempt re-sent the same input; failed replies were never replayed.
    bodies = [request.body["messages"] for request in openai_server.requests]
    assert all(body == bodies[0] for body in bodies)
    # The failures stay in the file, the agent's state holds only the good reply.
    assert roles(session.agent.state.messages) == ["user", "assistant"]
    stored = conversation_entries(session.store.entries)
    stored_stops = [
        entry.message.stop_reason for entry in stored if isinstance(entry.message, AssistantMessage)
    ]
    assert stored_stops == ["error", "error", "error", "stop"]


async def test_retry_after_is_honoured_up_to_the_cap(openai_server: OpenAIServer, tmp_path: Path) -> None:
    write_models(openai_server, "primary")
    openai_server.enqueue(
        overloaded(**{"retry-after": "0.05"}), overloaded(**{"retry-after": "30"}), text_reply("ok")
    )
    session = make_session(tmp_path, Settings(retry=FAST))
    events = record(session)

    await session.prompt("hello")

    delays = [event.delay_ms for event in events if isinstance(event, AutoRetryStartEvent)]
    assert delays == [50, 200]


async def test_retries_exhausted_fall_back_to_the_next_model(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    write_models(openai_server, "primary", "backup")
    server_error = ErrorReply(500, {"error": {"message": "internal error"}})
    openai_server.enqueue(server_error, server_error, text_reply("from the backup"))
    settings = Settings(retry=RetrySettings(base_delay_ms=1, max_retries=1), fallback_models=["local/backup"])
    session = make_session(tmp_path, settings)
    events = record(session)

    await session.prompt("hello")

    fallback = [event for event in events if isinstance(event, ModelFallbackEvent)]
    assert fallback == [ModelFallbackEvent("local/primary", "local/backup", "500 internal error")]
    assert [request.body["model"] for request in openai_server.requests] == ["primary", "primary", "backup"]
    assert session.last_assistant_text() == "from the backup"
    changes = [
        (entry.provider, entry.model_id) for entry in session.store.entries if entry.type == "model_change"
    ]
    assert changes == [("local", "primary"), ("local", "backup")]


async def test_a_fallback_chain_that_loops_ends(openai_server: OpenAIServer, tmp_path: Path) -> None:
    write_models(openai_server, "primary", "backup")
    server_error = ErrorReply(503, {"error": {"message": "service unavailable"}})
    openai_server.enqueue(*[server_error] * 4)
    settings = Settings(
        retry=RetrySettings(base_delay_ms=1, max_retries=1),
        fallback_models=["local/backup", "local/primary", "local/backup"],
    )
    session = make_session(tmp_path, settings)

    await session.prompt("hello")

    assert [request.body["model"] for request in openai_server.requests] == [
        "primary",
        "primary",
        "backup",
        "backup",
    ]
    last = session.last_assistant_message()
    assert last is not None and last.stop_reason == "error"


async def test_abort_cancels_the_retry_wait(openai_server: OpenAIServer, tmp_path: Path) -> None:
    write_models(openai_server, "primary")
    openai_server.enqueue(overloaded())
    session = make_session(tmp_path, Settings(retry=RetrySettings(base_delay_ms=60_000)))
    events = record(session)
    waiting = asyncio.Event()
    session.subscribe(lambda event: waiting.set() if isinstance(event, AutoRetryStartEvent) else None)

    async def abort_when_waiting() -> None:
        await waiting.wait()
        session.abort()

    await asyncio.wait_for(asyncio.gather(session.prompt("hello"), abort_when_waiting()), timeout=10)

    assert events[-1] == AutoRetryEndEvent(success=False, attempt=1, final_error="Retry cancelled")
    assert len(openai_server.requests) == 1


@pytest.mark.parametrize("status", [401, 404])
async def test_non_transient_errors_are_not_retried(
    openai_server: OpenAIServer, tmp_path: Path, status: int
) -> None:
    write_models(openai_server, "primary")
    openai_server.enqueue(ErrorReply(status, {"error": {"message": "nope"}}))
    session = make_session(tmp_path, Settings(retry=FAST))

    await session.prompt("hello")

    assert len(openai_server.requests) == 1
    last = session.last_assistant_message()
    assert last is not None and last.error_message == f"{status} nope"
