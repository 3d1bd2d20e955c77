"""Events the session adds to the agent's (pi's coding-agent session events, plus a few of pi-tui's own).

Like agent events they are frozen `PiEvent` dataclasses with a `type` literal, whose `to_json()` gives
pi's shape, so `--mode json` and the TUI bridge treat both kinds alike.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, TypeAlias

from pi_tui.agent.event_json import PiEvent
from pi_tui.agent.events import AgentEvent
from pi_tui.ai.camel_json import json_field
from pi_tui.ai.messages import BashExecutionMessage
from pi_tui.session.compaction_sizes import CompactionSize


@dataclass(frozen=True)
class AutoRetryStartEvent(PiEvent):
    attempt: int
    max_attempts: int
    delay_ms: int
    error_message: str
    type: Literal["auto_retry_start"] = field(default="auto_retry_start", init=False)


@dataclass(frozen=True)
class AutoRetryEndEvent(PiEvent):
    success: bool
    attempt: int
    final_error: str | None = None
    type: Literal["auto_retry_end"] = field(default="auto_retry_end", init=False)


@dataclass(frozen=True)
class ModelFallbackEvent(PiEvent):
    """Beyond pi: retries on one model are exhausted and the same input goes to the next model."""

    from_model: str
    to_model: str
    error_message: str
    type: Literal["model_fallback"] = field(default="model_fallback", init=False)


@dataclass(frozen=True)
class ProviderNoticeEvent(PiEvent):
    """Beyond pi: something the provider's request had to do that the user should know once, e.g. that
    thinking without a signature went as text, so the provider's cache may miss from there."""

    text: str
    type: Literal["provider_notice"] = field(default="provider_notice", init=False)


@dataclass(frozen=True)
class CacheWarmedEvent(PiEvent):
    """A one-token cache refresh was sent and recorded (`entry_id`: its `usage` entry, `cost` its price;
    pi 1.6's `Cache warmed: $…` transcript line when `showCacheMissNotices` is on)."""

    entry_id: str
    cost: float
    type: Literal["cache_warmed"] = field(default="cache_warmed", init=False)


@dataclass(frozen=True)
class CacheMissEvent(PiEvent):
    """pi 1.6's cache-miss notice (`showCacheMissNotices`): the reply re-billed cached tokens."""

    text: str
    missed_tokens: int
    missed_cost: float
    type: Literal["cache_miss"] = field(default="cache_miss", init=False)


@dataclass(frozen=True)
class ContextEditedEvent(PiEvent):
    """The user hid, replaced or restored an entry of the context (`entry_id`: the `context_edit`)."""

    entry_id: str
    target_id: str
    action: str
    type: Literal["context_edited"] = field(default="context_edited", init=False)


NOTICE_DIAGNOSTICS = frozenset({"anthropic_unsigned_thinking"})
"""Reply diagnostics whose `message` the session says to the user (`ProviderNoticeEvent`)."""


@dataclass(frozen=True)
class QueueUpdateEvent(PiEvent):
    """The texts waiting in the steering and follow-up queues changed (pi's `queue_update`)."""

    steering: tuple[str, ...]
    follow_up: tuple[str, ...]
    type: Literal["queue_update"] = field(default="queue_update", init=False)


@dataclass(frozen=True)
class SessionInfoChangedEvent(PiEvent):
    """The session was named (or its name cleared: `name` is None, left out of the JSON)."""

    name: str | None = None
    type: Literal["session_info_changed"] = field(default="session_info_changed", init=False)


@dataclass(frozen=True)
class ModelChangedEvent(PiEvent):
    """The user picked another model (`set_model`); `thinking_level` is the level after re-clamping."""

    provider: str
    model_id: str
    thinking_level: str
    type: Literal["model_changed"] = field(default="model_changed", init=False)


@dataclass(frozen=True)
class ThinkingLevelChangedEvent(PiEvent):
    thinking_level: str
    type: Literal["thinking_level_changed"] = field(default="thinking_level_changed", init=False)


@dataclass(frozen=True)
class SystemPromptChangedEvent(PiEvent):
    """The system prompt was rebuilt with different text (tools changed, or a resource on reload)."""

    reason: Literal["tools", "reload"]
    type: Literal["system_prompt_changed"] = field(default="system_prompt_changed", init=False)


