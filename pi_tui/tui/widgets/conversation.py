"""The conversation pane: a stream of blocks, anchored to the bottom unless the user scrolled up."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from typing import Any

from textual import on
from textual.containers import VerticalScroll
from textual.reactive import var
from textual.widget import Widget

from pi_tui.agent.events import (
    MessageEndEvent,
    MessageStartEvent,
    MessageUpdateEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    ToolExecutionUpdateEvent,
)
from pi_tui.ai.call_pairing import CallPairing, call_key, results_by_key
from pi_tui.ai.messages import (
    AgentMessage,
    AssistantMessage,
    BashExecutionMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    user_text,
)
from pi_tui.ai.retryable import is_retryable_error
from pi_tui.context.cache_policy import cache_warmed_text
from pi_tui.session.compaction_sizes import ShownSize, estimated, size_text
from pi_tui.session.session_events import (
    AnyEvent,
    AutoRetryEndEvent,
    AutoRetryStartEvent,
    BashEndEvent,
    BashOutputEvent,
    BashStartEvent,
    CacheMissEvent,
    CacheWarmedEvent,
    CompactionEndEvent,
    ModelFallbackEvent,
    ProviderNoticeEvent,
)
from pi_tui.session.transcript import Transcript
from pi_tui.tui.widgets.message_blocks import (
    AssistantBlock,
    EarlierMessages,
    NoticeBlock,
    UserBlock,
    tool_result_text,
)
from pi_tui.tui.widgets.parked_markdown import MarkdownParking
from pi_tui.tui.widgets.retry_line import RetryLine, retry_failed_text, retry_outcome
from pi_tui.tui.widgets.tool_call_block import ToolCallBlock, finished_status
from pi_tui.tui.widgets.transcript_rows import newest_filling
from pi_tui.tui.widgets.user_shell import (
    show_user_shell_result,
    user_shell_block,
    user_shell_transcript_block,
)

clock: Callable[[], float] = time.monotonic
TOOL_TICK_SECONDS = 1.0
"""How often a running tool's block recounts its seconds (a silent command sends no update)."""
"""Where tool timings come from; tests fix it for reproducible snapshots."""

TRANSCRIPT_PAGE = 12
"""Messages mounted when a transcript is shown, and per "earlier messages" request. Every widget costs
milliseconds to mount and lay out and a Markdown reply is dozens of them, so a long session mounted
whole would take minutes to open (bench/tui.py measures it)."""
OUTPUT_EVENTS = frozenset(
    {
        "message_start",
        "message_update",
        "message_end",
        "tool_execution_start",
        "tool_execution_update",
        "tool_execution_end",
        "auto_retry_start",
        "auto_retry_end",
        "compaction_end",
        "bash_start",
        "bash_output",
        "bash_end",
        "model_fallback",
    }
)
"""The events that add to or change what the conversation shows."""
FIRST_PAGE_SCREENS = 1.5
"""Of that page, the first frame waits only for the newest messages estimated to fill this many viewport
heights (the estimate errs low: measured, 1.5 estimated screens of a coding session draw as 2.5); the
rest of the page is mounted above them right after it, unless the user scrolled away by then.
bench/tui.py, open: 4 of 12 messages mounted before the first frame, 580-750 ms -> 425-480 ms."""


