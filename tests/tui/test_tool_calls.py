"""ToolCallLog: the tool calls of a session, from its transcript and from live agent events."""

from __future__ import annotations

from pathlib import Path

from pi_tui.agent.events import (
    MessageEndEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    ToolExecutionUpdateEvent,
)
from pi_tui.agent.tool import ToolResult
from pi_tui.ai.abort import AbortSignal
from pi_tui.ai.call_pairing import call_key
from pi_tui.ai.messages import AssistantMessage, StopReason, TextContent, ToolCall, ToolResultMessage
from pi_tui.session_file.entries import MessageEntry
from pi_tui.session_file.loader import read_session_file
from pi_tui.tools.bash import BashParams, BashTool
from pi_tui.tui.spill_reader import SpillReader
from pi_tui.tui.tool_calls import LineRange, ToolCallLog, split_notice, summarize_args


def assistant_calling(*calls: ToolCall, stop_reason: StopReason = "toolUse") -> AssistantMessage:
    return AssistantMessage(content=list(calls), stop_reason=stop_reason)


def test_a_pi_session_lists_every_call_with_its_outcome(pi_fixtures: Path) -> None:
    loaded = read_session_file(pi_fixtures / "pi-sessions" / "b-tools.jsonl")
    messages = [entry.message for entry in loaded.entries if isinstance(entry, MessageEntry)]
    calls = ToolCallLog.from_messages(messages).calls()
    assert [call.id for call in calls] == [
        "call_1_0", "call_2_0", "call_3_0", "call_4_0", "call_4_1", "call_6_0", "call_7_0", "call_8_0",
    ]  # fmt: skip
    by_id = {call.id: call for call in calls}
    seq = by_id["call_6_0"]
    assert (seq.name, seq.args_summary, seq.status) == ("bash", "seq 1 100000", "done")
    assert seq.truncated and seq.lines == 100001
    assert seq.shown_range == LineRange(98002, 100001)
    assert seq.spill_path == "/tmp/pi-bash-c4296c8e3df38b1c.log"
    assert seq.notice.startswith("[Showing lines 98002-100001 of 100001.")
    assert seq.preview.startswith("98002\n") and "[Showing" not in seq.preview
    assert by_id["call_7_0"].status == "error"
    assert by_id["call_1_0"].args_summary == "notes.txt"
    assert not by_id["call_1_0"].truncated and by_id["call_1_0"].spill_path is None


def test_counts_of_an_untruncated_result_come_from_its_text() -> None:
    log = ToolCallLog()
    log.add_message(assistant_calling(ToolCall(id="c1", name="ls", arguments={})))
    log.add_message(
        ToolResultMessage(tool_call_id="c1", tool_name="ls", content=[TextContent(text="a\nb\n€")])
    )
    (call,) = log.calls()
    assert (call.status, call.lines, call.bytes, call.truncated) == ("done", 3, 7, False)
    assert call.args_summary == ""


def test_failed_assistant_messages_contribute_no_calls() -> None:
    log = ToolCallLog()
    log.add_message(assistant_calling(ToolCall(id="x", name="bash", arguments={}), stop_reason="aborted"))
    assert log.calls() == []


def test_the_range_is_read_from_the_notice_when_details_are_missing() -> None:
    notice = "[Showing lines 5-9 of 9 (50.0KB limit). Full output: /s/pi-bash-1.log]"
    text = f"tail\n\n{notice}\n\nCommand exited with code 1"
    log = ToolCallLog()
    log.add_message(
        ToolResultMessage(
            tool_call_id="c", tool_name="bash", content=[TextContent(text=text)], details={}, is_error=True
        )
    )
    (call,) = log.calls()
    assert call.shown_range == LineRange(5, 9)
    assert call.spill_path == "/s/pi-bash-1.log"
    assert call.truncated and call.status == "error" and call.lines == 9
    assert split_notice(text) == ("tail", notice)


def test_a_giant_last_line_notice_names_that_one_line() -> None:
    text = "xyz\n\n[Showing last 50.0KB of line 3 (line is 9.5MB). Full output: /s/big.log]"
    log = ToolCallLog()
    log.add_message(ToolResultMessage(tool_call_id="c", tool_name="bash", content=[TextContent(text=text)]))
    assert log.calls()[0].shown_range == LineRange(3, 3)


def test_live_events_move_a_call_from_running_to_done() -> None:
    log = ToolCallLog()
    call_message = assistant_calling(ToolCall(id="c1", name="bash", arguments={"command": "make   test"}))
    log.apply(MessageEndEvent(call_message))
    key = log.apply(ToolExecutionStartEvent("c1", "bash", {"command": "make   test"}))
    assert key == call_key(call_message, 0, call_message.tool_calls[0])
    (call,) = log.calls()
    assert (call.status, call.args_summary, call.model_text) == ("running", "make test", "")
    update = ToolResult.text("1\n2", details={"progress": {"totalLines": 40, "totalBytes": 900}})
    log.apply(ToolExecutionUpdateEvent("c1", "bash", {}, update))
    call = log.calls()[0]
    assert (call.status, call.lines, call.bytes, call.model_text) == ("running", 40, 900, "1\n2")
    log.apply(ToolExecutionEndEvent("c1", "bash", ToolResult.text("boom"), is_error=True))
    call = log.calls()[0]
    assert (call.status, call.model_text, call.lines) == ("error", "boom", 1)


def test_summaries_are_one_short_line() -> None:
    assert summarize_args({"command": "echo a\n  && echo b"}) == "echo a && echo b"
    long = summarize_args({"pattern": "x" * 500})
    assert len(long) == 120 and long.endswith("…")
    assert summarize_args({"limit": 3}) == '{"limit":3}'


async def test_the_shown_range_indexes_the_real_spill_file(tmp_path: Path) -> None:
    """End to end with the real bash tool: the highlighted lines of the spill file are the preview."""
    tool = BashTool(str(tmp_path), spill_dir=tmp_path / "spill")
    result = await tool.execute("c1", BashParams(command="seq 1 3000"), AbortSignal())
    log = ToolCallLog()
    log.apply(ToolExecutionStartEvent("c1", "bash", {"command": "seq 1 3000"}))
    log.apply(ToolExecutionEndEvent("c1", "bash", result, is_error=result.is_error))
    (call,) = log.calls()
    assert call.spill_path is not None and call.shown_range is not None
    assert call.lines == 3000  # as pi 1.6 counts: the final newline starts no line
    reader = SpillReader(call.spill_path)
    await reader.build_index()
    shown = call.shown_range
    lines = await reader.read_lines(shown.start - 1, shown.end - shown.start + 1)
    assert "\n".join(lines) == call.preview
