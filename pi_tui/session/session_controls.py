"""The settings a session can change while it lives: model, thinking level, name, active tools, resources.

Mixed into `AgentSession`; each change is recorded as an entry where pi records it and announced as an
event, so the file, the agent's state and every front end agree.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from pi_tui.agent.agent import Agent
from pi_tui.agent.tool import AgentTool
from pi_tui.ai.http_pool import HttpPool
from pi_tui.ai.messages import ThinkingLevel
from pi_tui.config.model_config import ModelConfig
from pi_tui.context.resources import Resources
from pi_tui.context.system_prompt import SystemPrompt
from pi_tui.session.approval import ApprovalPolicy
from pi_tui.session.session_events import (
    AnyEvent,
    ModelChangedEvent,
    SessionInfoChangedEvent,
    SystemPromptChangedEvent,
    ThinkingLevelChangedEvent,
)
from pi_tui.session.session_setup import available_thinking_levels, clamp_thinking, session_tools
from pi_tui.session_file.store import SessionStore
from pi_tui.tools.registry import select_tools


class SessionControls:
    """Model, thinking, name, tools and resources of an `AgentSession` (which provides the state)."""

    agent: Agent
    store: SessionStore
    resources: Resources
    model: ModelConfig | None
    thinking_level: ThinkingLevel
    system_prompt: SystemPrompt
    tools_by_name: dict[str, AgentTool[Any]]
    active_tools: list[AgentTool[Any]]
    _reload_resources: Callable[[], Resources]
    _http_pool: HttpPool | None
    approval: ApprovalPolicy

    if TYPE_CHECKING:

        async def emit(self, event: AnyEvent) -> None: ...

        def switch_model(self, model: ModelConfig, api_key: str | None) -> None: ...

        def _build_system_prompt(self) -> SystemPrompt: ...

    async def set_model(self, model: ModelConfig, api_key: str | None) -> None:
        """Use `model` from the next request on; recorded as `model_change`, thinking re-clamped."""
        previous_level = self.thinking_level
        self.switch_model(model, api_key)
        if self.thinking_level != previous_level and self.store.writable:
            self.store.append_thinking_level_change(self.thinking_level)
        await self.emit(ModelChangedEvent(model.provider, model.id, self.thinking_level))

    async def set_thinking_level(self, level: ThinkingLevel) -> None:
        """Clamp `level` to the model; recorded (and announced) only when the effective level changes."""
        clamped = clamp_thinking(level, self.model)
        if clamped == self.thinking_level:
            return
        self.thinking_level = clamped
        self.agent.state.thinking_level = clamped
        if self.store.writable:
            self.store.append_thinking_level_change(clamped)
        await self.emit(ThinkingLevelChangedEvent(clamped))

    def available_thinking_levels(self) -> tuple[ThinkingLevel, ...]:
        return available_thinking_levels(self.model)

    async def cycle_thinking_level(self) -> ThinkingLevel | None:
        """The next level (Shift+Tab); None when the model has no reasoning levels to cycle."""
        levels = self.available_thinking_levels()
        if len(levels) < 2:
            return None
        current = levels.index(self.thinking_level) if self.thinking_level in levels else -1
        await self.set_thinking_level(levels[(current + 1) % len(levels)])
        return self.thinking_level

    @property
    def session_name(self) -> str | None:
        return self.store.get_session_name()

    async def set_session_name(self, name: str | None) -> None:
        """Name the session (`/name`); an empty name clears it."""
        self.store.append_session_info(name)
        await self.emit(SessionInfoChangedEvent(self.store.get_session_name()))

    async def set_active_tools(self, names: Sequence[str]) -> list[str]:
        """Activate exactly these built-in tools (unknown names skipped) and rebuild the system prompt."""
        self.active_tools = select_tools(self.tools_by_name, names)
        self.agent.state.tools = self.active_tools
        await self._rebuild_system_prompt("tools")
        return [tool.name for tool in self.active_tools]

    async def reload(self) -> bool:
        """Re-read settings and resources for the session's cwd (`/reload`); True if the prompt changed.

        The provider's connections are dropped too: the next request connects afresh, as after a restart
        (a reply still streaming keeps its connection to the end)."""
        self.resources = await asyncio.to_thread(self._reload_resources)
        if self._http_pool is not None:
            await self._http_pool.reset()
        # New settings (output limits, shell, approval: a project trusted since) reach the tools; the
        # active set, and the tools answered "always", stay as they were.
        self.approval.settings_changed(self.resources.settings.approval)

        self.tools_by_name = session_tools(self.resources, self.store)
        self.active_tools = select_tools(self.tools_by_name, [tool.name for tool in self.active_tools])
        self.agent.state.tools = self.active_tools
        return await self._rebuild_system_prompt("reload")

    async def _rebuild_system_prompt(self, reason: Literal["tools", "reload"]) -> bool:
        rebuilt = self._build_system_prompt()
        if rebuilt.text == self.system_prompt.text:
            return False
        self.system_prompt = rebuilt
        self.agent.state.system_prompt = rebuilt.text
        await self.emit(SystemPromptChangedEvent(reason))
        return True
