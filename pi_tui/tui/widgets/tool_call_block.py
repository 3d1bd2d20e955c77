"""A tool call in the conversation: name and arguments, status, and the last lines of its output (of an
edit or write: the first lines of its diff); a click opens it whole in the Tools pane."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.geometry import Size
from textual.message import Message
from textual.widgets import Static

from pi_tui.tools.diff_lines import DiffLine, diff_of, first_changed_line, parse_diff
from pi_tui.tui.call_after import call_after
from pi_tui.tui.textual_fixes import stream_margin_width
from pi_tui.tui.tool_calls import first_line_number, split_notice, summarize_args
from pi_tui.tui.widgets.diff_view import DiffView

TAIL_LINES = 5
"""Collapsed tool output shows this many last lines, as pi does for bash."""
EXPANDED_TAIL_LINES = 40
DIFF_LINES = 12
"""A collapsed edit or write shows this many lines of its diff, from the top."""
EXPANDED_DIFF_LINES = 400
MAX_LINE_CHARS = 400
"""Longer lines are cut for display only; the full text is in the tool-output viewer."""
LIVE_OUTPUT_SECONDS = 0.1
"""A running call's output is redrawn at most this often (a redraw may relayout the conversation); the
latest state is always drawn, at the latest this long after it arrived."""


def clip_line(line: str) -> str:
    return (
        line if len(line) <= MAX_LINE_CHARS else line[:MAX_LINE_CHARS] + f"… (+{len(line) - MAX_LINE_CHARS})"
    )


class ToolCallBlock(Vertical, can_focus=True):
    """One tool call: name and arguments, status and elapsed time, and the last lines of its output (of
    an edit or write: the first lines of its diff)."""

    DEFAULT_CSS = """
    ToolCallBlock { height: auto; margin: 0 0 0 2; padding: 0 1; border-left: tall $secondary; }
    ToolCallBlock:focus { background: $boost; }
    ToolCallBlock.-error { border-left: tall $error; }
    ToolCallBlock.-user-shell { border-left: tall $accent; }
    ToolCallBlock > .tool-head { text-style: bold; }
    ToolCallBlock > .tool-tail { color: $text-muted; }
    ToolCallBlock > .tool-notice { color: $warning; }
    """

    class Selected(Message):
        def __init__(self, call_key: str) -> None:
            super().__init__()
            self.call_key = call_key

    def __init__(
        self,
        tool_call_id: str,
        name: str,
        args: dict[str, Any],
        *,
        key: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(classes=classes)
        self.tool_call_id = tool_call_id
        self.call_key = key or tool_call_id
        """Which call this is (`call_pairing.call_key`): ids may repeat within a session."""
        self.tool_name = name
        self.summary = summarize_args(args)
        self.expanded = False
        self._lines: list[str] = []
        self._first_line = 1
        """The number, in the full output, of the first of `_lines` (a truncated output's tail)."""
        self._is_error = False
        self._diff: list[DiffLine] = []
        self._changed_line: int | None = None
        self._notice = ""
        self._status = "running"
        self._ready = False
        """Set once on_mount runs: output handed over before that is rendered then."""
        self._drawn_at: float | None = None
        """When live output was last drawn; None until the first draw (a monotonic clock may start near
        zero on a freshly booted machine, so no number means "never")."""
        self._redraw: asyncio.TimerHandle | None = None
        self._shown_parts: tuple[str, str, str] | None = None

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        # Measured at the width it is drawn at, inside its left margin (see `stream_margin_width`).
        return super().get_content_height(container, viewport, width - stream_margin_width(self))

    def compose(self) -> ComposeResult:
        yield Static(self._head(), classes="tool-head", markup=False)
        yield Static("", classes="tool-tail", markup=False)
        yield Static("", classes="tool-notice", markup=False)
        yield DiffView(classes="tool-diff")

    def _head(self) -> str:
        where = f":{self._changed_line}" if self._changed_line is not None else ""
        return f"{self.tool_name}  {self.summary}{where}   [{self._status}]"

    @property
    def diff_lines(self) -> list[DiffLine]:
        """The diff of an edit or write result (empty for other calls)."""
        return self._diff

    def show_output(
        self,
        text: str,
        *,
        status: str | None = None,
        is_error: bool = False,
        live: bool = False,
        details: Any = None,
    ) -> None:
        """Show the output so far (`live`: redrawn at most every LIVE_OUTPUT_SECONDS) or the final result:
        its last lines, and pi's truncation notice apart; an edit's or write's diff instead of its text."""
        body, notice = split_notice(text)
        lines = body.splitlines()
        if is_error:  # five lines have no room for the blank lines before "Command exited with code 1"
            lines = [line for line in lines if line.strip()]
        while lines and not lines[-1].strip():  # the blank lines before a notice
            lines.pop()
        self._lines = lines
        self._is_error = is_error
        self._first_line = first_line_number(text, details)
        diff = None if is_error else diff_of(self.tool_name, details)
        self._diff = parse_diff(diff) if diff else []
        self._changed_line = first_changed_line(details) if diff else None
        self._notice = notice
        if status is not None:
            self._status = status
        self.set_class(is_error, "-error")
        if not live:
            self._render_parts()
        elif self._redraw is None:
            drawn_at = self._drawn_at
            wait = 0.0 if drawn_at is None else drawn_at + LIVE_OUTPUT_SECONDS - time.monotonic()
            if wait <= 0 or not self._ready:
                self._live_redraw()
            else:
                self._redraw = call_after(self, wait, self._live_redraw)

    def show_status(self, status: str) -> None:
        """Only the status in the head (`running 3.0s`): the output is as it was."""
        if status != self._status and self._status.startswith("running"):
            self._status = status
            self._render_parts()

    def toggle_expanded(self) -> None:
        self.expanded = not self.expanded
        self._render_parts()

    def _live_redraw(self) -> None:
        self._drawn_at = time.monotonic()
        self._render_parts()

    def _render_parts(self) -> None:
        if self._redraw is not None:
            self._redraw.cancel()
            self._redraw = None
        if not self._ready:
            return
        parts = (self._head(), "\n".join(clip_line(line) for line in self._preview()), self._notice)
        shown = parts[1] != ""
        self._render_diff()
        # An update relayouts the whole conversation, so unchanged parts are left alone.
        shown_flags = (True, shown, bool(self._notice))
        previous = self._shown_parts
        for index, widget in enumerate(self.query(Static)):
            if previous is None or parts[index] != previous[index]:
                # A text of the same shape wraps to the same height: no relayout of the conversation.
                same = (
                    previous is not None
                    and "\t" not in parts[index]
                    and _shape(parts[index]) == _shape(previous[index])
                )
                widget.update(parts[index], layout=not same)
            widget.display = shown_flags[index]
        self._shown_parts = parts

    def _preview(self) -> list[str]:
        """The lines the block shows: a read's first lines (where a file starts matters), any other
        output's last ones; a failing command's `Traceback` line stays in view; one hidden line is
        shown rather than a line saying it is hidden."""
        if self._diff:
            return []
        lines = self._lines
        limit = EXPANDED_TAIL_LINES if self.expanded else TAIL_LINES
        if len(lines) <= limit + 1:
            shown, hidden = list(lines), 0
        elif self.tool_name == "read":
            more = len(lines) - limit
            return [*lines[:limit], _more_lines(more, self.expanded)]
        else:
            shown, hidden = lines[-limit:], len(lines) - limit
        earlier = self._first_line - 1 + hidden
        if not shown or earlier <= 0:
            return shown
        marker = _earlier_lines(earlier, self.expanded)
        traceback = next((line for line in lines[:hidden] if line.startswith("Traceback (")), None)
        if self._is_error and traceback is not None:
            return [traceback, marker, *shown]
        return [marker, *shown]

    def _render_diff(self) -> None:
        view = self.query_one(DiffView)
        view.display = bool(self._diff)
        limit = EXPANDED_DIFF_LINES if self.expanded else DIFF_LINES
        more = len(self._diff) - limit
        if more <= 0:
            view.show(self._diff)
        elif self.expanded:
            view.show(self._diff[:limit], f"… {more:,} more diff lines; F3 for all")
        else:
            view.show(self._diff[:limit], f"… {more:,} more diff lines (ctrl+o to expand)")

    def on_mount(self) -> None:
        self._ready = True
        self._render_parts()

    def on_click(self) -> None:
        self.post_message(self.Selected(self.call_key))


def finished_status(is_error: bool, seconds: float | None) -> str:
    """A finished call's status in its head: `done 0.4s`, `error 1.2s`; without a duration `done`."""
    word = "error" if is_error else "done"
    return word if seconds is None else f"{word} {seconds:.1f}s"


def _lines_word(count: int) -> str:
    return f"{count:,} {'line' if count == 1 else 'lines'}"


def _earlier_lines(count: int, expanded: bool) -> str:
    """The line above a tail: how much of the output is above it, and where the rest is."""
    words = f"… {_lines_word(count).replace(' line', ' earlier line')}"
    return f"{words}; F3 for all" if expanded else f"{words} (ctrl+o to expand)"


def _more_lines(count: int, expanded: bool) -> str:
    """The line under a read's head: how much follows, and where it is."""
    words = f"… {_lines_word(count).replace(' line', ' more line')}"
    return f"{words}; F3 for all" if expanded else f"{words} (ctrl+o to expand)"


def _shape(text: str) -> list[list[int]]:
    """Cell widths of the words of each line: texts with equal shapes wrap to the same rows."""
    return [[cell_len(word) for word in line.split(" ")] for line in text.split("\n")]
