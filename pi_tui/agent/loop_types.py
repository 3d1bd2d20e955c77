"""What one agent run works on (`AgentContext`) and how it is configured (`LoopConfig`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from pi_tui.agent.events import AgentEvent
from pi_tui.agent.hooks import AfterToolCallHook, BeforeToolCallHook
from pi_tui.agent.tool import AgentTool
from pi_tui.ai.abort import AbortSignal
from pi_tui.ai.messages import AgentMessage, AssistantMessage, ThinkingLevel, ToolResultMessage, UserMessage
from pi_tui.ai.stream import LlmMessage
from pi_tui.config.model_config import ModelConfig

ToolExecutionMode: TypeAlias = Literal["parallel", "sequential"]
DEFAULT_TOOL_EXECUTION: ToolExecutionMode = "parallel"

EventSink: TypeAlias = Callable[[AgentEvent], Awaitable[None]]
"""Receives every event of a run; the loop awaits it before going on."""

ConvertToLlm: TypeAlias = Callable[
    [list[AgentMessage]], Awaitable[Sequence[LlmMessage]] | Sequence[LlmMessage]
]
TransformContext: TypeAlias = Callable[[list[AgentMessage], AbortSignal], Awaitable[list[AgentMessage]]]
GetApiKey: TypeAlias = Callable[[str], Awaitable[str | None] | str | None]
MessageSource: TypeAlias = Callable[[], Awaitable[list[AgentMessage]] | list[AgentMessage]]


def default_convert_to_llm(messages: list[AgentMessage]) -> list[LlmMessage]:
    """pi's `Agent` default: keep user, assistant and toolResult messages, drop every other kind."""
    return [m for m in messages if isinstance(m, UserMessage | AssistantMessage | ToolResultMessage)]


@dataclass
class AgentContext:
    """The run's working transcript. The loop appends to `messages` (a copy of the agent's)."""

    system_prompt: str
    messages: list[AgentMessage]
    tools: list[AgentTool[Any]] = field(default_factory=list)

    def find_tool(self, name: str) -> AgentTool[Any] | None:
        return next((tool for tool in self.tools if tool.name == name), None)


@dataclass
class LoopConfig:
    """Everything `run_loop` needs besides the context: the model, converters, hooks and queue sources."""

    model: ModelConfig
    convert_to_llm: ConvertToLlm = default_convert_to_llm
    transform_context: TransformContext | None = None
    get_api_key: GetApiKey | None = None
    api_key: str | None = None
    reasoning: ThinkingLevel | None = None
    session_id: str | None = None
    max_tokens: int | None = None
    before_tool_call: BeforeToolCallHook | None = None
    after_tool_call: AfterToolCallHook | None = None
    tool_execution: ToolExecutionMode = DEFAULT_TOOL_EXECUTION
    get_steering_messages: MessageSource | None = None
    get_follow_up_messages: MessageSource | None = None
