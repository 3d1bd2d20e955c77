"""`/compact` on a conversation that is all within the kept recent tokens: nothing to summarise, so the
model is not called (the loopback server counts the requests), nothing is written, and the reason is said."""

from __future__ import annotations

from pathlib import Path

from pi_tui.config.models import resolve_model
from pi_tui.config.settings import RetrySettings, Settings
from pi_tui.context.resources import load_resources
from pi_tui.session.agent_session import AgentSession, SessionConfig
from pi_tui.session.session_events import AnyEvent, CompactionEndEvent
from pi_tui.session_file.store import SessionStore
from tests.support.cli_process import write_local_models
from tests.support.openai_server import OpenAIServer, text_reply


async def test_compact_with_nothing_to_summarise_calls_no_model_and_writes_nothing(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    write_local_models(openai_server, {"id": "roomy", "contextWindow": 128_000, "maxTokens": 4_096})
    resolution = resolve_model("local/roomy")
    assert resolution.model is not None
    session = AgentSession(
        SessionConfig(
            store=SessionStore.create(str(tmp_path), tmp_path / "sessions"),
            resources=load_resources(
                tmp_path, settings=Settings(retry=RetrySettings(enabled=False)), home=tmp_path
            ),
            model=resolution.model,
            api_key=resolution.api_key,
        )
    )
    events: list[AnyEvent] = []
    session.subscribe(events.append)
    openai_server.enqueue(text_reply("hello back"), text_reply("an invented summary"))
    await session.prompt("hello")
    assert len(openai_server.requests) == 1
    entries = len(session.store.entries)
    messages = list(session.agent.state.messages)

    outcome = await session.compact()

    assert len(openai_server.requests) == 1  # no summary call
    assert not outcome.ok and outcome.error is not None
    assert outcome.error.startswith(
        "Nothing to compact (session too small): every message is within the newest"
    )
    assert "compaction.keepRecentTokens" in outcome.error
    assert len(session.store.entries) == entries
    assert not [entry for entry in session.store.entries if entry.type == "compaction"]
    assert session.agent.state.messages == messages
    [end] = [event for event in events if isinstance(event, CompactionEndEvent)]
    assert end.result is None and end.error_message == outcome.error
