"""The agent's state and how its own events change it (pi's "internal reduction")."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pi_tui.agent.events import (
    AgentEndEvent,
    AgentEvent,
    MessageEndEvent,
    MessageStartEvent,
    MessageUpdateEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    TurnEndEvent,
)
from pi_tui.agent.tool import AgentTool
from pi_tui.ai.messages import AgentMessage, AssistantMessage, ThinkingLevel
from pi_tui.config.model_config import ModelConfig


class AgentState:
    """What the agent knows. `messages` and `tools` are copied on assignment; runtime fields are read-only.

    The transcript grows only through `apply(message_end)`, so it always holds exactly the messages
    whose `message_end` listeners have been (or are being) told about.
    """

    def __init__(self) -> None:
        self.system_prompt = ""
        self.model: ModelConfig | None = None
        self.thinking_level: ThinkingLevel = "off"
        self.error_message: str | None = None
        """The error of the last failed or aborted turn; cleared when a run starts."""
        self._tools: list[AgentTool[Any]] = []
        self._messages: list[AgentMessage] = []
        self._is_streaming = False
        self._streaming_message: AgentMessage | None = None
        self._pending_tool_calls: frozenset[str] = frozenset()

    @property
    def messages(self) -> list[AgentMessage]:
        return self._messages

    @messages.setter
    def messages(self, value: Sequence[AgentMessage]) -> None:
        self._messages = list(value)

    @property
    def tools(self) -> list[AgentTool[Any]]:
        return self._tools

    @tools.setter
    def tools(self, value: Sequence[AgentTool[Any]]) -> None:
        self._tools = list(value)

    @property
    def is_streaming(self) -> bool:
        """True from the start of a run until it (and its listeners) finished."""
        return self._is_streaming

    @property
    def streaming_message(self) -> AgentMessage | None:
        """The message being streamed (set on message_start/update, cleared on message_end)."""
        return self._streaming_message

    @property
    def pending_tool_calls(self) -> frozenset[str]:
        """Ids of tool calls started and not yet ended."""
        return self._pending_tool_calls

    def begin_run(self) -> None:
        self._is_streaming = True
        self._streaming_message = None
        self.error_message = None

    def end_run(self) -> None:
        self._is_streaming = False
        self._streaming_message = None
        self._pending_tool_calls = frozenset()

    def apply(self, event: AgentEvent) -> None:
        """Reduce one event of a run into the state (before listeners see it)."""
        if isinstance(event, MessageStartEvent | MessageUpdateEvent):
            self._streaming_message = event.message
        elif isinstance(event, MessageEndEvent):
            self._streaming_message = None
            self._messages.append(event.message)
        elif isinstance(event, ToolExecutionStartEvent):
            self._pending_tool_calls = self._pending_tool_calls | {event.tool_call_id}
        elif isinstance(event, ToolExecutionEndEvent):
            self._pending_tool_calls = self._pending_tool_calls - {event.tool_call_id}
        elif isinstance(event, TurnEndEvent):
            if isinstance(event.message, AssistantMessage) and event.message.error_message:
                self.error_message = event.message.error_message
        elif isinstance(event, AgentEndEvent):
            self._streaming_message = None
