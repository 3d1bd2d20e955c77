"""Every event's `to_json()` is pinned, key order included, by a golden file (`--mode json` output).

The golden was written from the hand-written `to_json` methods the events had before they shared one
encoder, so it proves the shared encoder gives the same bytes. After adding a sample for a new event,
write the golden again with `python -m tests.agent.test_event_json` and check the diff by eye.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

from pi_tui.agent import event_json
from pi_tui.agent import events as agent
from pi_tui.agent.tool import ToolResult
from pi_tui.ai import messages as m
from pi_tui.ai.stream import StreamEvent
from pi_tui.session import session_events as session
from pi_tui.session.compaction_sizes import CompactionSize

GOLDEN = Path(__file__).parent.parent / "fixtures" / "event_json" / "every_event.json"
MODULES = (agent, session)


class _Diff(BaseModel):
    """A tool's details as a pydantic model (camelCase aliases, as pi's details are)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    first_changed_line: int
    diff: str


USAGE = m.Usage(
    input=1200,
    output=85,
    cache_read=800,
    cache_write=0,
    total_tokens=2085,
    cost=m.Cost(input=0.0036, output=0.001275, cache_read=0.00024, total=0.005115),
)
USER = m.UserMessage(content="list the files in src/", timestamp=1_733_222_000_000)
USER_BLOCKS = m.UserMessage(
    content=[
        m.TextContent(text="what is in this picture?"),
        m.ImageContent(data="iVBORw0K", mime_type="image/png"),
    ],
    timestamp=1_733_222_000_100,
)
CLAUDE: dict[str, Any] = {"api": "anthropic-messages", "provider": "anthropic", "model": "claude-sonnet-4-5"}
GPT_4O: dict[str, Any] = {"api": "openai-completions", "provider": "openai", "model": "gpt-4o"}
CALL = m.ToolCall(id="call_01", name="ls", arguments={"path": "src/"})
EDIT_CALL = m.ToolCall(
    id="toolu_02", name="edit", arguments={"path": "a.py", "edits": [{"old": "x", "new": "y"}]}
)
STREAMING = m.AssistantMessage(
    content=[m.TextContent(text="Let me look")],
    **CLAUDE,
    timestamp=1_733_222_001_000,
)
THINKING = m.AssistantMessage(
    content=[
        m.ThinkingContent(thinking="The user wants a listing.", thinking_signature="sig=="),
        m.TextContent(text=""),
    ],
    **CLAUDE,
    timestamp=1_733_222_001_000,
)
WITH_CALL = m.AssistantMessage(
    content=[m.TextContent(text="Let me look."), CALL],
    **GPT_4O,
    usage=USAGE,
    stop_reason="toolUse",
    timestamp=1_733_222_001_000,
    response_id="chatcmpl-123",
)
FINAL = m.AssistantMessage(
    content=[m.TextContent(text="src/ holds main.py and util.py.")],
    **GPT_4O,
    usage=USAGE,
    stop_reason="stop",
    timestamp=1_733_222_003_000,
    duration_ms=1840,
)
FAILED = m.AssistantMessage(
    content=[],
    api="openai-responses",
    provider="openai",
    model="gpt-5",
    stop_reason="error",
    timestamp=1_733_222_004_000,
    error_message="429 Too Many Requests: rate limit reached",
)
EMPTY = m.AssistantMessage(**GPT_4O, timestamp=1_733_222_001_000)
TOOL_RESULT = m.ToolResultMessage(
    tool_call_id="call_01",
    tool_name="ls",
    content=[m.TextContent(text="main.py\nutil.py")],
    details={"entryLimitReached": False},
    timestamp=1_733_222_002_000,
)
TOOL_ERROR = m.ToolResultMessage(
    tool_call_id="toolu_02",
    tool_name="edit",
    content=[m.TextContent(text="Could not find the text to replace in a.py")],
    is_error=True,
    duration_ms=12,
    timestamp=1_733_222_002_500,
)
BASH = m.BashExecutionMessage(
    command="git status --short",
    output=" M src/main.py\n",
    exit_code=0,
    timestamp=1_733_222_005_000,
)
BASH_EXCLUDED = m.BashExecutionMessage(
    command="sleep 100",
    output="",
    cancelled=True,
    timestamp=1_733_222_006_000,
    exclude_from_context=True,
)
COMPACTED = session.CompactionResult(
    entry_id="c0ffee01",
    summary="## Goal\nList the files.\n\n## Progress\nDone.",
    first_kept_entry_id="a1b2c3d4",
    tokens_before=58_211,
    size=CompactionSize(before=61_004, after=3_190),
)


