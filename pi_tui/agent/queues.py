"""The steering and follow-up queues (pi's `PendingMessageQueue`)."""

from __future__ import annotations

from typing import Literal, TypeAlias

from pi_tui.ai.messages import AgentMessage

QueueMode: TypeAlias = Literal["one-at-a-time", "all"]
DEFAULT_QUEUE_MODE: QueueMode = "one-at-a-time"


class PendingMessageQueue:
    """Messages typed while the agent runs, delivered when the loop polls.

    `drain()` hands out everything in `all` mode and only the oldest message in `one-at-a-time` mode;
    what is not handed out stays queued for the next poll.
    """

    def __init__(self, mode: QueueMode = DEFAULT_QUEUE_MODE) -> None:
        self.mode: QueueMode = mode
        self._items: list[AgentMessage] = []

    def enqueue(self, message: AgentMessage) -> None:
        self._items.append(message)

    def drain(self) -> list[AgentMessage]:
        if self.mode == "all":
            drained, self._items = self._items, []
            return drained
        if not self._items:
            return []
        return [self._items.pop(0)]

    def take(self, index: int) -> AgentMessage:
        """Remove and return the message at `index` (a UI takes one back to edit or drop it)."""
        return self._items.pop(index)

    def clear(self) -> list[AgentMessage]:
        """Empty the queue and return what was in it (so a UI can put the text back in the editor)."""
        cleared, self._items = self._items, []
        return cleared

    @property
    def messages(self) -> tuple[AgentMessage, ...]:
        return tuple(self._items)

    def __len__(self) -> int:
        return len(self._items)
