"""AgentSessionRuntime: resume with the target project's services, new, fork,
clone, import, the rebind hook, and a session whose cwd is gone."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pi_tui.config.models import resolve_model
from pi_tui.session.agent_session import AgentSession
from pi_tui.session.runtime import (
    NOTHING_TO_CLONE,
    AgentSessionRuntime,
    ReplaceReason,
    RuntimeOptions,
)
from pi_tui.session.store_opening import SessionChoice, SessionCwdMissingError, SessionOpenError, open_store
from pi_tui.session_file.entries import LabelEntry
from pi_tui.session_file.store import SessionError, SessionStore
from tests.session.test_agent_session_controls import PLAIN, write_models
from tests.support.conversation import conversation_entries, roles
from tests.support.openai_server import OpenAIServer, text_reply


def skill(folder: Path, name: str, description: str) -> None:
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n---\nDo it.\n")


def make_project(root: Path, name: str) -> Path:
    """A project with its own AGENTS.md, a project skill and settings naming an extra skill folder."""
    project = root / name
    (project / ".pi-tui").mkdir(parents=True)
    (project / "AGENTS.md").write_text(f"Rules of project {name}.\n")
    skill(project / ".pi-tui" / "skills" / f"{name}-skill", f"{name}-skill", f"Skill of project {name}.")
    skill(project / "extra" / f"{name}-extra", f"{name}-extra", f"Extra skill listed in {name}'s settings.")
    settings = {"skills": ["extra"], "retry": {"maxRetries": 7 if name == "beta" else 1}}
    (project / ".pi-tui" / "settings.json").write_text(json.dumps(settings))
    return project


def options() -> RuntimeOptions:
    resolution = resolve_model("local/plain")
    assert resolution.model is not None
    return RuntimeOptions(model=resolution.model, api_key=resolution.api_key)


def runtime_in(project: Path, sessions: Path) -> AgentSessionRuntime:
    return AgentSessionRuntime(SessionStore.create(str(project), sessions / project.name), options())


def system_prompt(server: OpenAIServer, index: int = -1) -> str:
    content = server.requests[index].body["messages"][0]["content"]
    assert isinstance(content, str)
    return content


async def test_resuming_project_b_from_project_a_loads_b_resources(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    write_models(openai_server, PLAIN)
    alpha, beta = make_project(tmp_path, "alpha"), make_project(tmp_path, "beta")
    sessions = tmp_path / "sessions"
    openai_server.enqueue(text_reply("beta started"), text_reply("alpha here"), text_reply("beta again"))
    in_beta = runtime_in(beta, sessions)
    await in_beta.session.prompt("hello beta")
    beta_file = in_beta.session.store.path
    assert beta_file is not None

    runtime = runtime_in(alpha, sessions)
    await runtime.session.prompt("hello alpha")
    assert "Rules of project alpha." in system_prompt(openai_server)
    replaced: list[tuple[AgentSession, ReplaceReason]] = []
    runtime.on_session_replaced(lambda session, reason: replaced.append((session, reason)))

    session = await runtime.switch_session(beta_file)
    await session.prompt("continue")

    sent = system_prompt(openai_server)
    assert "Rules of project beta." in sent and "Rules of project alpha." not in sent
    assert "beta-skill" in sent and "beta-extra" in sent
    assert "alpha-skill" not in sent and "alpha-extra" not in sent
    assert f"Current working directory: {beta.resolve()}" in sent
    assert sent == system_prompt(openai_server, 0)  # byte-identical to beta's own first request
    assert session.resources.settings.retry.max_retries == 7
    assert runtime.services.cwd == Path(str(beta))
    assert replaced == [(session, "resume")]
    history = [message["role"] for message in openai_server.requests[-1].body["messages"]]
    assert history == ["system", "user", "assistant", "user"]


async def test_subscribers_follow_the_runtime_to_the_new_session(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    write_models(openai_server, PLAIN)
    project = make_project(tmp_path, "alpha")
    runtime = runtime_in(project, tmp_path / "sessions")
    seen: list[str] = []
    runtime.subscribe(lambda event: seen.append(event.type))
    openai_server.enqueue(text_reply("one"), text_reply("two"))
    await runtime.session.prompt("one")
    first_file = runtime.session.store.path

    session = await runtime.new_session()
    seen.clear()
    await session.prompt("two")

    assert "agent_end" in seen
    assert session.store.path is not None and session.store.path != first_file
    assert session.store.path.parent == first_file.parent if first_file else False
    assert roles(session.agent.state.messages) == ["user", "assistant"]


async def test_fork_before_a_user_message_and_clone_at_the_leaf(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    write_models(openai_server, PLAIN)
    project = make_project(tmp_path, "alpha")
    runtime = runtime_in(project, tmp_path / "sessions")
    openai_server.enqueue(text_reply("first answer"), text_reply("second answer"))
    await runtime.session.prompt("first question")
    await runtime.session.prompt("second question")
    original = runtime.session.store
    messages = conversation_entries(original.entries)
    second_user = messages[2]
    original.append_label(messages[1].id, "good answer")

    assert runtime.fork_candidates() == [
        (messages[0].id, "first question"),
        (second_user.id, "second question"),
    ]
    editor_text = await runtime.fork(second_user.id)

    forked = runtime.session.store
    assert editor_text == "second question"
    assert forked.session_id != original.session_id
    assert forked.header.parent_session == str(original.path)
    assert [entry.id for entry in conversation_entries(forked.entries)] == [
        messages[0].id,
        messages[1].id,
    ]
    assert [entry.label for entry in forked.entries if isinstance(entry, LabelEntry)] == ["good answer"]
    assert roles(runtime.session.agent.state.messages) == ["user", "assistant"]
    assert forked.path is not None and forked.path.is_file()

    cloned = (await runtime.clone()).store
    assert cloned.session_id != forked.session_id
    assert [entry.id for entry in conversation_entries(cloned.entries)] == [
        messages[0].id,
        messages[1].id,
    ]

    with pytest.raises(SessionError, match="not a user message"):
        await runtime.fork(messages[1].id)


async def test_fork_at_the_first_message_starts_an_empty_child(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    write_models(openai_server, PLAIN)
    runtime = runtime_in(make_project(tmp_path, "alpha"), tmp_path / "sessions")
    openai_server.enqueue(text_reply("answer"))
    await runtime.session.prompt("only question")
    original = runtime.session.store
    first_user = conversation_entries(original.entries)[0]

    assert await runtime.fork(first_user.id) == "only question"

    child = runtime.session.store
    assert child.header.parent_session == str(original.path)
    assert roles(runtime.session.agent.state.messages) == []
    assert not child.is_persisted  # lazily written like any new session


async def test_clone_of_an_empty_session_is_refused(tmp_path: Path) -> None:
    runtime = AgentSessionRuntime(SessionStore.in_memory(str(tmp_path)), RuntimeOptions(model=None))
    with pytest.raises(SessionError, match=NOTHING_TO_CLONE):
        await runtime.clone()


async def test_import_copies_into_the_session_folder_and_resumes(
    openai_server: OpenAIServer, tmp_path: Path, pi_fixtures: Path
) -> None:
    write_models(openai_server, PLAIN)
    project = make_project(tmp_path, "alpha")
    runtime = runtime_in(project, tmp_path / "sessions")
    source = pi_fixtures / "pi-sessions" / "a-plain.jsonl"
    original = source.read_bytes()

    with pytest.raises(SessionOpenError, match=f"File not found: {tmp_path / 'nope.jsonl'}"):
        await runtime.import_jsonl(tmp_path / "nope.jsonl")
    session = await runtime.import_jsonl(source, cwd_override=str(project))

    assert session.store.path == tmp_path / "sessions" / "alpha" / "a-plain.jsonl"
    # The copy holds the source verbatim: opening writes nothing, even with another model (that is
    # recorded with the next message, as the interop suite checks).
    assert session.store.path.read_bytes() == source.read_bytes()
    assert session.store.cwd == str(project)
    assert session.agent.state.messages == SessionStore.open(source).build_context().messages
    assert source.read_bytes() == original  # the imported file itself is never touched


async def test_a_session_whose_cwd_is_gone_needs_an_override(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    write_models(openai_server, PLAIN)
    gone = make_project(tmp_path, "gone")
    here = make_project(tmp_path, "here")
    openai_server.enqueue(text_reply("before"), text_reply("after"))
    old = runtime_in(gone, tmp_path / "sessions")
    await old.session.prompt("hello")
    path = old.session.store.path
    assert path is not None
    shutil.rmtree(gone)
    runtime = runtime_in(here, tmp_path / "sessions")

    with pytest.raises(SessionCwdMissingError) as missing:
        await runtime.switch_session(path)
    assert str(gone) in str(missing.value) and "--here" in str(missing.value)
    with pytest.raises(SessionCwdMissingError):
        open_store(SessionChoice(session=str(path)), str(here))

    session = await runtime.switch_session(path, cwd_override=str(here))
    await session.prompt("again")
    assert "Rules of project here." in system_prompt(openai_server)
    assert open_store(SessionChoice(session=str(path)), str(here), cwd_override=True).cwd == str(here)


async def test_resume_restores_the_session_model_when_configured(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    write_models(openai_server, PLAIN, {"id": "other", "contextWindow": 64000})
    alpha, beta = make_project(tmp_path, "alpha"), make_project(tmp_path, "beta")
    other = resolve_model("local/other")
    assert other.model is not None
    in_beta = AgentSessionRuntime(
        SessionStore.create(str(beta), tmp_path / "sessions" / "beta"),
        RuntimeOptions(model=other.model, api_key=other.api_key),
    )
    openai_server.enqueue(text_reply("b"), text_reply("a"), text_reply("b2"), text_reply("a2"))
    await in_beta.session.prompt("in beta")
    runtime = runtime_in(alpha, tmp_path / "sessions")
    await runtime.session.prompt("in alpha")
    alpha_file = runtime.session.store.path
    assert in_beta.session.store.path is not None and alpha_file is not None

    await (await runtime.switch_session(in_beta.session.store.path)).prompt("again")
    await (await runtime.switch_session(alpha_file)).prompt("back")

    assert [request.body["model"] for request in openai_server.requests] == [
        "other",
        "plain",
        "other",
        "plain",
    ]


async def test_continuing_a_session_at_startup_uses_its_recorded_model_unless_one_is_asked_for(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    from pi_tui.session.factory import ModelChoice, create_runtime

    write_models(openai_server, PLAIN, {"id": "other", "contextWindow": 64000})
    project = make_project(tmp_path, "alpha")
    other = resolve_model("local/other")
    assert other.model is not None
    first = AgentSessionRuntime(
        SessionStore.create(str(project), tmp_path / "sessions" / "alpha"),
        RuntimeOptions(model=other.model, api_key=other.api_key),
    )
    openai_server.enqueue(text_reply("one"), text_reply("two"), text_reply("three"))
    await first.session.prompt("start with other")
    path = first.session.store.path
    assert path is not None

    # The default model is `plain` (first listed); the session was run with `other`.
    restored = create_runtime(str(project), model=ModelChoice(), choice=SessionChoice(session=str(path)))
    assert restored.runtime is not None
    await restored.runtime.session.prompt("continue")
    explicit = create_runtime(
        str(project), model=ModelChoice(ref="local/plain"), choice=SessionChoice(session=str(path))
    )
    assert explicit.runtime is not None
    await explicit.runtime.session.prompt("switch")

    assert [request.body["model"] for request in openai_server.requests] == ["other", "other", "plain"]