@dataclass(frozen=True)
class BashStartEvent(PiEvent):
    """A user `!cmd` / `!!cmd` started."""

    command: str
    exclude_from_context: bool
    type: Literal["bash_start"] = field(default="bash_start", init=False)


@dataclass(frozen=True)
class BashOutputEvent(PiEvent):
    """The current sanitised preview of a running user command (coalesced, at most ~10 per second)."""

    command: str
    output: str
    type: Literal["bash_output"] = field(default="bash_output", init=False)


@dataclass(frozen=True)
class BashEndEvent(PiEvent):
    """A user command finished; `pending` = held until the next prompt because the agent was running."""

    message: BashExecutionMessage
    pending: bool
    type: Literal["bash_end"] = field(default="bash_end", init=False)


@dataclass(frozen=True)
class SessionTreeEvent(PiEvent):
    """The leaf moved by tree navigation (pi's `session_tree`); `summary_entry_id` if a summary was added."""

    new_leaf_id: str | None
    old_leaf_id: str | None
    summary_entry_id: str | None = None
    type: Literal["session_tree"] = field(default="session_tree", init=False)


@dataclass(frozen=True)
class BranchSummaryStartEvent(PiEvent):
    """Beyond pi: a tree move summarises the branch it leaves (`entries`: how many entries it covers)."""

    entries: int
    type: Literal["branch_summary_start"] = field(default="branch_summary_start", init=False)


@dataclass(frozen=True)
class BranchSummaryEndEvent(PiEvent):
    """The branch summary call is over: written, cancelled (`aborted`) or failed (`error_message`)."""

    aborted: bool = False
    error_message: str | None = None
    type: Literal["branch_summary_end"] = field(default="branch_summary_end", init=False)


@dataclass(frozen=True)
class ApprovalRequestedEvent(PiEvent):
    """Beyond pi: approval mode asks the user whether a call may run (`call`: what it would do, one line)."""

    tool_call_id: str
    tool_name: str
    call: str
    type: Literal["approval_requested"] = field(default="approval_requested", init=False)


ApprovalOutcome: TypeAlias = Literal["yes", "no", "always", "aborted"]


@dataclass(frozen=True)
class ApprovalAnsweredEvent(PiEvent):
    """The question is over: answered, or closed by an abort (`aborted`)."""

    tool_call_id: str
    answer: ApprovalOutcome
    type: Literal["approval_answered"] = field(default="approval_answered", init=False)


CompactionReasonName: TypeAlias = Literal["manual", "threshold", "overflow"]


@dataclass(frozen=True)
class CompactionStartEvent(PiEvent):
    """`recompacts`: beyond pi, the id of the compaction whose span is being summarised again."""

    reason: CompactionReasonName
    recompacts: str | None = None
    type: Literal["compaction_start"] = field(default="compaction_start", init=False)


@dataclass(frozen=True)
class CompactionResult(PiEvent):
    """pi's `CompactionResult` (`tokens_before` is pi's figure), plus the entry id and the whole
    request's size before and after, the figures front ends show (see `compaction_sizes`). Fields in
    pi's key order, the size spread as `requestTokensBefore` / `requestTokensAfter`."""

    summary: str
    first_kept_entry_id: str
    tokens_before: int
    size: CompactionSize = field(metadata=json_field(spread=True))
    entry_id: str


@dataclass(frozen=True)
class CompactionEndEvent(PiEvent):
    reason: CompactionReasonName
    result: CompactionResult | None = None
    aborted: bool = False
    will_retry: bool = False
    error_message: str | None = None
    type: Literal["compaction_end"] = field(default="compaction_end", init=False)


SessionEvent: TypeAlias = (
    CompactionStartEvent
    | CompactionEndEvent
    | AutoRetryStartEvent
    | AutoRetryEndEvent
    | ModelFallbackEvent
    | ProviderNoticeEvent
    | CacheWarmedEvent
    | ContextEditedEvent
    | CacheMissEvent
    | QueueUpdateEvent
    | SessionInfoChangedEvent
    | ModelChangedEvent
    | ThinkingLevelChangedEvent
    | SystemPromptChangedEvent
    | BashStartEvent
    | BashOutputEvent
    | BashEndEvent
    | SessionTreeEvent
    | BranchSummaryStartEvent
    | BranchSummaryEndEvent
    | ApprovalRequestedEvent
    | ApprovalAnsweredEvent
)
AnyEvent: TypeAlias = AgentEvent | SessionEvent
