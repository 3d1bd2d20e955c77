"""The `before_tool_call` / `after_tool_call` hooks and what they receive."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias

from pydantic import BaseModel

from pi_tui.agent.tool import ToolResult
from pi_tui.ai.abort import AbortSignal
from pi_tui.ai.messages import AssistantMessage, ImageContent, TextContent, ToolCall

if TYPE_CHECKING:
    from pi_tui.agent.loop_types import AgentContext


@dataclass(frozen=True)
class BeforeToolCallContext:
    """A validated call about to run. `args` is the tool's parameter model instance."""

    assistant_message: AssistantMessage
    tool_call: ToolCall
    args: BaseModel
    context: AgentContext


@dataclass(frozen=True)
class BeforeToolCallResult:
    """`block=True` answers the call with an error result (`reason`, or `Tool execution was blocked`)."""

    block: bool = False
    reason: str | None = None


@dataclass(frozen=True)
class AfterToolCallContext:
    assistant_message: AssistantMessage
    tool_call: ToolCall
    args: BaseModel
    result: ToolResult
    is_error: bool
    context: AgentContext


@dataclass(frozen=True)
class AfterToolCallResult:
    """Field-by-field override of the result; a field left None keeps the tool's value (no deep merge)."""

    content: list[TextContent | ImageContent] | None = None
    details: Any = None
    is_error: bool | None = None
    terminate: bool | None = None


BeforeToolCallHook: TypeAlias = Callable[
    [BeforeToolCallContext, AbortSignal],
    Awaitable[BeforeToolCallResult | None] | BeforeToolCallResult | None,
]
AfterToolCallHook: TypeAlias = Callable[
    [AfterToolCallContext, AbortSignal],
    Awaitable[AfterToolCallResult | None] | AfterToolCallResult | None,
]