class ConversationView(VerticalScroll):
    """Renders session events and rebuilt transcripts; one Markdown widget per assistant reply."""

    ALLOW_MAXIMIZE = True
    """F11 gives the pane the whole screen."""

    unseen_output = var(False)
    """Output arrived below while the user was scrolled away from the end; cleared back at the end."""

    DEFAULT_CSS = """
    ConversationView { layout: stream; padding: 0 1; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._assistant: AssistantBlock | None = None
        self._tools: dict[str, ToolCallBlock] = {}
        """Every tool call's block by its key (`call_pairing.call_key`), the newest last."""
        self._pairing = CallPairing()
        """Which block a tool event is for: ids are unique only within one assistant message."""
        self._tool_started: dict[str, float] = {}
        self._retry = RetryLine(self, lambda: clock())
        self._bash: ToolCallBlock | None = None
        self._rendering = asyncio.Lock()
        self._earlier: list[AgentMessage] = []
        self._results: dict[str, ToolResultMessage] = {}
        self._transcript = Transcript()
        """The transcript shown (its compaction sizes and retry outcomes serve later pages too)."""
        self._retry_notes: dict[int, NoticeBlock] = {}
        """By `id()` of a failed reply of the shown transcript, the retry line shown below it."""
        self._marker: EarlierMessages | None = None
        self._transcripts = 0
        self.show_cache_notices: Callable[[], bool] = lambda: False
        """pi 1.6's `showCacheMissNotices`, read when a notice is due (the chat screen sets it)."""
        """Counts transcripts shown, so a top-up queued for one is not applied to the next."""
        self._parking = MarkdownParking(self, self._rendering)

    def on_mount(self) -> None:
        # A command that prints nothing sends no update: its block's seconds go on counting all the same.
        self.set_interval(TOOL_TICK_SECONDS, self._tick_running_tools)
        self.anchor()
        self.watch(self, "scroll_y", self._parking.schedule, init=False)
        self.watch(self, "scroll_y", self._seen_when_at_end, init=False)

    def on_resize(self) -> None:
        self._parking.schedule()

    def _tick_running_tools(self) -> None:
        now = clock()
        for key, started in self._tool_started.items():
            tool = self._tools.get(key)
            elapsed = now - started
            if tool is not None and elapsed >= TOOL_TICK_SECONDS:
                tool.show_status(f"running {elapsed:.1f}s")

    @property
    def following(self) -> bool:
        """The view keeps to the end as output arrives. Textual's anchor is released when the user scrolls
        away from the end and restored when they come back to it (or jump there)."""
        return not self._anchor_released

    def _seen_when_at_end(self) -> None:
        if self.following:
            self.unseen_output = False

    def scroll_end(self, *args: Any, **kwargs: Any) -> None:
        # Back at the end the anchor holds the view there with no change of `scroll_y` to watch.
        super().scroll_end(*args, **kwargs)
        self._seen_when_at_end()

    def jump_to_end(self) -> None:
        """To the newest output, following it again."""
        self.scroll_end(animate=False)

    def page(self, pages: int | None) -> None:
        """A page up (-1) or down (1); None: to the end."""
        if pages is None:
            self.jump_to_end()
        elif pages < 0:
            self.scroll_page_up(animate=False)
        else:
            self.scroll_page_down(animate=False)

    # --- whole transcripts ----------------------------------------------------------------------

    async def show_transcript(self, transcript: Transcript | Sequence[AgentMessage]) -> None:
        """Replace everything with a session's transcript (`session.transcript`) or plain messages (on
        open, resume, a move in the tree)."""
        if not isinstance(transcript, Transcript):
            transcript = Transcript(list(transcript))
        async with self._rendering:
            await self._show_transcript(transcript)

    async def _show_transcript(self, transcript: Transcript) -> None:
        messages = transcript.messages
        await self.remove_children()
        self._transcript = transcript
        self._retry_notes = retry_notes(messages)
        self._assistant = None
        self._tools.clear()
        self._pairing = CallPairing()
        self._results = results_by_key(messages, self._pairing)
        shown: list[AgentMessage] = [m for m in messages if not isinstance(m, ToolResultMessage)]
        page = shown[max(0, len(shown) - TRANSCRIPT_PAGE) :]
        viewport = self.scrollable_content_region.size or self.app.size  # before the first layout
        first = newest_filling(page, viewport.width, int(viewport.height * FIRST_PAGE_SCREENS))
        cut = len(shown) - first
        self._earlier = shown[:cut]
        blocks = self._blocks(shown[cut:])
        self._marker = EarlierMessages(cut, TRANSCRIPT_PAGE) if cut else None
        await self.mount_all([self._marker, *blocks] if self._marker else blocks)
        self.anchor()
        self.unseen_output = False
        self._parking.schedule()
        self._transcripts += 1
        if first < len(page):
            self.call_after_refresh(self._top_up, self._transcripts, len(page) - first)

    async def _top_up(self, transcript: int, count: int) -> None:
        """The rest of the first page, mounted above the first frame's messages while out of sight."""
        async with self._rendering:
            if transcript == self._transcripts and self.is_vertical_scroll_end:
                await self._mount_earlier(count)

    @on(EarlierMessages.Pressed)
    async def show_earlier(self) -> None:
        """Mount the next older page of the transcript above what is shown."""
        async with self._rendering:
            await self._mount_earlier(TRANSCRIPT_PAGE)

    async def _mount_earlier(self, count: int) -> None:
        marker = self._marker
        if marker is None:
            return
        cut = max(0, len(self._earlier) - count)
        page, self._earlier = self._earlier[cut:], self._earlier[:cut]
        newer, self._tools = self._tools, {}
        blocks = self._blocks(page)
        self._tools.update(newer)  # the newest call stays last, for ctrl+o
        await self.mount_all(blocks, after=marker)
        if self._earlier:
            marker.set_count(len(self._earlier), TRANSCRIPT_PAGE)
        else:
            self._marker = None
            if marker.has_focus:  # rather than wherever Textual's focus chain lands (a tool call)
                self.focus(scroll_visible=False)
            await marker.remove()
        self._parking.schedule()

    def _blocks(self, messages: Sequence[AgentMessage]) -> list[Widget]:
        """Finished messages as blocks, each tool call with the result that answers it."""
        blocks: list[Widget] = []
        for message in messages:
            if isinstance(message, AssistantMessage):
                blocks.append(AssistantBlock(final=message))
                if (note := self._retry_notes.get(id(message))) is not None:
                    blocks.append(note)
                for index, call in enumerate(message.content):
                    if not isinstance(call, ToolCall):
                        continue
                    key = call_key(message, index, call)
                    tool = ToolCallBlock(call.id, call.name, call.arguments, key=key)
                    self._tools[key] = tool
                    result = self._results.get(key)
                    if result is not None:
                        tool.show_output(
                            tool_result_text(result.content),
                            status=finished_status(result.is_error, tool_seconds(message, result)),
                            is_error=result.is_error,
                            details=result.details,
                        )
                    blocks.append(tool)
            elif isinstance(message, CompactionSummaryMessage):
                blocks.append(_compaction_block(message, self._transcript.compaction_size(message)))
            elif (block := _message_block(message)) is not None:
                blocks.append(block)
        return blocks

    async def _mount_message(self, message: AgentMessage) -> None:
        block = _message_block(message)
        if block is not None:
            await self.mount(block)

    # --- live events ----------------------------------------------------------------------------

    async def apply(self, events: Sequence[AnyEvent]) -> None:
        # Live events and whole-transcript rebuilds come from different tasks; they must not interleave.
        async with self._rendering:
            for event in events:
                await self._apply_one(event)
        self._parking.schedule()
        arrived = any(event.type in OUTPUT_EVENTS for event in events)
        self.unseen_output = not self.following and (self.unseen_output or arrived)

    async def _apply_one(self, event: AnyEvent) -> None:
        if isinstance(event, MessageStartEvent):
            if isinstance(event.message, AssistantMessage):
                self._retry.request_started()
                self._assistant = AssistantBlock()
                await self.mount(self._assistant)
            elif not isinstance(event.message, ToolResultMessage):
                await self._mount_message(event.message)
        elif isinstance(event, MessageUpdateEvent) and isinstance(event.message, AssistantMessage):
            if self._assistant is not None:
                await self._assistant.show(event.message)
        elif isinstance(event, MessageEndEvent) and isinstance(event.message, AssistantMessage):
            if self._assistant is None:
                self._assistant = AssistantBlock()
                await self.mount(self._assistant)
            await self._assistant.finish(event.message)
            self._assistant = None
            self._pairing.turn(event.message)
        elif isinstance(event, ToolExecutionStartEvent):
            key = self._pairing.key_for(event.tool_call_id)
            block = ToolCallBlock(event.tool_call_id, event.tool_name, event.args, key=key)
            self._tools[key] = block
            self._tool_started[key] = clock()
            await self.mount(block)
        elif isinstance(event, ToolExecutionUpdateEvent):
            key = self._pairing.key_for(event.tool_call_id)
            tool = self._tools.get(key)
            if tool is not None:
                elapsed = clock() - self._tool_started.get(key, clock())
                tool.show_output(
                    event.partial_result.text_content,
                    status=f"running {elapsed:.1f}s",
                    live=True,
                    details=event.partial_result.details,
                )
        elif isinstance(event, ToolExecutionEndEvent):
            key = self._pairing.key_for(event.tool_call_id)
            tool = self._tools.get(key)
            if tool is not None:
                took = clock() - self._tool_started.pop(key, clock())
                tool.show_output(
                    event.result.text_content,
                    status=finished_status(event.is_error, took),
                    is_error=event.is_error,
                    details=event.result.details,
                )
        else:
            await self._apply_session_event(event)

    async def _apply_session_event(self, event: AnyEvent) -> None:
        if isinstance(event, AutoRetryStartEvent):
            await self._retry.start(event)
        elif isinstance(event, AutoRetryEndEvent):
            await self._retry.end(event)
        elif isinstance(event, CompactionEndEvent):
            # While it runs, the status line above the editor says so.
            if event.result is not None:
                await self.mount(NoticeBlock(compaction_note(estimated(event.result.size))))
            elif event.aborted:
                await self.mount(NoticeBlock("Compaction cancelled", kind="warning"))
            elif event.error_message:
                await self.mount(NoticeBlock(event.error_message, kind="error"))
        elif isinstance(event, BashStartEvent):
            self._bash = user_shell_block(event.command, event.exclude_from_context)
            await self.mount(self._bash)
        elif isinstance(event, BashOutputEvent):
            if self._bash is not None:
                self._bash.show_output(event.output, status="running", live=True)
        elif isinstance(event, BashEndEvent):
            block, self._bash = self._bash, None
            if block is not None:
                show_user_shell_result(block, event.message, pending=event.pending)
        elif isinstance(event, ProviderNoticeEvent | CacheMissEvent):
            await self.mount(NoticeBlock(event.text, kind="warning"))
        elif isinstance(event, CacheWarmedEvent) and self.show_cache_notices():
            await self.mount(NoticeBlock(cache_warmed_text(event.cost)))
        elif isinstance(event, ModelFallbackEvent):
            await self.mount(
                NoticeBlock(
                    f"Switched model {event.from_model} → {event.to_model}: {event.error_message}",
                    kind="warning",
                )
            )

    def current_tool(self) -> ToolCallBlock | None:
        """The tool call ctrl+o and F3 act on: the focused one, or the latest."""
        focused = self.screen.focused
        if isinstance(focused, ToolCallBlock):
            return focused
        return list(self._tools.values())[-1] if self._tools else None

    def toggle_tool_output(self) -> None:
        """Ctrl+O: expand or collapse the focused tool call, or the latest one."""
        target = self.current_tool()
        if target is not None:
            target.toggle_expanded()


