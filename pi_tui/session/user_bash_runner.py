"""The session's side of user shell commands: one at a time, events, and recording.

A finished `bashExecution` message joins the agent's messages and the session file at once when the
agent is idle. While the agent runs it is held back and recorded at the start of the next prompt, so
it never lands between an assistant's tool call and that call's result.
"""

from __future__ import annotations

import asyncio
from typing import Protocol

from pi_tui.agent.agent import Agent
from pi_tui.ai.abort import AbortSignal
from pi_tui.ai.messages import BashExecutionMessage
from pi_tui.session.session_events import AnyEvent, BashEndEvent, BashOutputEvent, BashStartEvent
from pi_tui.session.user_bash import UserBashOptions, execute_user_bash
from pi_tui.session_file.store import SessionStore

BASH_BUSY_TEXT = "A shell command is already running. Cancel it first (Esc)."


class UserBashBusyError(RuntimeError):
    """A second user command while one is still running."""


class BashHost(Protocol):
    """What the runner needs of its session."""

    agent: Agent
    store: SessionStore

    async def emit(self, event: AnyEvent) -> None: ...


class UserBashRunner:
    def __init__(self, host: BashHost) -> None:
        self._host = host
        self._signal: AbortSignal | None = None
        self._pending: list[BashExecutionMessage] = []

    @property
    def running(self) -> bool:
        return self._signal is not None

    @property
    def pending(self) -> tuple[BashExecutionMessage, ...]:
        """Finished commands waiting for the next prompt."""
        return tuple(self._pending)

    def cancel(self) -> None:
        if self._signal is not None:
            self._signal.abort()

    async def run(
        self, command: str, options: UserBashOptions, *, exclude_from_context: bool
    ) -> BashExecutionMessage:
        """Run, stream `bash_output`, then record now or hold (see the module docstring)."""
        if self._signal is not None:
            raise UserBashBusyError(BASH_BUSY_TEXT)
        host = self._host
        self._signal = signal = AbortSignal()
        try:
            await host.emit(BashStartEvent(command, exclude_from_context))
            message = await execute_user_bash(
                command,
                options,
                exclude_from_context=exclude_from_context,
                signal=signal,
                on_output=lambda text: host.emit(BashOutputEvent(command, text)),
            )
        finally:
            self._signal = None
        pending = host.agent.is_running
        if pending:
            self._pending.append(message)
        else:
            await self._record(message)
        await host.emit(BashEndEvent(message, pending))
        return message

    async def flush(self) -> None:
        """Record every held message (called before a prompt starts)."""
        pending, self._pending = self._pending, []
        for message in pending:
            await self._record(message)

    async def _record(self, message: BashExecutionMessage) -> None:
        state = self._host.agent.state
        state.messages = [*state.messages, message]
        store = self._host.store
        if store.writable:
            await asyncio.to_thread(store.append_message, message)
