"""AgentSession controls against the loopback server: system prompt stability and reload, model,
thinking and name entries, active tools, the steering/follow-up queue and session stats."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from pi_tui.config.models import resolve_model
from pi_tui.config.settings import Settings
from pi_tui.context.resources import Resources, load_resources
from pi_tui.session.agent_session import AgentSession, SessionConfig
from pi_tui.session.session_events import (
    AnyEvent,
    ModelChangedEvent,
    QueueUpdateEvent,
    SessionInfoChangedEvent,
    SystemPromptChangedEvent,
    ThinkingLevelChangedEvent,
)
from pi_tui.session_file.entries import ModelChangeEntry, SessionInfoEntry, ThinkingLevelChangeEntry
from pi_tui.session_file.store import SessionStore
from pi_tui.tools.bash import BashTool
from tests.support.cli_process import write_local_models
from tests.support.openai_server import OpenAIServer, StreamReply, chunk, text_reply, tool_call_delta, usage


def write_models(server: OpenAIServer, *models: dict[str, object]) -> None:
    write_local_models(server, *models)


def project_resources(project: Path, home: Path) -> Resources:
    return load_resources(project, settings=Settings(), home=home, context_ceiling=project)


def make_session(tmp_path: Path, model_ref: str = "local/plain") -> AgentSession:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    resolution = resolve_model(model_ref)
    assert resolution.model is not None
    return AgentSession(
        SessionConfig(
            store=SessionStore.create(str(project), tmp_path / "sessions"),
            resources=project_resources(project, tmp_path),
            model=resolution.model,
            api_key=resolution.api_key,
            reload_resources=lambda: project_resources(project, tmp_path),
        )
    )


def record(session: AgentSession) -> list[AnyEvent]:
    events: list[AnyEvent] = []
    session.subscribe(events.append)
    return events


def read_call(call_id: str, path: str) -> StreamReply:
    arguments = json.dumps({"path": path})
    return StreamReply(
        [
            chunk(tool_calls=[tool_call_delta(0, call_id=call_id, name="read", arguments=arguments)]),
            chunk(finish_reason="tool_calls"),
            chunk(no_choices=True, usage=usage(100, 10)),
        ]
    )


def system_texts(server: OpenAIServer) -> list[str]:
    texts = []
    for request in server.requests:
        first = request.body["messages"][0]
        assert first["role"] == "system"
        texts.append(first["content"])
    return texts


PLAIN = {"id": "plain", "contextWindow": 32000}
THINKER = {"id": "thinker", "contextWindow": 64000, "reasoning": True}


async def test_system_prompt_is_byte_identical_until_a_resource_changes_and_reload(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    write_models(openai_server, PLAIN)
    session = make_session(tmp_path)
    project = Path(session.store.cwd)
    (project / "notes.txt").write_text("alpha\n")
    agents = project / "AGENTS.md"
    agents.write_text("Use tabs.\n")
    assert await session.reload() is True  # AGENTS.md appeared after the session was made
    openai_server.enqueue(
        text_reply("one"), read_call("call_1", "notes.txt"), text_reply("two"), text_reply("three")
    )
    events = record(session)

    await session.prompt("first")
    await session.prompt("read notes.txt")
    assert await session.reload() is False  # nothing changed: same prompt, no event
    await session.prompt("third")

    before = system_texts(openai_server)
    assert len(before) == 4 and len(set(before)) == 1
    assert "Use tabs." in before[0]
    assert openai_server.requests[2].body["messages"][-1]["role"] == "tool"
    assert [event for event in events if isinstance(event, SystemPromptChangedEvent)] == []

    agents.write_text("Use spaces.\n")
    openai_server.enqueue(text_reply("four"))
    await session.prompt("fourth")
    assert system_texts(openai_server)[-1] == before[0]  # edited on disk, but not reloaded yet

    assert await session.reload() is True
    openai_server.enqueue(text_reply("five"))
    await session.prompt("fifth")
    after = system_texts(openai_server)[-1]
    assert "Use spaces." in after and "Use tabs." not in after
    assert [event.reason for event in events if isinstance(event, SystemPromptChangedEvent)] == ["reload"]


async def test_set_active_tools_rebuilds_the_prompt_and_the_tool_list(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    write_models(openai_server, PLAIN)
    session = make_session(tmp_path)
    openai_server.enqueue(text_reply("a"), text_reply("b"))
    await session.prompt("one")

    assert await session.set_active_tools(["read", "grep", "nope"]) == ["read", "grep"]
    await session.prompt("two")

    first, second = openai_server.requests
    assert [tool["function"]["name"] for tool in second.body["tools"]] == ["read", "grep"]
    assert first.body["messages"][0]["content"] != second.body["messages"][0]["content"]
    assert "- grep:" in second.body["messages"][0]["content"]


async def test_model_thinking_and_name_are_recorded_as_entries(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    write_models(openai_server, PLAIN, THINKER)
    session = make_session(tmp_path, "local/thinker")
    events = record(session)
    assert session.thinking_level == "medium"

    await session.set_thinking_level("medium")  # unchanged: nothing written
    await session.set_thinking_level("high")
    assert await session.cycle_thinking_level() == "off"
    assert await session.cycle_thinking_level() == "minimal"
    plain = resolve_model("local/plain")
    assert plain.model is not None
    await session.set_model(plain.model, plain.api_key)  # no reasoning: re-clamped to off
    assert await session.cycle_thinking_level() is None
    await session.set_session_name("  refactor parser  ")
    await session.set_session_name("")

    entries = session.store.entries
    thinking = [entry.thinking_level for entry in entries if isinstance(entry, ThinkingLevelChangeEntry)]
    assert thinking == ["medium", "high", "off", "minimal", "off"]
    models = [(entry.provider, entry.model_id) for entry in entries if isinstance(entry, ModelChangeEntry)]
    assert models == [("local", "thinker"), ("local", "plain")]
    names = [entry.name for entry in entries if isinstance(entry, SessionInfoEntry)]
    assert names == ["refactor parser", ""]
    assert session.session_name is None
    assert [type(event) for event in events] == [
        ThinkingLevelChangedEvent,
        ThinkingLevelChangedEvent,
        ThinkingLevelChangedEvent,
        ModelChangedEvent,
        SessionInfoChangedEvent,
        SessionInfoChangedEvent,
    ]
    assert events[3].to_json() == {
        "type": "model_changed",
        "provider": "local",
        "modelId": "plain",
        "thinkingLevel": "off",
    }

    openai_server.enqueue(text_reply("ok"))
    await session.prompt("hi")
    body = openai_server.requests[0].body
    assert body["model"] == "plain" and "reasoning_effort" not in body
    reopened = SessionStore.open(session.store.path)  # type: ignore[arg-type]
    assert reopened.build_context().thinking_level == "off"
    assert reopened.get_session_name() is None


async def test_queue_steer_follow_up_and_clear(openai_server: OpenAIServer, tmp_path: Path) -> None:
    write_models(openai_server, PLAIN)
    session = make_session(tmp_path)
    slow = text_reply("working on it", pieces=6)
    slow.delay_s = 0.05
    openai_server.enqueue(slow, text_reply("steered"), text_reply("followed"))
    events = record(session)
    started = asyncio.Event()
    session.subscribe(lambda event: started.set() if event.type == "message_update" else None)

    async def queue_while_running() -> None:
        await started.wait()
        await session.steer("also check the tests")
        await session.follow_up("then summarise")

    await asyncio.gather(session.prompt("fix the bug"), queue_while_running())

    updates = [event for event in events if isinstance(event, QueueUpdateEvent)]
    assert [(event.steering, event.follow_up) for event in updates] == [
        (("also check the tests",), ()),
        (("also check the tests",), ("then summarise",)),
        ((), ("then summarise",)),
        ((), ()),
    ]
    users = [request.body["messages"][-1]["content"] for request in openai_server.requests]
    assert [part[0]["text"] for part in users] == ["fix the bug", "also check the tests", "then summarise"]
    assert session.queued_texts == ((), ())


async def test_clear_queue_returns_the_undelivered_texts(openai_server: OpenAIServer, tmp_path: Path) -> None:
    write_models(openai_server, PLAIN)
    session = make_session(tmp_path)
    slow = text_reply("long answer", pieces=8)
    slow.delay_s = 0.05
    openai_server.enqueue(slow)
    started = asyncio.Event()
    session.subscribe(lambda event: started.set() if event.type == "message_update" else None)
    taken: list[str] = []

    async def queue_then_take_back() -> None:
        await started.wait()
        await session.steer("one")
        await session.follow_up("two")
        taken.extend(await session.clear_queue())
        session.abort()

    await asyncio.gather(session.prompt("start"), queue_then_take_back())

    assert taken == ["one", "two"]
    assert len(openai_server.requests) == 1
    assert session.queued_texts == ((), ())


async def test_one_queued_message_is_taken_back_and_never_delivered(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    write_models(openai_server, PLAIN)
    session = make_session(tmp_path)
    slow = text_reply("working on it", pieces=6)
    slow.delay_s = 0.05
    openai_server.enqueue(slow, text_reply("steered"), text_reply("followed"))
    events = record(session)
    started = asyncio.Event()
    session.subscribe(lambda event: started.set() if event.type == "message_update" else None)
    taken: list[bool] = []

    async def queue_then_take_one_back() -> None:
        await started.wait()
        await session.steer("drop me")
        await session.steer("keep me")
        await session.follow_up("then summarise")
        taken.append(await session.take_queued("steering", "drop me"))
        taken.append(await session.take_queued("steering", "drop me"))
        taken.append(await session.take_queued("follow_up", "keep me"))

    await asyncio.gather(session.prompt("fix the bug"), queue_then_take_one_back())

    assert taken == [True, False, False]
    updates = [(event.steering, event.follow_up) for event in events if isinstance(event, QueueUpdateEvent)]
    assert updates[3] == (("keep me",), ("then summarise",))
    users = [request.body["messages"][-1]["content"][0]["text"] for request in openai_server.requests]
    assert users == ["fix the bug", "keep me", "then summarise"]
    assert session.queued_texts == ((), ())


async def test_session_stats_count_the_current_context(openai_server: OpenAIServer, tmp_path: Path) -> None:
    write_models(openai_server, PLAIN)
    session = make_session(tmp_path)
    (Path(session.store.cwd) / "a.txt").write_text("x\n")
    openai_server.enqueue(read_call("call_1", "a.txt"), text_reply("done"))

    await session.prompt("read a.txt")

    stats = session.session_stats()
    assert (stats.user_messages, stats.assistant_messages, stats.tool_results, stats.tool_calls) == (
        1,
        2,
        1,
        1,
    )
    assert stats.total_messages == 4  # the prompt checkpoint before the first request is not counted
    assert (stats.input_tokens, stats.output_tokens, stats.total_tokens) == (110, 15, 125)
    assert stats.context_usage is not None and stats.context_usage.context_window == 32000
    assert stats.context_usage.tokens >= 15
    data = stats.to_json()
    assert data["tokens"]["total"] == 125 and data["sessionId"] == session.store.session_id


async def test_reload_applies_new_tool_settings_and_keeps_the_active_set(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    write_models(openai_server, PLAIN)
    session = make_session(tmp_path)
    await session.set_active_tools(["read", "bash"])
    settings_dir = Path(session.store.cwd) / ".pi-tui"
    settings_dir.mkdir()
    (settings_dir / "settings.json").write_text(json.dumps({"tools": {"maxLines": 3}}))
    project = Path(session.store.cwd)
    session._reload_resources = lambda: load_resources(project, home=tmp_path, context_ceiling=project)

    assert await session.reload() is False  # limits changed, the prompt did not

    assert [tool.name for tool in session.agent.state.tools] == ["read", "bash"]
    bash = session.agent.state.tools[1]
    assert isinstance(bash, BashTool) and bash.max_lines == 3
    message = await session.user_bash("seq 1 10")  # 11 lines with the empty one after the last newline
    assert message.truncated and message.output == "8\n9\n10"  # the last 3 of 10 lines, as pi 1.6 counts
