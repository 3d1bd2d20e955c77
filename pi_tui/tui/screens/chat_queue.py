"""The chat screen's queue of messages typed while the agent works: steering and follow-ups.

Enter steers; Tab (or alt+enter, or `/followup`) queues a follow-up. What waits is listed above the
editor, where one message at a time can be taken back to edit or dropped; Esc takes them all back.
Every toast names the message it is about. The queues themselves are the session's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from pi_tui.session.agent_session import AgentSession
from pi_tui.session.queued_texts import QueueKind
from pi_tui.session.session_events import AnyEvent, QueueUpdateEvent
from pi_tui.tui.widgets.prompt_area import PromptArea
from pi_tui.tui.widgets.queued_messages import KIND_LABELS, QueuedMessage, QueuedMessages, one_line

TOAST_TEXT_CHARS = 60
"""How much of a message a toast quotes."""
WHEN_DELIVERED: dict[QueueKind, str] = {
    "steering": "delivered after the current tool calls",
    "follow_up": "delivered when the agent stops",
}
WORKING_EVENTS = frozenset({"agent_start", "agent_end"})


def quoted(text: str) -> str:
    """`text` on one line, cut to what a toast has room for, in quotes."""
    line = one_line(text)
    return f"“{line if len(line) <= TOAST_TEXT_CHARS else line[: TOAST_TEXT_CHARS - 1] + '…'}”"


class QueueHost(Protocol):
    """What the queue needs from the screen that shows it (the chat screen)."""

    @property
    def session(self) -> AgentSession: ...

    def run_prompts(self, texts: list[str]) -> object: ...

    def notify(self, message: str, *, markup: bool = True) -> None: ...


class ChatQueue:
    """The queued messages above the editor and the editor's Tab key, for the session `host` shows."""

    def __init__(self, host: QueueHost, editor: PromptArea, queued: QueuedMessages) -> None:
        self._host = host
        self._editor = editor
        self._queued = queued
        editor.attach_queue(queued, lambda: host.session.is_running)

    def events(self, events: Sequence[AnyEvent]) -> None:
        """Show the latest queue and whether Tab would queue now."""
        updates = [event for event in events if isinstance(event, QueueUpdateEvent)]
        if updates:
            self.show(updates[-1].steering, updates[-1].follow_up)
        if any(event.type in WORKING_EVENTS for event in events):
            self._editor.refresh_follow_up_key()

    def show(self, steering: Sequence[str], follow_up: Sequence[str]) -> None:
        had_focus = self._queued.has_focus
        self._queued.show(steering, follow_up)
        if had_focus and not self._queued.queued:
            self._editor.focus()

    async def send_or_queue(self, text: str, kind: QueueKind) -> None:
        """Queue `text` while the agent works; when it is idle the text is simply sent."""
        session = self._host.session
        if not session.is_running:
            self._host.run_prompts([text])
            return
        if kind == "steering":
            await session.steer(text)
        else:
            await session.follow_up(text)
        label = KIND_LABELS[kind].capitalize()
        self._host.notify(f"{label} queued: {quoted(text)}, {WHEN_DELIVERED[kind]}.", markup=False)

    async def follow_up(self, args: str = "") -> None:
        """`/followup [text]` and the palette: queue `text`, or the editor's, as a follow-up."""
        text = args.strip() or self._editor.text
        if not text.strip():
            self._host.notify("Nothing to queue: type the follow-up first (or /followup <text>).")
            return
        if not args.strip():
            self._editor.clear()
        await self.send_or_queue(text, "follow_up")

    async def edit(self, queued: QueuedMessage) -> None:
        """Take one queued message back into the editor."""
        if await self._host.session.take_queued(queued.kind, queued.text):
            self._editor.put_back([queued.text])
            self._host.notify(f"Back in the editor: {quoted(queued.text)}", markup=False)
        else:
            self._host.notify(f"Already delivered: {quoted(queued.text)}", markup=False)
        self._editor.focus()

    async def remove(self, queued: QueuedMessage) -> None:
        if await self._host.session.take_queued(queued.kind, queued.text):
            label = KIND_LABELS[queued.kind]
            self._host.notify(f"Removed the queued {label}: {quoted(queued.text)}", markup=False)
        else:
            self._host.notify(f"Already delivered: {quoted(queued.text)}", markup=False)

    def leave(self) -> None:
        self._editor.focus()
