"""Two turns that reuse a tool-call id (a local server numbers calls `call_1_0` again after a restart):
every view shows each call with its own output, live and rebuilt from the session."""

from __future__ import annotations

from pathlib import Path

from pi_tui.ai.call_pairing import CallPairing, results_by_key
from pi_tui.ai.messages import AgentMessage, AssistantMessage, TextContent, ToolCall, ToolResultMessage
from pi_tui.ai.scripted import ScriptedReply, ScriptedToolCall
from pi_tui.session_file.entries import MessageEntry
from pi_tui.tui.screens.chat import ChatScreen
from pi_tui.tui.tool_calls import ToolCallLog
from pi_tui.tui.widgets.conversation import ConversationView
from pi_tui.tui.widgets.tool_call_block import ToolCallBlock
from pi_tui.tui.widgets.tool_list import ToolList
from pi_tui.tui.widgets.tool_output_viewer import ToolOutputViewer
from tests.support.waiting import until

from .chat_fixtures import make_chat_app
from .pilot_helpers import settle, submit

SIZE = (160, 48)
REUSED = "call_1_0"


def turn(timestamp: int, call: ToolCall, output: str) -> list[AgentMessage]:
    return [
        AssistantMessage(content=[call], stop_reason="toolUse", timestamp=timestamp),
        ToolResultMessage(
            tool_call_id=call.id, tool_name=call.name, content=[TextContent(text=output)], timestamp=timestamp
        ),
    ]


def two_turns(first_time: int = 1000, second_time: int = 2000) -> list[AgentMessage]:
    read = ToolCall(id=REUSED, name="read", arguments={"path": "notes.txt"})
    bash = ToolCall(id=REUSED, name="bash", arguments={"command": "echo second"})
    return [*turn(first_time, read, "the notes"), *turn(second_time, bash, "second")]


def test_the_log_keeps_two_calls_with_one_id_apart() -> None:
    calls = ToolCallLog.from_messages(two_turns()).calls()
    assert [(call.id, call.name, call.model_text) for call in calls] == [
        (REUSED, "read", "the notes"),
        (REUSED, "bash", "second"),
    ]
    assert len({call.key for call in calls}) == 2


def test_replies_without_a_time_are_kept_apart_by_their_calls() -> None:
    """A file written by another program may carry no message times."""
    calls = ToolCallLog.from_messages(two_turns(0, 0)).calls()
    assert [call.model_text for call in calls] == ["the notes", "second"]


def test_a_result_answers_the_latest_calls_only() -> None:
    """As the model's context pairs them: a result after a reply without calls answers none."""
    messages = two_turns()
    messages.insert(2, AssistantMessage(content=[TextContent(text="no calls")], timestamp=1500))
    messages.insert(3, messages[1])  # the first result again, after a reply that made no call
    pairing = CallPairing()
    results = results_by_key(messages, pairing)
    assert sorted(result.text for result in results.values()) == ["second", "the notes", "the notes"]
    assert pairing.answered(REUSED) is not None and pairing.answered("other") is None


def tool_tail(block: ToolCallBlock) -> str:
    return str(block.query_one(".tool-tail").render())


async def test_the_conversation_and_the_tools_pane_show_each_call_its_own_output(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "notes.txt").write_text("the notes\n")
    replies = [
        ScriptedReply(tool_calls=[ScriptedToolCall(name="read", arguments={"path": "notes.txt"}, id=REUSED)]),
        ScriptedReply(text="read it"),
        ScriptedReply(
            tool_calls=[ScriptedToolCall(name="bash", arguments={"command": "echo second"}, id=REUSED)]
        ),
        ScriptedReply(text="ran it"),
    ]
    app, session, _ = make_chat_app(tmp_path, replies)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await submit(pilot, "read the notes")
        await submit(pilot, "run it")
        screen = app.screen
        assert isinstance(screen, ChatScreen)
        conversation = screen.query_one(ConversationView)
        viewer = screen.query_one(ToolOutputViewer)

        async def check(when: str) -> None:
            blocks = list(conversation.query_children(ToolCallBlock))
            assert [(block.tool_call_id, block.tool_name) for block in blocks] == [
                (REUSED, "read"),
                (REUSED, "bash"),
            ], when
            await until(lambda: "second" in tool_tail(blocks[1]), pilot=pilot, what=f"the output {when}")
            assert "the notes" in tool_tail(blocks[0]) and "second" not in tool_tail(blocks[0]), when
            await until(lambda: len(screen.query_one(ToolList).rows) == 2, what=f"two rows {when}")
            for block, output in zip(blocks, ("the notes", "second"), strict=True):
                await pilot.click(block)  # a click opens the call in the Tools pane
                key = block.call_key
                await until(lambda: viewer.selected == key, pilot=pilot, what=f"selection {when}")  # noqa: B023
                assert output in "\n".join(viewer.line_view.line_text(i) or "" for i in range(3)), when

        await check("live")
        # A move in the tree, a resumed session: both are rebuilt from the session file.
        branch = [entry.message for entry in session.store.get_branch() if isinstance(entry, MessageEntry)]
        await conversation.show_transcript(branch)
        screen.side_panel.reset()
        await settle(pilot)
        await check("rebuilt")
