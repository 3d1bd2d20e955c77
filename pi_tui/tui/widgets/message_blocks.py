"""The blocks a conversation is made of: user turns, assistant replies and notices (tool calls have
their own module, `tool_call_block`).

Each block renders what it is handed and keeps only what it needs to render the next update; none
of them reads files or talks to the session.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Collapsible, Markdown, Static
from textual.widgets._markdown import MarkdownStream

from pi_tui.ai.messages import AssistantMessage, TextContent, ThinkingContent, ToolCall
from pi_tui.tui.markdown_segments import safe_cut
from pi_tui.tui.textual_fixes import stop_markdown_stream
from pi_tui.tui.tool_calls import summarize_args
from pi_tui.tui.widgets.markdown_view import MarkdownView

SEGMENT_BLOCKS = 24
"""A streamed text grows in Markdown segments of about this many top-level blocks: a relayout then
re-arranges only the last segment, the finished ones keep their placements."""


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
        error = failure_text(self.final)
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
        error = failure_text(message)
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


def failure_text(message: AssistantMessage) -> str:
    """The line below a reply that failed (empty for one that did not), wherever a reply is shown."""
    if message.stop_reason == "aborted":
        return "Aborted."
    if message.stop_reason == "error":
        return f"Error: {message.error_message or 'request failed'}"
    return ""


def tool_result_text(content: Sequence[Any]) -> str:
    return "".join(block.text for block in content if isinstance(block, TextContent))
