"""The runtime's connection pool on a keep-alive loopback server: a session's turns share one TCP
connection; `/reload` drops it (without cutting a reply in flight); `dispose()` (quit) closes it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from pi_tui.config.models import resolve_model
from pi_tui.session.runtime import AgentSessionRuntime, RuntimeOptions
from pi_tui.session.session_events import AnyEvent
from pi_tui.session_file.store import SessionStore
from tests.session.test_agent_session_controls import PLAIN, write_models
from tests.support.openai_server import OpenAIServer, StreamReply, chunk, text_reply
from tests.support.waiting import until


@pytest.fixture
def server(keep_alive_server: OpenAIServer) -> OpenAIServer:
    return keep_alive_server


def make_runtime(server: OpenAIServer, tmp_path: Path) -> AgentSessionRuntime:
    write_models(server, PLAIN)
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    resolution = resolve_model("local/plain")
    assert resolution.model is not None
    options = RuntimeOptions(model=resolution.model, api_key=resolution.api_key)
    return AgentSessionRuntime(SessionStore.create(str(project), tmp_path / "sessions"), options)


async def test_five_turns_one_connection_reload_drops_it_dispose_closes_the_pool(
    server: OpenAIServer, tmp_path: Path
) -> None:
    runtime = make_runtime(server, tmp_path)
    for turn in range(5):
        server.enqueue(text_reply(f"answer {turn}"))
        await runtime.session.prompt(f"question {turn}")
        assert runtime.session.last_assistant_text() == f"answer {turn}"
    assert len(server.requests) == 5
    assert server.connections_accepted == 1
    assert server.open_connections == 1

    await runtime.session.reload()
    await until(lambda: server.open_connections == 0, what="the reload to close the idle connection")
    server.enqueue(text_reply("after reload"))
    await runtime.session.prompt("again")
    assert runtime.session.last_assistant_text() == "after reload"
    assert server.connections_accepted == 2

    await runtime.dispose()
    assert runtime.http_pool.closed and runtime.http_pool.open_clients == 0
    await until(lambda: server.open_connections == 0, what="dispose to close the connection")


async def test_a_replaced_session_keeps_the_connection(server: OpenAIServer, tmp_path: Path) -> None:
    runtime = make_runtime(server, tmp_path)
    server.enqueue(text_reply("first"), text_reply("second"))
    await runtime.session.prompt("one")
    await runtime.new_session()
    await runtime.session.prompt("two")
    assert runtime.session.last_assistant_text() == "second"
    assert server.connections_accepted == 1
    await runtime.dispose()


async def test_reload_during_a_reply_lets_it_finish(server: OpenAIServer, tmp_path: Path) -> None:
    runtime = make_runtime(server, tmp_path)
    session = runtime.session
    pieces = [chunk(content=f"part{number} ") for number in range(6)]
    server.enqueue(StreamReply([*pieces, chunk(finish_reason="stop")], delay_s=0.05))
    deltas: list[AnyEvent] = []
    session.subscribe(lambda event: deltas.append(event) if event.type == "message_update" else None)
    prompt = asyncio.create_task(session.prompt("go"))
    await until(lambda: deltas, what="the reply to start streaming")
    await session.reload()
    await prompt
    assert session.last_assistant_text() == " ".join(f"part{number}" for number in range(6))
    await until(lambda: server.open_connections == 0, what="the retired connection to close after the reply")
    await runtime.dispose()
