"""Queued steering and follow-up messages, with their texts as the UI shows them.

The agent owns the queued messages themselves; this keeps their texts for display, for Esc (which takes
every undelivered message back into the editor) and for taking one back to edit or drop it. A text leaves
when its message starts. Every change is announced with a `queue_update` event.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Literal, TypeAlias

from pi_tui.agent.agent import Agent
from pi_tui.ai.messages import AgentMessage, UserMessage
from pi_tui.session.session_events import AnyEvent, QueueUpdateEvent
from pi_tui.session.tree_navigation import content_text

QueueKind: TypeAlias = Literal["steering", "follow_up"]


class QueuedTexts:
    def __init__(self, agent: Agent, emit: Callable[[AnyEvent], Awaitable[None]]) -> None:
        self._agent = agent
        self._emit = emit
        self.steering: list[str] = []
        self.follow_up: list[str] = []

    async def add(self, kind: QueueKind, text: str) -> None:
        """Queue `text` (already expanded): steering after the current tool calls, a follow-up when the
        agent would stop."""
        if kind == "steering":
            self._agent.steer(text)
        else:
            self._agent.follow_up(text)
        self._texts(kind).append(text)
        await self._announce()

    async def delivered(self, text: str) -> None:
        """A user message with `text` started: forget its oldest queued copy (steering first)."""
        for queue in (self.steering, self.follow_up):
            if text in queue:
                queue.remove(text)
                await self._announce()
                return

    async def take(self, kind: QueueKind, text: str) -> bool:
        """Take one undelivered message back (the user edits or drops it); False when none with `text`
        waits any more (it was delivered meanwhile). Equal texts are interchangeable: the oldest goes."""
        waiting = self._agent.steering_messages if kind == "steering" else self._agent.follow_up_messages
        texts = self._texts(kind)
        position = next((index for index, message in enumerate(waiting) if _holds(message, text)), None)
        if position is None or text not in texts:
            return False
        if kind == "steering":
            self._agent.take_steering(position)
        else:
            self._agent.take_follow_up(position)
        texts.remove(text)
        await self._announce()
        return True

    async def take_all(self) -> list[str]:
        """Every queued text, steering first, leaving both queues (and the agent's) empty."""
        self._agent.clear_all_queues()
        texts = [*self.steering, *self.follow_up]
        self.steering.clear()
        self.follow_up.clear()
        await self._announce()
        return texts

    def _texts(self, kind: QueueKind) -> list[str]:
        return self.steering if kind == "steering" else self.follow_up

    async def _announce(self) -> None:
        await self._emit(QueueUpdateEvent(tuple(self.steering), tuple(self.follow_up)))


def _holds(message: AgentMessage, text: str) -> bool:
    return isinstance(message, UserMessage) and content_text(message.content) == text