def _update(message: m.AssistantMessage, kind: Any, **step: Any) -> agent.MessageUpdateEvent:
    return agent.MessageUpdateEvent(message, StreamEvent(kind, message, **step))


SAMPLES: list[tuple[str, Any]] = [
    ("agent_start", agent.AgentStartEvent()),
    ("agent_end", agent.AgentEndEvent([USER, WITH_CALL, TOOL_RESULT, FINAL])),
    ("agent_end_tuple", agent.AgentEndEvent((USER_BLOCKS, FAILED))),
    ("agent_end_empty", agent.AgentEndEvent([])),
    ("turn_start", agent.TurnStartEvent()),
    ("turn_end_with_tools", agent.TurnEndEvent(WITH_CALL, [TOOL_RESULT, TOOL_ERROR])),
    ("turn_end_no_tools", agent.TurnEndEvent(FINAL, [])),
    ("message_start_user", agent.MessageStartEvent(USER)),
    ("message_start_assistant", agent.MessageStartEvent(EMPTY)),
    ("update_start", _update(EMPTY, "start")),
    ("update_text_start", _update(STREAMING, "text_start", content_index=0)),
    ("update_text_delta", _update(STREAMING, "text_delta", content_index=0, delta=" look")),
    ("update_text_delta_no_index", _update(STREAMING, "text_delta", delta="k")),
    ("update_delta_none", _update(STREAMING, "text_delta", content_index=0)),
    ("update_text_end", _update(WITH_CALL, "text_end", content_index=0)),
    ("update_thinking_start", _update(THINKING, "thinking_start", content_index=0)),
    ("update_thinking_delta", _update(THINKING, "thinking_delta", content_index=0, delta="listing.")),
    ("update_thinking_end", _update(THINKING, "thinking_end", content_index=0)),
    ("update_toolcall_start", _update(WITH_CALL, "toolcall_start", content_index=1)),
    ("update_toolcall_delta", _update(WITH_CALL, "toolcall_delta", content_index=1, delta='{"path":')),
    ("update_toolcall_end", _update(WITH_CALL, "toolcall_end", content_index=1)),
    ("update_end_out_of_range", _update(STREAMING, "text_end", content_index=3)),
    ("update_done", agent.MessageUpdateEvent(FINAL, StreamEvent("done", FINAL, message=FINAL))),
    ("update_done_partial_only", _update(FINAL, "done")),
    ("update_error", agent.MessageUpdateEvent(FAILED, StreamEvent("error", EMPTY, message=FAILED))),
    ("message_end_assistant", agent.MessageEndEvent(WITH_CALL)),
    ("message_end_tool_result", agent.MessageEndEvent(TOOL_ERROR)),
    ("message_end_bash", agent.MessageEndEvent(BASH)),
    ("tool_start", agent.ToolExecutionStartEvent("call_01", "ls", {"path": "src/"})),
    ("tool_start_nested_args", agent.ToolExecutionStartEvent("toolu_02", "edit", dict(EDIT_CALL.arguments))),
    (
        "tool_update",
        agent.ToolExecutionUpdateEvent("b1", "bash", {"command": "make"}, ToolResult.text("cc -c a.c\n")),
    ),
    (
        "tool_update_empty",
        agent.ToolExecutionUpdateEvent(
            "b1", "bash", {"command": "make"}, ToolResult(content=[], details=None)
        ),
    ),
    (
        "tool_end_details",
        agent.ToolExecutionEndEvent(
            "call_01", "ls", ToolResult.text("main.py\nutil.py", details={"entryLimitReached": False}), False
        ),
    ),
    (
        "tool_end_model_details",
        agent.ToolExecutionEndEvent(
            "toolu_02",
            "edit",
            ToolResult.text("Replaced 1 block.", details=_Diff(first_changed_line=3, diff="-x\n+y")),
            False,
        ),
    ),
    ("tool_end_error", agent.ToolExecutionEndEvent("toolu_02", "edit", ToolResult.error("not found"), True)),
    (
        "tool_end_terminate",
        agent.ToolExecutionEndEvent(
            "d1",
            "done",
            ToolResult(
                content=[m.TextContent(text="ok"), m.ImageContent(data="R0lG", mime_type="image/gif")],
                terminate=True,
            ),
            False,
        ),
    ),
    ("auto_retry_start", session.AutoRetryStartEvent(1, 3, 2000, "529 overloaded_error")),
    ("auto_retry_end_ok", session.AutoRetryEndEvent(True, 2)),
    ("auto_retry_end_failed", session.AutoRetryEndEvent(False, 3, "529 overloaded_error")),
    (
        "model_fallback",
        session.ModelFallbackEvent("anthropic/claude-sonnet-4-5", "openai/gpt-4o", "overloaded"),
    ),
    ("provider_notice", session.ProviderNoticeEvent("Thinking without a signature went as text.")),
    ("cache_warmed", session.CacheWarmedEvent("e5f6a7b8", 0.00042)),
    ("cache_miss", session.CacheMissEvent("Cache miss: 41,200 tokens re-billed", 41_200, 0.1236)),
    ("context_edited", session.ContextEditedEvent("ed17ed17", "a1b2c3d4", "hide")),
    ("queue_update", session.QueueUpdateEvent(("stop after this",), ("then run the tests", "and commit"))),
    ("queue_update_empty", session.QueueUpdateEvent((), ())),
    ("session_named", session.SessionInfoChangedEvent("refactor events")),
    ("session_name_cleared", session.SessionInfoChangedEvent(None)),
    ("model_changed", session.ModelChangedEvent("openai", "gpt-5", "medium")),
    ("thinking_level_changed", session.ThinkingLevelChangedEvent("high")),
    ("system_prompt_changed", session.SystemPromptChangedEvent("tools")),
    ("bash_start", session.BashStartEvent("git status --short", False)),
    ("bash_output", session.BashOutputEvent("make", "cc -c a.c\ncc -c b.c\n")),
    ("bash_end", session.BashEndEvent(BASH, False)),
    ("bash_end_pending", session.BashEndEvent(BASH_EXCLUDED, True)),
    ("session_tree", session.SessionTreeEvent("b2", "a1")),
    ("session_tree_root", session.SessionTreeEvent(None, "a1", "5u33a4y1")),
    ("branch_summary_start", session.BranchSummaryStartEvent(12)),
    ("branch_summary_end", session.BranchSummaryEndEvent()),
    ("branch_summary_end_failed", session.BranchSummaryEndEvent(error_message="401 Unauthorized")),
    ("branch_summary_end_aborted", session.BranchSummaryEndEvent(aborted=True)),
    ("approval_requested", session.ApprovalRequestedEvent("b1", "bash", "rm -rf build/")),
    ("approval_answered", session.ApprovalAnsweredEvent("b1", "always")),
    ("compaction_start", session.CompactionStartEvent("threshold")),
    ("compaction_start_recompacts", session.CompactionStartEvent("manual", "c0ffee00")),
    ("compaction_result", COMPACTED),
    ("compaction_end", session.CompactionEndEvent("threshold", COMPACTED)),
    ("compaction_end_retry", session.CompactionEndEvent("overflow", COMPACTED, will_retry=True)),
    ("compaction_end_aborted", session.CompactionEndEvent("manual", aborted=True)),
    ("compaction_end_failed", session.CompactionEndEvent("manual", error_message="summary call failed")),
]


