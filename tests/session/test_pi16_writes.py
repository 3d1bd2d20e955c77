"""pi-tui writes what pi 1.6 writes where pi 1.6 reads it (docs/pi-compatibility.md, "pi 1.6's entries and
fields"): the prompt and tools as system messages, a compaction's `systemMessage` and `usage`, a branch
summary's `usage` and `fromId`, and a `context_edit` for every failed attempt it retries or recovers from."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi_tui.ai.messages import AssistantMessage, SystemMessage, UserMessage
from pi_tui.config.models import resolve_model
from pi_tui.config.settings import Settings
from pi_tui.context.resources import load_resources
from pi_tui.session.agent_session import AgentSession, SessionConfig
from pi_tui.session.session_setup import SECTION_PREFIX
from pi_tui.session_file.entries import (
    BranchSummaryEntry,
    CompactionEntry,
    ContextEditEntry,
)
from pi_tui.session_file.store import SessionError, SessionStore
from pi_tui.session_file.usage_totals import usage_totals
from tests.interop.pi_reference import pi_context
from tests.interop.pi_schema import check_session_lines
from tests.session.test_agent_session_controls import PLAIN, make_session, system_texts
from tests.session.test_agent_session_controls import write_models as write_plain_models
from tests.session.test_agent_session_retry import FAST, overloaded
from tests.session.test_agent_session_retry import make_session as make_retrying_session
from tests.session.test_agent_session_retry import write_models as write_primary_models
from tests.session.test_overflow_loopback import SMALL_KEEP, enqueue_overflow_after_an_early_turn
from tests.support.conversation import conversation_entries, replay_checkpoints, system_entries
from tests.support.openai_server import OpenAIServer, StreamReply, chunk, text_reply, usage


def file_lines(store: SessionStore) -> list[dict[str, Any]]:
    """The session file as pi reads it, every line checked against pi 1.6's format."""
    assert store.path is not None
    lines = store.path.read_text(encoding="utf-8").splitlines()
    check_session_lines(lines)
    return [json.loads(line) for line in lines]


def replayed(store: SessionStore) -> tuple[str, list[str]]:
    """The prompt text and tool names every system message on file leaves in force."""
    prompt, tools = replay_checkpoints(file_lines(store)[1:])
    return prompt, [str(tool["name"]) for tool in tools]


def reply_with_usage(text: str, prompt_tokens: int, completion_tokens: int) -> StreamReply:
    return StreamReply(
        [
            chunk(content=text),
            chunk(finish_reason="stop"),
            chunk(no_choices=True, usage=usage(prompt_tokens, completion_tokens)),
        ]
    )


