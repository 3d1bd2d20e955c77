"""What a status line says is under way, folded from the session's events: each kind, its start time on
the tracker's clock, the run's output tokens, and nothing once it is over."""

from __future__ import annotations

from pi_tui.agent.events import (
    AgentEndEvent,
    AgentStartEvent,
    MessageEndEvent,
    MessageStartEvent,
    MessageUpdateEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    TurnStartEvent,
)
from pi_tui.agent.tool import ToolResult
from pi_tui.ai.messages import (
    AssistantMessage,
    BashExecutionMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    Usage,
)
from pi_tui.ai.stream import StreamEvent
from pi_tui.session.activity import ActivityTracker
from pi_tui.session.session_events import (
    ApprovalAnsweredEvent,
    ApprovalRequestedEvent,
    AutoRetryEndEvent,
    AutoRetryStartEvent,
    BashEndEvent,
    BashStartEvent,
    BranchSummaryEndEvent,
    BranchSummaryStartEvent,
    CompactionEndEvent,
    CompactionStartEvent,
)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def reply(*blocks: TextContent | ThinkingContent | ToolCall, output: int = 0) -> AssistantMessage:
    return AssistantMessage(
        api="openai-completions", provider="p", model="m", content=list(blocks), usage=Usage(output=output)
    )


def update(message: AssistantMessage) -> MessageUpdateEvent:
    return MessageUpdateEvent(message, StreamEvent("text_delta", message))


def tracker() -> tuple[ActivityTracker, Clock]:
    clock = Clock()
    return ActivityTracker(clock), clock


def test_a_reply_waits_thinks_writes_and_counts_its_tokens() -> None:
    activity, clock = tracker()
    assert activity.current is None
    activity.apply(AgentStartEvent())
    activity.apply(TurnStartEvent())
    assert activity.current is not None and (activity.current.kind, activity.current.started) == (
        "waiting",
        100,
    )

    clock.now = 103
    activity.apply(MessageStartEvent(reply()))
    activity.apply(update(reply(ThinkingContent(thinking="x" * 40))))
    current = activity.current
    assert current is not None and (current.kind, current.started, current.output_tokens) == (
        "thinking",
        103,
        10,
    )

    clock.now = 105
    activity.apply(update(reply(ThinkingContent(thinking="x" * 40), TextContent(text="y" * 40))))
    current = activity.current
    assert current is not None and (current.kind, current.started, current.output_tokens) == (
        "writing",
        105,
        20,
    )

    # Reported usage replaces the estimate once the reply ends; the next turn adds to it.
    activity.apply(MessageEndEvent(reply(TextContent(text="y" * 40), output=70)))
    activity.apply(update(reply(ToolCall(id="c", name="write", arguments={"content": "z" * 80}))))
    current = activity.current
    assert current is not None and (current.kind, current.name) == ("calling", "write")
    assert current.output_tokens > 70

    activity.apply(AgentEndEvent([]))
    assert activity.current is None


def test_tools_run_in_parallel_and_end_one_by_one() -> None:
    activity, clock = tracker()
    activity.apply(AgentStartEvent())
    activity.apply(ToolExecutionStartEvent("a", "bash", {"command": "make"}))
    clock.now = 101
    activity.apply(ToolExecutionStartEvent("b", "read", {"path": "x"}))
    current = activity.current
    assert current is not None and current.kind == "tools" and current.started == 100
    assert [tool.name for tool in current.tools] == ["bash", "read"]

    activity.apply(ToolExecutionEndEvent("a", "bash", ToolResult(), False))
    current = activity.current
    assert current is not None and [(tool.name, tool.started) for tool in current.tools] == [("read", 101)]
    activity.apply(ToolExecutionEndEvent("b", "read", ToolResult(), False))
    assert activity.current is not None and activity.current.kind == "waiting"


def test_a_call_waiting_for_approval_is_not_running_yet() -> None:
    activity, clock = tracker()
    activity.apply(AgentStartEvent())
    activity.apply(ToolExecutionStartEvent("a", "bash", {"command": "rm -rf build"}))
    clock.now = 102
    activity.apply(ApprovalRequestedEvent("a", "bash", "rm -rf build"))
    current = activity.current
    assert current is not None and (current.kind, current.name, current.started) == (
        "approval",
        "bash rm -rf build",
        102,
    )
    clock.now = 109
    activity.apply(ApprovalAnsweredEvent("a", "yes"))
    current = activity.current
    assert current is not None and (current.kind, current.started) == ("tools", 100)

    # A question closed by an abort goes with the run.
    activity.apply(ApprovalRequestedEvent("b", "write", "a.txt (2 lines)"))
    activity.apply(AgentEndEvent([]))
    assert activity.current is None


def test_a_retry_wait_until_the_next_attempt_starts() -> None:
    activity, _ = tracker()
    activity.apply(AutoRetryStartEvent(1, 3, 4000, "503"))
    current = activity.current
    assert current is not None and (current.kind, current.started, current.attempt) == ("retry", 100, 1)
    activity.apply(AgentStartEvent())
    assert activity.current is not None and activity.current.kind == "waiting"
    activity.apply(AgentEndEvent([]))
    activity.apply(AutoRetryStartEvent(2, 3, 4000, "503"))
    activity.apply(AutoRetryEndEvent(success=False, attempt=2, final_error="Retry cancelled"))
    assert activity.current is None


def test_compactions_branch_summaries_and_user_commands() -> None:
    activity, _ = tracker()
    for reason in ("manual", "threshold", "overflow"):
        activity.apply(CompactionStartEvent(reason))
        current = activity.current
        assert current is not None and (current.kind, current.compaction) == ("compaction", reason)
        assert not current.recompacting
        activity.apply(CompactionEndEvent(reason))
        assert activity.current is None
    activity.apply(CompactionStartEvent("manual", recompacts="abc"))
    assert activity.current is not None and activity.current.recompacting
    activity.apply(CompactionEndEvent("manual", aborted=True))

    activity.apply(BranchSummaryStartEvent(3))
    assert activity.current is not None and activity.current.kind == "branch_summary"
    activity.apply(BranchSummaryEndEvent(aborted=True))
    assert activity.current is None

    activity.apply(BashStartEvent("ls", exclude_from_context=True))
    current = activity.current
    assert current is not None and (current.kind, current.name) == ("user_shell", "!!ls")
    activity.apply(BashEndEvent(BashExecutionMessage(command="ls", exit_code=0), pending=False))
    assert activity.current is None


def test_a_compaction_holds_up_a_run_and_reset_forgets_everything() -> None:
    activity, _ = tracker()
    activity.apply(AgentStartEvent())
    activity.apply(CompactionStartEvent("overflow"))
    assert activity.current is not None and activity.current.kind == "compaction"
    activity.apply(CompactionEndEvent("overflow"))
    assert activity.current is not None and activity.current.kind == "waiting"
    activity.reset()
    assert activity.current is None