def _message_block(message: AgentMessage) -> Widget | None:
    """The block of a user-side or marker message; assistant replies and tool results have their own."""
    if isinstance(message, UserMessage | CustomMessage):
        return UserBlock(user_text(message), markup=False)
    if isinstance(message, BashExecutionMessage):
        return user_shell_transcript_block(message)
    if isinstance(message, CompactionSummaryMessage):
        return _compaction_block(message, None)
    if isinstance(message, BranchSummaryMessage):
        return NoticeBlock("Returned from another branch (summary in context)")
    return None


def _compaction_block(message: CompactionSummaryMessage, size: ShownSize | None) -> NoticeBlock:
    """A compaction's note; without the transcript's `size`, with the figure the message carries."""
    return NoticeBlock(compaction_note(size or ShownSize(message.tokens_before, None, None)))


def compaction_note(size: ShownSize) -> str:
    """The line a compaction leaves in the conversation, live and in a resumed transcript alike."""
    return f"Compacted {size_text(size)} tokens (whole request)"


def tool_seconds(call: AssistantMessage, result: ToolResultMessage) -> float | None:
    """How long a finished call ran, from what a session file holds: the result's own `durationMs`
    (pi 1.6 writes it), else the time from the end of the reply that made the call (its `timestamp`,
    when the request went out, plus its `durationMs`) to the result's `timestamp`. Calls of one reply
    run from that moment on (concurrently by default), so each counts from it. None: not derivable."""
    if result.duration_ms is not None:
        return result.duration_ms / 1000
    if call.duration_ms is None or not call.timestamp or not result.timestamp:
        return None
    return max(0, result.timestamp - (call.timestamp + call.duration_ms)) / 1000


def retry_notes(messages: Sequence[AgentMessage]) -> dict[int, NoticeBlock]:
    """The retry lines a live run left below its failed attempts, found again in a transcript: a reply
    that failed with a transient error (`is_retryable_error`) directly followed by another reply was
    retried. Its line tells how the retry went, as `RetryLine` ended it: the next attempt failed again
    and was retried, succeeded, or was the last (its failure final)."""
    notes: dict[int, NoticeBlock] = {}
    attempt = 0
    for index, message in enumerate(messages):
        if not isinstance(message, AssistantMessage):
            attempt = 0
            continue
        after = messages[index + 1] if index + 1 < len(messages) else None
        if not (is_retryable_error(message) and isinstance(after, AssistantMessage)):
            attempt = 0
            continue
        attempt += 1
        then = messages[index + 2] if index + 2 < len(messages) else None
        retried_again = is_retryable_error(after) and isinstance(then, AssistantMessage)
        if not after.failed:
            text, kind = retry_outcome(True, attempt, None)
        elif retried_again:
            text, kind = retry_failed_text(attempt, after.error_message), "warning"
        else:
            text, kind = retry_outcome(False, attempt, after.error_message)
        notes[id(message)] = NoticeBlock(text, kind=kind)
    return notes
