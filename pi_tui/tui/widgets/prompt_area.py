"""The editor: Enter sends, Ctrl+J breaks the line, Up/Down walk the history at the edges.

With a completion popup attached, `/` as the first word lists commands and `@` paths lists files;
while it is open Up/Down move in it, Tab or Enter accepts, Esc closes it. With the queue list attached,
Tab queues the text as a follow-up while the agent works (alt+enter does too where the terminal reports
it: tmux and many terminals send it as ESC CR, which reads as Enter), and Up from the first line moves
into the list of queued messages.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from textual import events, work
from textual.binding import Binding
from textual.geometry import Offset
from textual.message import Message
from textual.widgets import TextArea
from textual.worker import get_current_worker

from pi_tui.tui.completion_tokens import Completer, CompletionItem, Token, accepted_text, token_at
from pi_tui.tui.widgets.completion_popup import CompletionPopup
from pi_tui.tui.widgets.queued_messages import QueuedMessages
from pi_tui.tui.worker_results import deliver


class PromptArea(TextArea):
    """Multi-line input. While the agent runs, Enter steers and Alt+Enter queues a follow-up."""

    DEFAULT_CSS = """
    PromptArea { height: auto; min-height: 3; max-height: 12; border: round $primary; }
    PromptArea:focus { border: round $accent; }
    """

    BINDINGS = [
        Binding("enter", "submit", "Send"),
        Binding("alt+enter", "submit_follow_up", "Follow-up", show=False),
        Binding("ctrl+j", "newline", "Newline", show=False),
        Binding("tab", "accept_completion", "Complete"),
        Binding("tab", "queue_follow_up", "Follow-up"),
        Binding("escape", "close_completion", "Close list"),
        # A prompt is a few lines: paging belongs to the conversation above it, not the editor.
        Binding("pageup", "page_conversation(-1)", "Scroll up", show=False),
        Binding("pagedown", "page_conversation(1)", "Scroll down", show=False),
        Binding("ctrl+end", "page_conversation(None)", "To the end", show=False),
    ]

    @dataclass
    class Submitted(Message):
        text: str
        follow_up: bool

    @dataclass
    class PageConversation(Message):
        pages: int | None
        """-1 a page back, 1 a page forward, None to the end (following new output again)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, soft_wrap=True, show_line_numbers=False, compact=False)
        self.sent_history: list[str] = []
        self._history_index: int | None = None
        self._draft = ""
        self._popup: CompletionPopup | None = None
        self._completer: Completer | None = None
        self._token: Token | None = None
        self._queue: QueuedMessages | None = None
        self._agent_working: Callable[[], bool] = lambda: False
        self._tab_queues = False
        """Whether Tab queued a follow-up when the bindings were last shown."""

    async def _on_key(self, event: events.Key) -> None:
        """The editor's own keys act here, in its queue, after every key typed before them.

        Textual runs a priority binding as soon as the app reads the key, before the focused widget has
        handled the characters queued ahead of it, and any other binding only once the key has bubbled up
        to the app, after the characters queued behind it. In a burst (fast typing, tmux `send-keys`)
        Enter sent "What sh" of "What should the README say?", and Backspace deleted a later character.
        """
        for binding in self._bindings.key_to_bindings.get(event.key, ()):
            if await self.app.run_action(binding.action, self):
                event.stop()
                event.prevent_default()
                return
        await super()._on_key(event)

    def attach_completion(self, popup: CompletionPopup, completer: Completer) -> None:
        """Complete with `completer`'s items, listed in `popup` (mounted by the screen, above the editor)."""
        self._popup, self._completer = popup, completer

    def attach_queue(self, queue: QueuedMessages, agent_working: Callable[[], bool]) -> None:
        """Up from the first line moves into `queue`; Tab queues a follow-up while `agent_working()`."""
        self._queue, self._agent_working = queue, agent_working

    def refresh_follow_up_key(self) -> None:
        """Show or hide Tab's "Follow-up" in the footer when whether it would queue has changed."""
        queues = self._follow_up_key_queues()
        if queues != self._tab_queues:
            self._tab_queues = queues
            self.refresh_bindings()

    def _follow_up_key_queues(self) -> bool:
        popup_open = self._popup is not None and self._popup.is_open
        return not popup_open and bool(self.text.strip()) and self._agent_working()

    def _send(self, follow_up: bool) -> None:
        text = self.text
        if not text.strip():
            return
        if not self.sent_history or self.sent_history[-1] != text:
            self.sent_history.append(text)
        self._history_index = None
        self.clear()
        self.post_message(self.Submitted(text, follow_up))

    def action_submit(self) -> None:
        if not self._accept(submitting=True):
            self._send(follow_up=False)

    def action_submit_follow_up(self) -> None:
        self._send(follow_up=True)

    def action_queue_follow_up(self) -> None:
        self._send(follow_up=True)

    def action_page_conversation(self, pages: int | None) -> None:
        self.post_message(self.PageConversation(pages))

    def action_newline(self) -> None:
        self.insert("\n")

    def put_back(self, texts: list[str]) -> None:
        """Queued messages return to the editor (before what is there), joined by blank lines."""
        parts = [*texts, self.text] if self.text.strip() else texts
        self.text = "\n\n".join(parts)
        self.move_cursor(self.document.end)

    def action_cursor_up(self, select: bool = False) -> None:
        if self._popup is not None and self._popup.is_open and not select:
            self._popup.move(-1)
            return
        at_top = not select and self.cursor_location[0] == 0
        walking_history = self._history_index is not None
        if at_top and not walking_history and self._queue is not None and self._queue.enter_from_below():
            return
        if at_top and self.sent_history:
            self._walk_history(-1)
            return
        super().action_cursor_up(select)

    def action_cursor_down(self, select: bool = False) -> None:
        if self._popup is not None and self._popup.is_open and not select:
            self._popup.move(1)
            return
        last_row = self.document.line_count - 1
        if not select and self.cursor_location[0] == last_row and self._history_index is not None:
            self._walk_history(1)
            return
        super().action_cursor_down(select)

    def _walk_history(self, step: int) -> None:
        if self._history_index is None:
            self._draft = self.text
            index = len(self.sent_history)
        else:
            index = self._history_index
        index = max(0, min(len(self.sent_history), index + step))
        self._history_index = None if index == len(self.sent_history) else index
        self.text = self._draft if self._history_index is None else self.sent_history[index]
        self.move_cursor(self.document.end)
        # A recalled `/command` must not open the list, or the next Up would move in it.
        row, column = self.cursor_location
        self._token = token_at(self.document.get_line(row), column, row)
        if self._popup is not None:
            self._popup.close()

    # --- completion -------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Without a list, Tab and Esc mean what the app and the screen say (next widget, abort).
        if action in ("accept_completion", "close_completion"):
            return self._popup is not None and self._popup.is_open
        if action == "queue_follow_up":
            # Only while the agent works: otherwise Tab moves the focus on, as everywhere.
            return self._follow_up_key_queues()
        return True

    def action_accept_completion(self) -> None:
        self._accept(submitting=False)

    def action_close_completion(self) -> None:
        if self._popup is not None:
            self._popup.close()

    def accept_completion(self) -> None:
        """Accept the highlighted item (a click on the list)."""
        self._accept(submitting=False)

    def _accept(self, *, submitting: bool) -> bool:
        """Replace the token with the highlighted item; False (nothing done) when no list is open, or
        when Enter is pressed on a command typed in full, which then submits."""
        popup, token = self._popup, self._token
        item = popup.selected if popup is not None else None
        if popup is None or token is None or item is None:
            return False
        if submitting and token.kind == "slash" and item.value == token.text:
            popup.close()
            return False
        row, column = self.cursor_location
        text = accepted_text(item)
        if self.document.get_line(row)[column : column + 1].isspace():
            text = text.rstrip(" ")  # completing inside a line: a space is there already
        self.replace(text, (row, token.start), (row, column))
        return True

    def _on_text_area_changed(self, event: TextArea.Changed) -> None:
        self._refresh_completion()
        self.refresh_follow_up_key()

    def _on_text_area_selection_changed(self, event: TextArea.SelectionChanged) -> None:
        self._refresh_completion()

    def _refresh_completion(self) -> None:
        if self._popup is None or self._completer is None:
            return
        row, column = self.cursor_location
        token = token_at(self.document.get_line(row), column, row) if self.selection.is_empty else None
        if token == self._token:
            return
        self._token = token
        if token is None:
            self.workers.cancel_group(self, "completion")
            self._popup.close()
        elif token.kind == "slash":
            self._show_items(token, self._completer.slash(token.text))
        else:
            self._search_files(token)

    @work(thread=True, exclusive=True, group="completion", exit_on_error=False)
    def _search_files(self, token: Token) -> None:
        assert self._completer is not None
        worker = get_current_worker()
        items = self._completer.files(token.query, lambda: worker.is_cancelled)
        deliver(self, self._show_items, token, items)

    def _show_items(self, token: Token, items: list[CompletionItem]) -> None:
        if self._popup is None or token != self._token:
            return
        if items:
            # The list starts under the token, its bottom on the editor's top border.
            column = max(self.region.x, self.cursor_screen_offset.x - len(token.text) - 2)
            self._popup.open(items, Offset(column, self.region.y))
        else:
            self._popup.close()
