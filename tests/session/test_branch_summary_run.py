"""Tree navigation with and without a branch summary (pi's `/tree`), against the loopback server: which
entries are summarised, the exact request, the entry written, what the model sees next, and the events
that say a summary is being written."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from pi_tui.ai.messages import AssistantMessage, BranchSummaryMessage, UserMessage
from pi_tui.context.compaction.prompts import (
    BRANCH_SUMMARY_PREAMBLE,
    BRANCH_SUMMARY_PROMPT,
    NO_BRANCH_CONTENT,
    SUMMARIZATION_SYSTEM_PROMPT,
)
from pi_tui.session.agent_session import AgentSession
from pi_tui.session.branch_summary_run import collect_entries_for_branch_summary
from pi_tui.session.session_events import (
    BranchSummaryEndEvent,
    BranchSummaryStartEvent,
    QueueUpdateEvent,
    SessionInfoChangedEvent,
    SessionTreeEvent,
)
from pi_tui.session.tree_navigation import TreeNavigationError
from pi_tui.session_file.entries import BranchSummaryEntry, LabelEntry, MessageEntry
from pi_tui.session_file.store import SessionStore
from tests.session.test_agent_session_controls import PLAIN, make_session, read_call, record, write_models
from tests.support.conversation import conversation_entries, roles
from tests.support.openai_server import ErrorReply, OpenAIServer, StreamReply, chunk, text_reply
from tests.support.waiting import until


async def two_branches(server: OpenAIServer, tmp_path: Path) -> tuple[AgentSession, list[MessageEntry]]:
    """q1 → a1 → q2 → (read notes.txt) → result → a2; returns the session and its message entries."""
    write_models(server, PLAIN)
    session = make_session(tmp_path)
    (Path(session.store.cwd) / "notes.txt").write_text("alpha\n")
    server.enqueue(text_reply("a1"), read_call("call_1", "notes.txt"), text_reply("a2"))
    await session.prompt("q1")
    await session.prompt("q2")
    messages = conversation_entries(session.store.entries)
    assert [entry.message.role for entry in messages] == [
        "user",
        "assistant",
        "user",
        "assistant",
        "toolResult",
        "assistant",
    ]
    return session, messages


async def test_collect_stops_at_the_common_ancestor(openai_server: OpenAIServer, tmp_path: Path) -> None:
    session, messages = await two_branches(openai_server, tmp_path)
    store = session.store

    collected = collect_entries_for_branch_summary(store, store.leaf_id, messages[1].id)

    assert collected.common_ancestor_id == messages[1].id
    collected_messages = [entry.id for entry in collected.entries if entry.type == "message"]
    assert collected_messages == [entry.id for entry in messages[2:]]
    assert collect_entries_for_branch_summary(store, None, messages[1].id).entries == []


async def test_navigate_with_summary_sends_pi_branch_prompt_and_records_the_summary(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    session, messages = await two_branches(openai_server, tmp_path)
    events = record(session)
    old_leaf = session.store.leaf_id
    abandoned = collect_entries_for_branch_summary(session.store, old_leaf, messages[1].id).entries
    openai_server.enqueue(text_reply("## Goal\nRead the notes."))

    result = await session.navigate_tree(messages[1].id, summarize=True, label="explored")

    request = openai_server.requests[3].body
    # pi 1.6 asks for the model's own output limit, lowered to what the window leaves (0.73.1: 2048).
    assert session.model is not None
    assert "tools" not in request and 2048 < request["max_completion_tokens"] <= session.model.max_tokens
    assert request["messages"][0] == {"role": "system", "content": SUMMARIZATION_SYSTEM_PROMPT}
    conversation = '[User]: q2\n\n[Assistant tool calls]: read(path="notes.txt")\n\n[Assistant]: a2'
    expected = f"<conversation>\n{conversation}\n</conversation>\n\n{BRANCH_SUMMARY_PROMPT}"
    assert [part["text"] for part in request["messages"][1]["content"]] == [expected]

    entry = result.summary_entry
    assert isinstance(entry, BranchSummaryEntry)
    # pi 1.6: `fromId` is the leaf that was left (here the record of the summary call, made there).
    assert entry.parent_id == messages[1].id and entry.from_id != messages[1].id
    assert old_leaf in [each.id for each in session.store.get_branch(entry.from_id)]
    summary = f"{BRANCH_SUMMARY_PREAMBLE}## Goal\nRead the notes.\n\n<read-files>\nnotes.txt\n</read-files>"
    assert entry.summary == summary
    assert entry.details == {"readFiles": ["notes.txt"], "modifiedFiles": []}
    assert result.editor_text is None
    label = session.store.entries[-1]
    assert isinstance(label, LabelEntry) and (label.target_id, label.label) == (entry.id, "explored")
    start, end, moved = events
    assert start == BranchSummaryStartEvent(len(abandoned))
    assert end == BranchSummaryEndEvent()
    assert moved == SessionTreeEvent(session.store.leaf_id, old_leaf, entry.id)
    state = session.agent.state.messages
    assert roles(state) == ["user", "assistant", "branchSummary"]
    assert isinstance(state[-1], BranchSummaryMessage) and state[-1].summary == summary

    openai_server.enqueue(text_reply("back"))
    await session.prompt("q3")
    sent = openai_server.requests[-1].body["messages"]
    assert sent[3]["content"][0]["text"].startswith(
        "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
    )
    reopened = SessionStore.open(session.store.path)  # type: ignore[arg-type]
    assert any(isinstance(item, BranchSummaryEntry) for item in reopened.entries)


async def test_custom_instructions_add_a_focus_or_replace_the_prompt(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    session, messages = await two_branches(openai_server, tmp_path)
    leaf = session.store.leaf_id
    assert leaf is not None
    openai_server.enqueue(text_reply("s1"), text_reply("s2"))

    await session.navigate_tree(messages[1].id, summarize=True, custom_instructions="the file names")
    await session.navigate_tree(leaf, summarize=False)
    await session.navigate_tree(
        messages[1].id, summarize=True, custom_instructions="Only list files.", replace_instructions=True
    )

    first = openai_server.requests[3].body["messages"][1]["content"][0]["text"]
    second = openai_server.requests[4].body["messages"][1]["content"][0]["text"]
    assert first.endswith(f"{BRANCH_SUMMARY_PROMPT}\n\nAdditional focus: the file names")
    assert second.endswith("</conversation>\n\nOnly list files.")


async def test_navigate_without_summary_to_a_user_message_reopens_it(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    session, messages = await two_branches(openai_server, tmp_path)
    count = len(session.store.entries)

    result = await session.navigate_tree(messages[2].id)

    assert result.editor_text == "q2" and result.summary_entry is None
    assert session.store.leaf_id == messages[2].parent_id
    assert len(session.store.entries) == count  # moving the leaf writes nothing
    assert roles(session.agent.state.messages) == ["user", "assistant"]
    assert len(openai_server.requests) == 3

    # The first user message hangs under the model and thinking entries; the leaf goes there.
    root = await session.navigate_tree(messages[0].id)
    assert root.editor_text == "q1" and session.store.leaf_id == messages[0].parent_id
    assert roles(session.agent.state.messages) == []

    openai_server.enqueue(text_reply("fresh"))
    await session.prompt("q1 again")
    first = next(entry for entry in reversed(session.store.entries) if isinstance(entry, MessageEntry))
    assert isinstance(first.message, AssistantMessage)
    new_user = session.store.get_entry(first.parent_id or "")
    assert isinstance(new_user, MessageEntry) and isinstance(new_user.message, UserMessage)
    assert new_user.parent_id == messages[0].parent_id  # a sibling of the first question


async def test_label_without_summary_goes_on_the_target(openai_server: OpenAIServer, tmp_path: Path) -> None:
    session, messages = await two_branches(openai_server, tmp_path)
    await session.navigate_tree(messages[3].id, label="tool call")
    assert session.store.get_label(messages[3].id) == "tool call"


async def test_nothing_to_summarise_and_errors(openai_server: OpenAIServer, tmp_path: Path) -> None:
    session, messages = await two_branches(openai_server, tmp_path)
    leaf = session.store.leaf_id
    assert leaf is not None
    # From a1 back to the leaf nothing is abandoned: no call, no entry.
    await session.navigate_tree(messages[1].id)
    result = await session.navigate_tree(leaf, summarize=True)
    assert result.summary_entry is None and len(openai_server.requests) == 3

    # Only a label is abandoned: pi's "No content to summarize", still without a call.
    session.store.append_label(leaf, "done")
    result = await session.navigate_tree(messages[5].id, summarize=True)
    assert result.summary_entry is not None and result.summary_entry.summary == NO_BRANCH_CONTENT
    assert len(openai_server.requests) == 3

    with pytest.raises(TreeNavigationError, match="not found"):
        await session.navigate_tree("deadbeef")


async def test_a_failed_summary_call_moves_nothing(openai_server: OpenAIServer, tmp_path: Path) -> None:
    session, messages = await two_branches(openai_server, tmp_path)
    leaf = session.store.leaf_id
    openai_server.enqueue(ErrorReply(400, {"error": {"message": "bad request"}}))

    events = record(session)

    with pytest.raises(TreeNavigationError, match="bad request"):
        await session.navigate_tree(messages[1].id, summarize=True)

    assert [type(event) for event in events] == [BranchSummaryStartEvent, BranchSummaryEndEvent]
    end = events[-1]
    assert isinstance(end, BranchSummaryEndEvent) and not end.aborted
    assert end.error_message is not None and "bad request" in end.error_message
    assert session.store.leaf_id == leaf
    assert len(roles(session.agent.state.messages)) == 6


async def test_navigate_to_the_current_leaf_is_a_no_op(openai_server: OpenAIServer, tmp_path: Path) -> None:
    session, _ = await two_branches(openai_server, tmp_path)
    events = record(session)
    leaf = session.store.leaf_id
    assert leaf is not None
    result = await session.navigate_tree(leaf, summarize=True)
    assert (result.cancelled, result.summary_entry, events) == (False, None, [])


async def test_aborting_the_summary_cancels_the_navigation(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    session, messages = await two_branches(openai_server, tmp_path)
    leaf = session.store.leaf_id
    count = len(session.store.entries)
    openai_server.enqueue(StreamReply([chunk(content="partial")], stall_after=1))
    events = record(session)

    async def abort_once_requested() -> None:
        await until(lambda: len(openai_server.requests) == 4)
        session.abort()

    result, _ = await asyncio.wait_for(
        asyncio.gather(session.navigate_tree(messages[1].id, summarize=True), abort_once_requested()),
        timeout=10,
    )

    assert result.cancelled and result.summary_entry is None
    assert [type(event) for event in events] == [BranchSummaryStartEvent, BranchSummaryEndEvent]
    assert events[-1] == BranchSummaryEndEvent(aborted=True)
    assert session.store.leaf_id == leaf and len(session.store.entries) == count
    assert len(roles(session.agent.state.messages)) == 6


def test_branch_summary_events_serialise() -> None:
    assert BranchSummaryStartEvent(4).to_json() == {"type": "branch_summary_start", "entries": 4}
    assert BranchSummaryEndEvent(error_message="no").to_json() == {
        "type": "branch_summary_end",
        "aborted": False,
        "errorMessage": "no",
    }


def test_session_events_serialise_in_pi_shape() -> None:
    assert SessionTreeEvent("b", "a").to_json() == {
        "type": "session_tree",
        "newLeafId": "b",
        "oldLeafId": "a",
    }
    assert QueueUpdateEvent(("s",), ()).to_json() == {
        "type": "queue_update",
        "steering": ["s"],
        "followUp": [],
    }
    assert SessionInfoChangedEvent(None).to_json() == {"type": "session_info_changed"}
    assert SessionInfoChangedEvent("x").to_json() == {"type": "session_info_changed", "name": "x"}