def _text(obj: Any) -> str:
    return json.dumps(obj, indent=1, ensure_ascii=False)


def _golden() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(GOLDEN.read_text(encoding="utf-8"))
    return loaded


@pytest.mark.parametrize(("name", "event"), SAMPLES, ids=[name for name, _ in SAMPLES])
def test_to_json_matches_golden(name: str, event: Any) -> None:
    assert _text(event.to_json()) == _text(_golden()[name])


def test_sample_names_are_unique_and_all_in_the_golden() -> None:
    names = [name for name, _ in SAMPLES]
    assert len(names) == len(set(names))
    assert sorted(names) == sorted(_golden())


def _event_classes(module: ModuleType) -> list[type]:
    return [
        cls
        for _, cls in inspect.getmembers(module, inspect.isclass)
        if dataclasses.is_dataclass(cls) and cls.__module__ == module.__name__
    ]


def test_every_event_class_has_a_sample() -> None:
    classes = {cls for module in MODULES for cls in _event_classes(module)}
    sampled = {type(event) for _, event in SAMPLES}
    assert len(classes) > 30
    assert classes - sampled == set()


def test_no_event_class_writes_its_own_json() -> None:
    for module in MODULES:
        for cls in _event_classes(module):
            assert issubclass(cls, event_json.PiEvent), cls
            assert "to_json" not in vars(cls), cls


def _write_golden() -> None:
    GOLDEN.parent.mkdir(parents=True, exist_ok=True)
    GOLDEN.write_text(_text({name: event.to_json() for name, event in SAMPLES}) + "\n", encoding="utf-8")


if __name__ == "__main__":
    _write_golden()
