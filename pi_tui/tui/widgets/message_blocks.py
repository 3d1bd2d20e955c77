"""The blocks a conversation is made of: user turns, assistant replies, tool calls and notices.

Each block renders what it is handed and keeps only what it needs to render the next update; none
of them reads files or talks to the session.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Collapsible, Markdown, Static
from textual.widgets._markdown import MarkdownStream

from pi_tui.ai.messages import AssistantMessage, TextContent, ThinkingContent, ToolCall
from pi_tui.tools.diff_lines import DiffLine, diff_of, first_changed_line, parse_diff
from pi_tui.tui.markdown_segments import safe_cut
from pi_tui.tui.textual_fixes import stop_markdown_stream
from pi_tui.tui.tool_calls import first_line_number, split_notice, summarize_args
from pi_tui.tui.widgets.diff_view import DiffView
from pi_tui.tui.widgets.markdown_view import MarkdownView

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
SEGMENT_BLOCKS = 24
"""A streamed text grows in Markdown segments of about this many top-level blocks: a relayout then
re-arranges only the last segment, the finished ones keep their placements."""


def clip_line(line: str) -> str:
    return (
        line if len(line) <= MAX_LINE_CHARS else line[:MAX_LINE_CHARS] + f"… (+{len(line) - MAX_LINE_CHARS})"
    )


class UserBlock(Static):
    """A user message (or a queued steer shown once delivered)."""

    DEFAULT_CSS = """
    UserBlock { padding: 0 1; margin: 1 0 0 0; background: $boost; border-left: thick $primary; }
    """


class NoticeBlock(Static):
    """A one-line event in the flow: errors, retries, model fallbacks, cancellations."""

    DEFAULT_CSS = """
    NoticeBlock { padding: 0 1; color: $text-muted; }
    NoticeBlock.-error { color: $error; }
    NoticeBlock.-warning { color: $warning; }
    """

    def __init__(self, text: str, *, kind: str = "info") -> None:
        super().__init__(text, markup=False, classes=f"-{kind}")


class EarlierMessages(Static, can_focus=True):
    """Stands above the mounted part of a long transcript: click or Enter shows the next older page."""

    DEFAULT_CSS = """
    EarlierMessages { padding: 0 1; color: $text-muted; text-style: italic; }
    EarlierMessages:hover, EarlierMessages:focus { background: $boost; }
    """
    BINDINGS = [Binding("enter", "show_earlier", "Show earlier", show=False)]

    class Pressed(Message):
        """The user asked for older messages."""

    def __init__(self, hidden: int, page: int) -> None:
        super().__init__(markup=False)
        self.set_count(hidden, page)

    def set_count(self, hidden: int, page: int) -> None:
        self.update(f"▲ {hidden:,} earlier messages: click or press enter to show {min(hidden, page)} more")

    def on_click(self) -> None:
        self.post_message(self.Pressed())

    def action_show_earlier(self) -> None:
        self.post_message(self.Pressed())


class AssistantBlock(Vertical):
    """One assistant reply: thinking (collapsible), Markdown text streamed as it arrives, call stubs.

    `layout: stream` (here and on the Markdown) lets a relayout reuse the placements of the blocks
    before the one that changed, so a frame of a long streaming reply does not re-measure all of it.
    Markdown that gets no more text is marked `-settled`: the conversation may park it while it is far
    from view (`parked_markdown`).
    """

    DEFAULT_CSS = """
    AssistantBlock { height: auto; margin: 1 0 0 0; layout: stream; }
    AssistantBlock > Markdown { margin: 0; padding: 0 1; layout: stream; }
    AssistantBlock > Markdown.-unparking { display: none; }
    AssistantBlock > Collapsible { margin: 0; padding: 0; border: none; }
    AssistantBlock .thinking-text { color: $text-muted; text-style: italic; padding: 0 1; }
    AssistantBlock > .call-stub { color: $text-muted; padding: 0 1; }
    AssistantBlock > .reply-error { color: $error; padding: 0 1; }
    """

    def __init__(self, *, show_thinking: bool = True, final: AssistantMessage | None = None) -> None:
        super().__init__()
        self.show_thinking = show_thinking
        self.final = final
        """A finished reply (a rebuilt transcript) is composed whole, with nothing mounted later."""
        self._markdown: dict[int, tuple[Markdown, MarkdownStream]] = {}
        self._rendered: dict[int, int] = {}
        self._segment_start: dict[int, int] = {}
        """Where the text block's current Markdown segment starts (see `SEGMENT_BLOCKS`)."""
        self._thinking: dict[int, Static] = {}
        self._stubs: dict[int, Static] = {}
        self._finished = False
        self._pending: AssistantMessage | None = None
        self._pending_final = False
        self._ready = False
        """Set once on_mount runs (`is_mounted` only turns true after the handler returns)."""

    def compose(self) -> ComposeResult:
        if self.final is None:
            return
        for block in self.final.content:
            if isinstance(block, TextContent) and block.text:
                yield MarkdownView(block.text, classes="-settled")
            elif isinstance(block, ThinkingContent):
                body = Static(block.thinking, classes="thinking-text", markup=False)
                yield Collapsible(body, title="Thinking", collapsed=not self.show_thinking)
            elif isinstance(block, ToolCall):
                yield Static(
                    f"→ {block.name} {summarize_args(block.arguments)}",
                    classes="call-stub",
                    markup=False,
                )
        error = _failure_text(self.final)
        if error:
            yield Static(error, classes="reply-error", markup=False)

    async def on_mount(self) -> None:
        self._ready = True
        pending, self._pending = self._pending, None
        if self.final is None and pending is not None:
            await (self.finish(pending) if self._pending_final else self.show(pending))

    async def show(self, message: AssistantMessage, *, final: bool = False) -> None:
        """Render the reply so far; only the text that is new since the last call is written."""
        if not self._ready:
            # Mounting can lag behind the stream (e.g. under a modal); the latest state is shown on mount.
            self._pending = message
            return
        last = len(message.content) - 1
        for index, block in enumerate(message.content):
            if isinstance(block, TextContent):
                # A text block followed by another block gets no more text: nothing may stay held back.
                await self._write_text(index, block.text, complete=final or index < last)
            elif isinstance(block, ThinkingContent):
                self._show_thinking(index, block.thinking)
            elif isinstance(block, ToolCall):
                self._show_stub(index, block)

    async def finish(self, message: AssistantMessage) -> None:
        if not self._ready:
            self._pending, self._pending_final = message, True
            return
        await self.show(message, final=True)
        for markdown, stream in self._markdown.values():
            await stop_markdown_stream(stream)
            markdown.add_class("-settled")
        self._finished = True
        error = _failure_text(message)
        if error:
            await self.mount(Static(error, classes="reply-error", markup=False))

    async def _write_text(self, index: int, text: str, *, complete: bool) -> None:
        if index not in self._markdown:
            markdown: Markdown = MarkdownView()
            await self.mount(markdown)
            self._markdown[index] = (markdown, Markdown.get_stream(markdown))
            self._rendered[index] = 0
            self._segment_start[index] = 0
        done = self._rendered[index]
        if len(text) <= done:
            return
        markdown, stream = self._markdown[index]
        if len(markdown.children) > SEGMENT_BLOCKS and not complete:
            cut = safe_cut(text, self._segment_start[index], done)
            if cut is not None and not cut.ready:
                # The next paragraph may still become a heading; wait for its second line.
                if cut.offset > done:
                    await stream.write(text[done : cut.offset])
                self._rendered[index] = cut.offset
                return
            if cut is not None:
                await stream.write(text[done : cut.offset])
                await stop_markdown_stream(stream)
                if markdown.children:
                    # `layout: stream` keeps placements measured before a block's CSS applied; later
                    # appends re-measure them, a finished segment gets no later append.
                    markdown.children[0].refresh(layout=True)
                markdown.add_class("-settled")
                markdown = MarkdownView()
                await self.mount(markdown, after=self._markdown[index][0])
                stream = Markdown.get_stream(markdown)
                self._markdown[index] = (markdown, stream)
                self._segment_start[index] = done = cut.offset
        await stream.write(text[done:])
        self._rendered[index] = len(text)

    def _show_thinking(self, index: int, text: str) -> None:
        if index not in self._thinking:
            body = Static(text, classes="thinking-text", markup=False)
            self._thinking[index] = body
            self.mount(Collapsible(body, title="Thinking", collapsed=not self.show_thinking))
        else:
            self._thinking[index].update(text)

    def _show_stub(self, index: int, call: ToolCall) -> None:
        text = f"→ {call.name} {summarize_args(call.arguments)}"
        if index not in self._stubs:
            self._stubs[index] = Static(text, classes="call-stub", markup=False)
            self.mount(self._stubs[index])
        else:
            self._stubs[index].update(text)


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
        self._diff: list[DiffLine] = []
        self._changed_line: int | None = None
        self._notice = ""
        self._status = "running"
        self._ready = False
        """Set once on_mount runs: output handed over before that is rendered then."""
        self._drawn_at: float | None = None
        """When live output was last drawn; None until the first draw (a monotonic clock may start near
        zero on a freshly booted machine, so no number means "never")."""
        self._redraw: Timer | None = None
        self._shown_parts: tuple[str, str, str] | None = None

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
        self._lines = body.splitlines()
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
                self._redraw = self.set_timer(wait, self._live_redraw)

    def toggle_expanded(self) -> None:
        self.expanded = not self.expanded
        self._render_parts()

    def _live_redraw(self) -> None:
        self._drawn_at = time.monotonic()
        self._render_parts()

    def _render_parts(self) -> None:
        if self._redraw is not None:
            self._redraw.stop()
            self._redraw = None
        if not self._ready:
            return
        limit = EXPANDED_TAIL_LINES if self.expanded else TAIL_LINES
        shown = [] if self._diff else self._lines[-limit:]
        earlier = self._first_line - 1 + len(self._lines) - len(shown)
        prefix = [_earlier_lines(earlier, self.expanded)] if shown and earlier > 0 else []
        parts = (self._head(), "\n".join(prefix + [clip_line(line) for line in shown]), self._notice)
        self._render_diff()
        # An update relayouts the whole conversation, so unchanged parts are left alone.
        shown_flags = (True, bool(shown), bool(self._notice))
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


def _earlier_lines(count: int, expanded: bool) -> str:
    """The line above a tail: how much of the output is above it, and where the rest is."""
    return (
        f"… {count:,} earlier lines; F3 for all"
        if expanded
        else f"… {count:,} earlier lines (ctrl+o to expand)"
    )


def _shape(text: str) -> list[list[int]]:
    """Cell widths of the words of each line: texts with equal shapes wrap to the same rows."""
    return [[cell_len(word) for word in line.split(" ")] for line in text.split("\n")]


def _failure_text(message: AssistantMessage) -> str:
    if message.stop_reason == "aborted":
        return "Aborted."
    if message.stop_reason == "error":
        return f"Error: {message.error_message or 'request failed'}"
    return ""


def tool_result_text(content: Sequence[Any]) -> str:
    return "".join(block.text for block in content if isinstance(block, TextContent))
