"""The one place session events enter Textual: collected as they happen, delivered once per frame.

The session calls `collect` for every event (cheap: an append). A timer owned by the screen calls
`flush` about 30 times a second, which posts one `SessionEvents` message holding the batch, with runs
of streaming updates collapsed to their latest state. So a model streaming 200 tokens/s and a tool
printing 100k lines/s cost the UI at most one message per frame.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from textual.message import Message
from textual.message_pump import MessagePump

from pi_tui.session.session_events import AnyEvent

FRAME_SECONDS = 1 / 30


@dataclass
class SessionEvents(Message):
    """A frame's worth of session events, in order."""

    events: Sequence[AnyEvent]


def _stream_key(event: AnyEvent) -> tuple[str, str] | None:
    if event.type == "message_update":
        return ("message", "")
    if event.type == "tool_execution_update":
        return ("tool", event.tool_call_id)
    if event.type == "bash_output":
        return ("bash", "")
    return None


def coalesce(events: Sequence[AnyEvent]) -> list[AnyEvent]:
    """Drop streaming updates superseded by a later update of the same stream before anything else
    happened to it; every other event is kept, in order. Updates carry the full state so far, so the
    latest one is all a renderer needs."""
    kept: list[AnyEvent | None] = []
    open_updates: dict[tuple[str, str], int] = {}
    for event in events:
        key = _stream_key(event)
        if key is not None:
            previous = open_updates.get(key)
            if previous is not None:
                kept[previous] = None
            open_updates[key] = len(kept)
        elif event.type in ("message_start", "message_end"):
            open_updates.pop(("message", ""), None)
        elif event.type == "tool_execution_end":
            open_updates.pop(("tool", event.tool_call_id), None)
        elif event.type in ("bash_start", "bash_end"):
            open_updates.pop(("bash", ""), None)
        kept.append(event)
    return [event for event in kept if event is not None]


class EventBridge:
    """Buffers one session's events for one target widget."""

    def __init__(self, target: MessagePump) -> None:
        self._target = target
        self._pending: list[AnyEvent] = []
        self._unsubscribe: Callable[[], None] | None = None
        self.posted_batches = 0
        self.applied_batches = 0
        """Batches the target has finished applying; it says so through `applied`."""

    def collect(self, event: AnyEvent) -> None:
        self._pending.append(event)

    def bind(self, subscribe: Callable[[Callable[[AnyEvent], None]], Callable[[], None]]) -> None:
        """Listen to a (new) session; the previous one is let go."""
        self.unbind()
        self._unsubscribe = subscribe(self.collect)

    def unbind(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def flush(self) -> None:
        if not self._pending:
            return
        batch, self._pending = coalesce(self._pending), []
        self.posted_batches += 1
        self._target.post_message(SessionEvents(batch))

    def applied(self) -> None:
        self.applied_batches += 1

    @property
    def caught_up(self) -> bool:
        """Every event collected so far has been applied by the target (nothing waits for a frame)."""
        return not self._pending and self.applied_batches == self.posted_batches
