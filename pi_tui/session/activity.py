"""What the session is doing right now, folded from its events, for a front end's status line.

`ActivityTracker.apply` takes every event in order (cheap: no rendering) and `current` says what is under
way: waiting for a reply's first token, thinking, writing the reply or a tool call, the user's approval of
a call, running tools, a retry's countdown, a compaction, a branch summary or a user shell command; None
when idle. Times come from the tracker's clock, so a front end computes elapsed seconds with the same clock
on its own timer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

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
from pi_tui.ai.messages import AssistantMessage, ThinkingContent, ToolCall
from pi_tui.context.compaction.token_estimate import estimate_tokens
from pi_tui.session.session_events import (
    AnyEvent,
    ApprovalAnsweredEvent,
    ApprovalRequestedEvent,
    AutoRetryEndEvent,
    AutoRetryStartEvent,
    BashEndEvent,
    BashStartEvent,
    BranchSummaryEndEvent,
    BranchSummaryStartEvent,
    CompactionEndEvent,
    CompactionReasonName,
    CompactionStartEvent,
)

ReplyPhase: TypeAlias = Literal["waiting", "thinking", "writing", "calling"]
ActivityKind: TypeAlias = Literal[
    "waiting",
    "thinking",
    "writing",
    "calling",
    "approval",
    "tools",
    "retry",
    "compaction",
    "branch_summary",
    "user_shell",
]


@dataclass(frozen=True)
class RunningTool:
    name: str
    args: dict[str, Any]
    started: float


@dataclass(frozen=True)
class Activity:
    """One thing under way. `started`: when it began (the tracker's clock); `output_tokens`: the run's
    output so far (reported usage, else estimated from the streamed content); the rest depends on `kind`."""

    kind: ActivityKind
    started: float
    output_tokens: int = 0
    tools: tuple[RunningTool, ...] = ()
    """`tools`: the calls running, oldest first."""
    name: str = ""
    """`calling`: the tool whose call is being written; `approval`: the tool and what its call would do;
    `user_shell`: the command, with its `!` or `!!`."""
    compaction: CompactionReasonName | None = None
    recompacting: bool = False
    attempt: int = 0
    """`retry`: the attempt waited for, of `max_attempts` (the countdown is the conversation's retry line)."""
    max_attempts: int = 0


def reply_tokens(message: AssistantMessage) -> int:
    """Output tokens of a reply: what the provider reported, else ceil(chars / 4) of what streamed."""
    return message.usage.output or estimate_tokens(message)


def reply_phase(message: AssistantMessage) -> tuple[ReplyPhase, str]:
    """What a streaming reply is producing now: its newest block decides (and a call names its tool)."""
    if not message.content:
        return "waiting", ""
    block = message.content[-1]
    if isinstance(block, ThinkingContent):
        return "thinking", ""
    if isinstance(block, ToolCall):
        return "calling", block.name
    return "writing", ""


class ActivityTracker:
    """Folds session events into the activity under way; `now` stamps when each part began."""

    def __init__(self, now: Callable[[], float]) -> None:
        self._now = now
        self.reset()

    def reset(self) -> None:
        """Forget everything (another session is shown)."""
        self._run_started: float | None = None
        self._phase: ReplyPhase = "waiting"
        self._phase_name = ""
        self._phase_started = 0.0
        self._finished_tokens = 0
        self._streaming_tokens = 0
        self._tools: dict[str, RunningTool] = {}
        self._approvals: dict[str, tuple[ApprovalRequestedEvent, float]] = {}
        self._retry: AutoRetryStartEvent | None = None
        self._retry_started = 0.0
        self._compaction: CompactionStartEvent | None = None
        self._compaction_started = 0.0
        self._branch_summary_started: float | None = None
        self._shell: BashStartEvent | None = None
        self._shell_started = 0.0

    def apply(self, event: AnyEvent) -> None:
        if isinstance(event, AgentStartEvent):
            self._retry = None
            self._run_started = self._now()
            self._finished_tokens = self._streaming_tokens = 0
            self._phase, self._phase_name, self._phase_started = "waiting", "", self._run_started
        elif isinstance(event, AgentEndEvent):
            self._run_started = None
            self._tools.clear()
            self._approvals.clear()
        elif isinstance(event, TurnStartEvent):
            self._set_phase("waiting")
        elif isinstance(event, MessageStartEvent | MessageUpdateEvent) and isinstance(
            event.message, AssistantMessage
        ):
            self._streaming_tokens = reply_tokens(event.message)
            self._set_phase(*reply_phase(event.message))
        elif isinstance(event, MessageEndEvent) and isinstance(event.message, AssistantMessage):
            self._finished_tokens += reply_tokens(event.message)
            self._streaming_tokens = 0
            self._set_phase("waiting")
        elif isinstance(event, ToolExecutionStartEvent):
            self._tools[event.tool_call_id] = RunningTool(event.tool_name, event.args, self._now())
        elif isinstance(event, ToolExecutionEndEvent):
            self._tools.pop(event.tool_call_id, None)
            if not self._tools:
                self._set_phase("waiting")
        else:
            self._apply_session_event(event)

    def _apply_session_event(self, event: AnyEvent) -> None:
        if isinstance(event, ApprovalRequestedEvent):
            self._approvals[event.tool_call_id] = (event, self._now())
        elif isinstance(event, ApprovalAnsweredEvent):
            self._approvals.pop(event.tool_call_id, None)
        elif isinstance(event, AutoRetryStartEvent):
            self._retry, self._retry_started = event, self._now()
        elif isinstance(event, AutoRetryEndEvent):
            self._retry = None
        elif isinstance(event, CompactionStartEvent):
            self._compaction, self._compaction_started = event, self._now()
        elif isinstance(event, CompactionEndEvent):
            self._compaction = None
        elif isinstance(event, BranchSummaryStartEvent):
            self._branch_summary_started = self._now()
        elif isinstance(event, BranchSummaryEndEvent):
            self._branch_summary_started = None
        elif isinstance(event, BashStartEvent):
            self._shell, self._shell_started = event, self._now()
        elif isinstance(event, BashEndEvent):
            self._shell = None

    def _set_phase(self, phase: ReplyPhase, name: str = "") -> None:
        if (phase, name) != (self._phase, self._phase_name):
            self._phase, self._phase_name, self._phase_started = phase, name, self._now()

    @property
    def current(self) -> Activity | None:
        """The most specific thing under way: a compaction, a branch summary or a retry hold everything
        else up; a question to the user comes before the tools (its call has started but waits for the
        answer); running tools come before a user command, which comes before the reply's phase."""
        tokens = self._finished_tokens + self._streaming_tokens if self._run_started is not None else 0
        if (compaction := self._compaction) is not None:
            return Activity(
                "compaction",
                self._compaction_started,
                tokens,
                compaction=compaction.reason,
                recompacting=compaction.recompacts is not None,
            )
        if self._branch_summary_started is not None:
            return Activity("branch_summary", self._branch_summary_started)
        if (retry := self._retry) is not None:
            return Activity(
                "retry",
                self._retry_started,
                attempt=retry.attempt,
                max_attempts=retry.max_attempts,
            )
        if self._approvals:
            request, asked = next(iter(self._approvals.values()))
            return Activity("approval", asked, name=f"{request.tool_name} {request.call}".strip())
        if self._tools:
            tools = tuple(sorted(self._tools.values(), key=lambda tool: tool.started))
            return Activity("tools", tools[0].started, tokens, tools=tools)
        if (shell := self._shell) is not None:
            prefix = "!!" if shell.exclude_from_context else "!"
            return Activity("user_shell", self._shell_started, name=prefix + shell.command)
        if self._run_started is not None:
            return Activity(self._phase, self._phase_started, tokens, name=self._phase_name)
        return None