async def test_the_first_request_declares_the_prompt_and_tools_and_only_changes_follow(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    write_plain_models(openai_server, PLAIN)
    session = make_session(tmp_path)
    openai_server.enqueue(text_reply("one"), text_reply("two"), text_reply("three"), text_reply("four"))

    await session.prompt("first")
    await session.prompt("second")
    [declared] = system_entries(session.store.entries)
    types = [entry["type"] for entry in file_lines(session.store)]
    assert types[:5] == ["session", "model_change", "thinking_level_change", "message", "message"]
    line = file_lines(session.store)[3]["message"]
    assert list(line) == ["role", "content", "sections", "timestamp", "toolsAdded"]  # pi 1.6's key order
    assert line["content"] == "" and all(name.startswith(SECTION_PREFIX) for name in line["sections"])
    assert replayed(session.store) == (
        system_texts(openai_server)[0],
        ["read", "bash", "edit", "write"],
    )
    assert declared.id == conversation_entries(session.store.entries)[0].parent_id

    # A tool change writes only what changed: the tool removed, the sections that name it.
    await session.set_active_tools(["read", "bash"])
    await session.prompt("third")
    first, change = system_entries(session.store.entries)
    extra = change.message.model_extra or {}
    assert extra["toolsRemoved"] == [{"name": "edit"}, {"name": "write"}] and "toolsAdded" not in extra
    assert set(extra["sections"]) < set((first.message.model_extra or {})["sections"])
    assert replayed(session.store) == (system_texts(openai_server)[2], ["read", "bash"])

    # A prompt that did not change writes nothing more.
    await session.prompt("fourth")
    assert len(system_entries(session.store.entries)) == 2


async def test_reload_with_a_new_context_file_patches_the_sections(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    write_plain_models(openai_server, PLAIN)
    session = make_session(tmp_path)
    openai_server.enqueue(text_reply("one"), text_reply("two"))
    await session.prompt("first")
    (Path(session.store.cwd) / "AGENTS.md").write_text("Run the tests before you answer.\n")

    await session.reload()
    await session.prompt("second")

    # The context file's section is new in the middle of the prompt: the sections from there on are
    # cleared, then written again in order (two messages), so the checkpoint reads as the prompt.
    _, cleared, rewritten = system_entries(session.store.entries)
    assert set((cleared.message.model_extra or {})["sections"].values()) == {None}
    sections = (rewritten.message.model_extra or {})["sections"]
    assert any("Run the tests before you answer." in (text or "") for text in sections.values())
    assert "toolsAdded" not in (rewritten.message.model_extra or {})
    prompt, _ = replayed(session.store)
    assert prompt == system_texts(openai_server)[1]


def test_a_session_with_only_a_checkpoint_writes_no_file(tmp_path: Path) -> None:
    store = SessionStore.create(str(tmp_path), tmp_path / "sessions")
    store.append_message(SystemMessage(content="", sections={"a": "b"}, timestamp=1))
    assert not store.is_persisted  # like pi 1.6: no file before the conversation starts
    store.append_message(UserMessage(content="hello", timestamp=2))
    assert store.is_persisted


async def test_each_retried_failure_is_left_out_with_a_context_edit(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    write_primary_models(openai_server, "primary")
    openai_server.enqueue(overloaded(503), overloaded(429), text_reply("finally"))
    session = make_retrying_session(tmp_path, Settings(retry=FAST))

    await session.prompt("hello")

    entries = session.store.entries
    failed = [
        entry
        for entry in conversation_entries(entries)
        if isinstance(entry.message, AssistantMessage) and entry.message.failed
    ]
    edits = [entry for entry in entries if isinstance(entry, ContextEditEntry)]
    assert len(failed) == 2
    assert [(edit.target_id, edit.replacement) for edit in edits] == [
        (attempt.id, None) for attempt in failed
    ]
    order = [entry.id for entry in entries]
    for attempt, edit in zip(failed, edits, strict=True):  # each written before the next attempt
        assert order.index(attempt.id) < order.index(edit.id)
        assert order.index(edit.id) < order.index(conversation_entries(entries)[-1].id)
    # pi 1.6 reads the same context pi-tui keeps: the prompt and the good reply.
    lines = file_lines(session.store)
    assert [message["role"] for message in pi_context(lines[1:])["messages"]] == [
        "system",
        "user",
        "assistant",
    ]


async def test_overflow_recovery_leaves_the_failed_reply_out_before_compacting(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    write_primary_models(openai_server, "primary")
    settings = SMALL_KEEP
    enqueue_overflow_after_an_early_turn(
        openai_server, reply_with_usage("## Original Request\nThe early question.", 700, 40)
    )
    session = make_retrying_session(tmp_path, settings)
    await session.prompt("EARLY-QUESTION " * 60)

    await session.prompt("the late question")

    entries = session.store.entries
    [overflowed] = [
        entry
        for entry in conversation_entries(entries)
        if isinstance(entry.message, AssistantMessage) and entry.message.failed
    ]
    [edit] = [entry for entry in entries if isinstance(entry, ContextEditEntry)]
    [compaction] = [entry for entry in entries if isinstance(entry, CompactionEntry)]
    assert (edit.target_id, edit.replacement) == (overflowed.id, None)
    order = [entry.id for entry in entries]
    assert order.index(overflowed.id) < order.index(edit.id) < order.index(compaction.id)
    # The compaction carries the prompt in force and what its summary call cost (pi 1.6's fields).
    assert compaction.usage is not None and (compaction.usage.input, compaction.usage.output) == (700, 40)
    assert isinstance(compaction.system_message, SystemMessage)
    checkpoint = compaction.system_message.model_extra or {}
    assert "".join(checkpoint["sections"].values()) == system_texts(openai_server)[0]
    assert [tool["name"] for tool in checkpoint["toolsAdded"]] == ["read", "bash", "edit", "write"]
    raw = next(line for line in file_lines(session.store) if line["type"] == "compaction")
    assert list(raw)[-3:] == ["usage", "fromHook", "systemMessage"]
    assert list(raw["systemMessage"]) == ["role", "content", "sections", "toolsAdded", "timestamp"]
    # The summary call counts in the session's cost, as in pi 1.6.
    totals = usage_totals(entries)
    replies = sum(
        entry.message.usage.input
        for entry in conversation_entries(entries)
        if isinstance(entry.message, AssistantMessage)
    )
    assert totals.input == replies + 700
    # pi 1.6 rebuilds the context without the failed reply: the checkpoint, the summary, the rest.
    as_pi = pi_context(file_lines(session.store)[1:])["messages"]
    assert as_pi[0]["role"] == "system" and as_pi[1]["role"] == "compactionSummary"
    assert not [message for message in as_pi if message.get("stopReason") == "error"]


async def test_a_branch_summary_records_the_left_leaf_and_its_cost(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    write_plain_models(openai_server, PLAIN)
    session = make_session(tmp_path)
    openai_server.enqueue(
        text_reply("a1"), text_reply("a2"), reply_with_usage("The branch tried a2.", 300, 20)
    )
    await session.prompt("q1")
    await session.prompt("q2")
    left_leaf = session.store.leaf_id
    first_answer = conversation_entries(session.store.entries)[1]

    await session.navigate_tree(first_answer.id, summarize=True)

    [summary] = [entry for entry in session.store.entries if isinstance(entry, BranchSummaryEntry)]
    # `fromId` is the leaf that was left (pi 1.6), here the record of the summary call made there.
    assert left_leaf in [entry.id for entry in session.store.get_branch(summary.from_id)]
    assert summary.parent_id == first_answer.id
    assert summary.usage is not None and (summary.usage.input, summary.usage.output) == (300, 20)
    raw = next(line for line in file_lines(session.store) if line["type"] == "branch_summary")
    assert list(raw) == [
        "type",
        "id",
        "parentId",
        "timestamp",
        "fromId",
        "summary",
        "details",
        "usage",
        "fromHook",
    ]
    assert usage_totals(session.store.entries).input >= 300


def test_a_context_edit_must_name_an_entry_of_the_session(tmp_path: Path) -> None:
    store = SessionStore.create(str(tmp_path), tmp_path / "sessions")
    with pytest.raises(SessionError, match="not found"):
        store.append_context_edit("deadbeef")
    assert store.entries == []


async def test_a_new_session_starts_with_the_default_tools_setting(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    write_plain_models(openai_server, PLAIN)
    project = tmp_path / "project"
    project.mkdir()
    resolution = resolve_model("local/plain")
    assert resolution.model is not None
    settings = Settings(default_tools=["-edit", "+grep"])
    session = AgentSession(
        SessionConfig(
            store=SessionStore.create(str(project), tmp_path / "sessions"),
            resources=load_resources(project, settings=settings, home=tmp_path, context_ceiling=project),
            model=resolution.model,
            api_key=resolution.api_key,
        )
    )
    assert [tool.name for tool in session.active_tools] == ["read", "bash", "write", "grep"]
    openai_server.enqueue(text_reply("ok"))
    await session.prompt("hi")
    assert [tool["function"]["name"] for tool in openai_server.requests[0].body["tools"]] == [
        "read",
        "bash",
        "write",
        "grep",
    ]
    assert replayed(session.store)[1] == ["read", "bash", "write", "grep"]
