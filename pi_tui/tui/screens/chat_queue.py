"""The chat screen's queue of messages typed while the agent works: steering and follow-ups.

Enter steers; Tab (or alt+enter, or `/followup`) queues a follow-up. What waits is listed above the
editor, where one message at a time can be taken back to edit or dropped; Esc takes them all back.
Every toast names the message it is about. The queues themselves are the session's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from textual import on
from textual.screen import Screen

from pi_tui.session.queued_texts import QueueKind
from pi_tui.session.session_events import AnyEvent, QueueUpdateEvent
from pi_tui.tui.widgets.prompt_area import PromptArea
from pi_tui.tui.widgets.queued_messages import KIND_LABELS, QueuedMessages, one_line

if TYPE_CHECKING:
    from pi_tui.session.agent_session import AgentSession

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


class ChatQueue(Screen[None]):
    """Mixed into `ChatScreen`, which supplies `session` and starts prompts with `_run_prompts`."""

    if TYPE_CHECKING:

        @property
        def session(self) -> AgentSession: ...

        def _run_prompts(self, texts: list[str]) -> object: ...

    def attach_queue(self) -> None:
        """Called once the screen is mounted."""
        self.query_one(PromptArea).attach_queue(
            self.query_one(QueuedMessages), lambda: self.session.is_running
        )

    def queue_events(self, events: Sequence[AnyEvent]) -> None:
        """Show the latest queue and whether Tab would queue now."""
        updates = [event for event in events if isinstance(event, QueueUpdateEvent)]
        if updates:
            self.show_queue(updates[-1].steering, updates[-1].follow_up)
        if any(event.type in WORKING_EVENTS for event in events):
            self.query_one(PromptArea).refresh_follow_up_key()

    def show_queue(self, steering: Sequence[str], follow_up: Sequence[str]) -> None:
        queue = self.query_one(QueuedMessages)
        had_focus = queue.has_focus
        queue.show(steering, follow_up)
        if had_focus and not queue.queued:
            self.query_one(PromptArea).focus()

    async def send_or_queue(self, text: str, kind: QueueKind) -> None:
        """Queue `text` while the agent works; when it is idle the text is simply sent."""
        if not self.session.is_running:
            self._run_prompts([text])
            return
        if kind == "steering":
            await self.session.steer(text)
        else:
            await self.session.follow_up(text)
        label = KIND_LABELS[kind].capitalize()
        self.notify(f"{label} queued: {quoted(text)}, {WHEN_DELIVERED[kind]}.", markup=False)

    async def action_follow_up(self, args: str = "") -> None:
        """`/followup [text]` and the palette: queue `text`, or the editor's, as a follow-up."""
        editor = self.query_one(PromptArea)
        text = args.strip() or editor.text
        if not text.strip():
            self.notify("Nothing to queue: type the follow-up first (or /followup <text>).")
            return
        if not args.strip():
            editor.clear()
        await self.send_or_queue(text, "follow_up")

    @on(QueuedMessages.Edit)
    async def _edit_queued(self, event: QueuedMessages.Edit) -> None:
        queued = event.queued
        editor = self.query_one(PromptArea)
        if await self.session.take_queued(queued.kind, queued.text):
            editor.put_back([queued.text])
            self.notify(f"Back in the editor: {quoted(queued.text)}", markup=False)
        else:
            self.notify(f"Already delivered: {quoted(queued.text)}", markup=False)
        editor.focus()

    @on(QueuedMessages.Remove)
    async def _remove_queued(self, event: QueuedMessages.Remove) -> None:
        queued = event.queued
        if await self.session.take_queued(queued.kind, queued.text):
            label = KIND_LABELS[queued.kind]
            self.notify(f"Removed the queued {label}: {quoted(queued.text)}", markup=False)
        else:
            self.notify(f"Already delivered: {quoted(queued.text)}", markup=False)

    @on(QueuedMessages.Leave)
    def _leave_queue(self) -> None:
        self.query_one(PromptArea).focus()
