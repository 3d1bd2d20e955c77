"""The texts of queued steering and follow-up messages, as the UI shows them (pi-behaviour §10.3).

The agent owns the queued messages themselves; this keeps their texts for display and for Esc, which
takes every undelivered message back into the editor. A text leaves when its message starts.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pi_tui.session.events import QueueUpdateEvent


@dataclass
class QueuedTexts:
    steering: list[str] = field(default_factory=list)
    follow_up: list[str] = field(default_factory=list)

    def delivered(self, text: str) -> bool:
        """Forget the oldest queued copy of `text` (steering first); True if one was queued."""
        for queue in (self.steering, self.follow_up):
            if text in queue:
                queue.remove(text)
                return True
        return False

    def take_all(self) -> list[str]:
        """Every queued text, steering first, leaving both queues empty."""
        texts = [*self.steering, *self.follow_up]
        self.steering.clear()
        self.follow_up.clear()
        return texts

    def event(self) -> QueueUpdateEvent:
        return QueueUpdateEvent(tuple(self.steering), tuple(self.follow_up))
