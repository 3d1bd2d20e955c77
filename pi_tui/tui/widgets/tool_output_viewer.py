"""The tool-output viewer pane: the session's tool calls, and for one of them what the model got or the
full output, with the lines the model saw highlighted.

The pane is handed data: `update_calls` with the calls the screen keeps (a `ToolCallLog`), `append_live`
with a running call's latest output. The full output of a truncated call lives in its spill file; the pane
pages it through a `SpillReader` (made by the `open_spill` factory it is given), whose coroutines do every
read in a thread. The pane only awaits them in its own workers, so it never blocks on the disk and
nothing outlives it when it is removed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Literal

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.reactive import var
from textual.widgets import Input, Static
from textual.worker import WorkType

from pi_tui.tools.diff_lines import parse_diff
from pi_tui.tui.spill_reader import SpillReader
from pi_tui.tui.tool_calls import ToolCallInfo, split_notice
from pi_tui.tui.widgets.fitted_title import FittedTitle
from pi_tui.tui.widgets.line_view import LineView
from pi_tui.tui.widgets.path_notice import PathNotice
from pi_tui.tui.widgets.tool_list import ToolList

ViewMode = Literal["model", "full"]
SpillOpener = Callable[[str], SpillReader]
INDEX_CHUNKS_PER_STEP = 4
"""Spill-file indexing reports progress (and the view grows) after this many 1 MiB chunks."""


NOTHING_SELECTED = "No tool call selected."


class ToolOutputViewer(Vertical):
    """Tool calls on top; below, the selected call's output, toggled between the model's view and the
    full output."""

    ALLOW_MAXIMIZE = True
    """F11 gives the pane the whole screen."""

    DEFAULT_CSS = """
    ToolOutputViewer {
        height: 1fr;
        & > #tool-output-header {
            height: 1;
            background: $panel;
            & > #tool-output-title { width: 1fr; color: $text; text-style: bold; }
            & > #tool-output-status { width: auto; color: $text-muted; padding: 0 1; }
        }
        & > #tool-output-notice { color: $warning; background: $boost; }
        & > #tool-output-notice.-empty { display: none; }
        & > LineView { height: 1fr; }
        & > #tool-output-search { display: none; }
        &.-searching > #tool-output-search { display: block; }
    }
    """

    BINDINGS = [
        Binding("t", "toggle_view", "Model/full"),
        Binding(
            "u",
            "restore_before",
            "Restore file to before",
            tooltip="The files as before this call",
            show=False,
        ),
        # Priority: run when the app reads the key, so the focus is in the search box before the app
        # hands on the keys typed behind it (a burst or a paste of "ctrl+f 123" lost its "1"). Not `/`:
        # there `/` starts a slash command in the editor, as everywhere.
        Binding(
            "ctrl+f", "open_search", "Search", tooltip="Search the output (n / N: next, back)", priority=True
        ),
        Binding("h", "edit_context", "Hide/restore", tooltip="Hide this result from the model, or undo that"),
        Binding("escape", "close_search", "Close search"),
    ]

    mode: var[ViewMode] = var[ViewMode]("model")
    """Which text is shown: what the model got, or the full output."""
    searching: var[bool] = var(False, toggle_class="-searching")
    """The search box is open (ctrl+f); until it closes, Esc closes it."""

    @dataclass
    class ViewToggled(Message):
        """The user switched between the model's view and the full output."""

        viewer: ToolOutputViewer
        call_key: str | None
        mode: ViewMode

        @property
        def control(self) -> ToolOutputViewer:
            return self.viewer

    @dataclass
    class RestoreBeforeRequested(Message):
        """`u` on an edit, write or bash call with a checkpoint: restore its files to before it."""

        viewer: ToolOutputViewer
        tool_call_id: str

        @property
        def control(self) -> ToolOutputViewer:
            return self.viewer

    @dataclass
    class EditWanted(Message):
        """`h` on a call: hide its result from future requests (or note it), or undo its edit."""

        viewer: ToolOutputViewer
        tool_call_id: str

        @property
        def control(self) -> ToolOutputViewer:
            return self.viewer

    def __init__(
        self,
        *,
        open_spill: SpillOpener = SpillReader,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self._open_spill = open_spill
        self._calls: dict[str, ToolCallInfo] = {}
        self._selected: str | None = None
        self._reader: SpillReader | None = None
        self._problem = ""
        self._indexing: SpillReader | None = None
        self._index_again = False

    def compose(self) -> ComposeResult:
        yield ToolList(id="tool-list")
        with Horizontal(id="tool-output-header"):
            yield FittedTitle(NOTHING_SELECTED, id="tool-output-title")
            yield Static("", id="tool-output-status", markup=False)
        yield PathNotice(id="tool-output-notice", classes="-empty")
        yield LineView(id="tool-output-lines")
        yield Input(placeholder="search (Enter: next match, Esc: close)", id="tool-output-search")

    def on_mount(self) -> None:
        if self._calls:
            self.tool_list.update_calls(list(self._calls.values()))

    @property
    def tool_list(self) -> ToolList:
        return self.query_one(ToolList)

    @property
    def line_view(self) -> LineView:
        return self.query_one(LineView)

    @property
    def selected(self) -> str | None:
        return self._selected

    @property
    def reader(self) -> SpillReader | None:
        """The reader of the shown spill file (None in the model view or when nothing spilled)."""
        return self._reader

    # --- data handed down ----------------------------------------------------------------------------

    def update_calls(self, calls: Sequence[ToolCallInfo]) -> None:
        """The session's calls as they are now; changed ones are redrawn, the selection is kept."""
        previous = self._calls.get(self._selected) if self._selected else None
        self._calls = {call.key: call for call in calls}
        if not self.is_mounted:  # handed over on mount
            return
        self.tool_list.update_calls(calls)
        if self._selected is not None and self._selected not in self._calls:
            self._unselect()
            return
        current = self._calls.get(self._selected) if self._selected else None
        if current is not None and current != previous:
            self._refresh_content(previous)

    def _unselect(self) -> None:
        """The shown call is not in this session or branch any more: show nothing rather than it."""
        self._selected = None
        self._problem = ""
        self._close_reader()
        self.line_view.clear_search()
        self.line_view.show_lines([])
        self.line_view.highlight([])
        self.query_one("#tool-output-title", FittedTitle).show(NOTHING_SELECTED)
        notice = self.query_one("#tool-output-notice", PathNotice)
        notice.show("")
        notice.add_class("-empty")

    def select(self, key: str) -> None:
        """Show one call (its model view first), by its key; unknown keys are ignored."""
        if key not in self._calls or key == self._selected:
            return
        self._selected = key
        self.tool_list.select_call(key)
        call = self._calls[key]
        self.line_view.follow = call.status == "running"
        self.line_view.clear_search()  # its matches were lines of the call shown before
        self._problem = ""
        self._close_reader()
        self._show()

    def append_live(self, key: str, partial_text: str) -> None:
        """A running call's latest output (the whole tail so far, as the bash tool streams it)."""
        call = self._calls.get(key)
        if call is None or call.model_text == partial_text:
            return
        updated = replace(call, model_text=partial_text)
        self._calls[key] = updated
        if key == self._selected:
            self._refresh_content(call)

    # --- actions ---------------------------------------------------------------------------------------

    def action_toggle_view(self) -> None:
        self.mode = "full" if self.mode == "model" else "model"
        self.post_message(self.ViewToggled(self, self._selected, self.mode))

    def action_edit_context(self) -> None:
        call = self._calls.get(self._selected) if self._selected else None
        if call is None:
            self.notify("No tool call selected.")
            return
        self.post_message(self.EditWanted(self, call.id))

    def action_restore_before(self) -> None:
        call = self._calls.get(self._selected) if self._selected else None
        if call is None or call.checkpoint is None:
            self.notify("This call kept no file checkpoint.")
            return
        self.post_message(self.RestoreBeforeRequested(self, call.id))

    def watch_mode(self) -> None:
        self._problem = ""
        if self.is_mounted:
            self.line_view.clear_search()  # the other view is another text
            self._show()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Without a search box Esc means what the screen says (abort).
        if action == "close_search":
            return self.searching
        return True

    def action_open_search(self) -> None:
        self.searching = True
        # At once (`focus()` would wait for the keys already queued, which then missed the box).
        self.screen.set_focus(self.query_one("#tool-output-search", Input))

    def action_close_search(self) -> None:
        self.searching = False
        self.line_view.focus()

    def watch_searching(self) -> None:
        self.refresh_bindings()

    @on(Input.Submitted, "#tool-output-search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.line_view.search(event.value)
        self.searching = False
        self.line_view.focus()

    @on(ToolList.ToolSelected)
    def _tool_selected(self, event: ToolList.ToolSelected) -> None:
        self.select(event.call_key)

    @on(LineView.StatusChanged)
    def _status_changed(self, event: LineView.StatusChanged) -> None:
        event.stop()
        self.query_one("#tool-output-status", Static).update(event.text)

    @on(LineView.SearchRequested)
    def _search_requested(self, event: LineView.SearchRequested) -> None:
        event.stop()
        reader = self._reader
        if reader is not None:
            self._spawn(partial(self._search, reader, event.query), group="spill-search", exclusive=True)

    # --- showing -------------------------------------------------------------------------------------

    def _refresh_content(self, previous: ToolCallInfo | None) -> None:
        call = self._calls[self._selected] if self._selected else None
        if call is None:
            return
        if self.mode == "model" or call.spill_path is None:
            self._show(keep_position=True)
        elif previous is None or previous.spill_path != call.spill_path:
            self._close_reader()
            self._show()
        elif self._reader is not None:
            self._start_indexing(self._reader)
        self._show_header(call)

    def _show(self, *, keep_position: bool = False) -> None:
        call = self._calls.get(self._selected) if self._selected else None
        view = self.line_view
        if call is None:
            view.show_lines([])
            return
        self._show_header(call)
        if self.mode == "full" and call.spill_path is not None and not self._problem:
            if self._reader is None or str(self._reader.path) != call.spill_path:
                self._reader = self._open_spill(call.spill_path)
                view.show_paged(self._reader.line_count, self._page_source(self._reader))
                view.highlight(_seen_lines(call))
                self._start_indexing(self._reader, jump_to=_first_seen(call))
            return
        self._close_reader()
        text = call.model_text if call.model_text else ""
        lines = text.split("\n") if text else []
        preview, notice = split_notice(text)
        diff = parse_diff(call.diff) if call.diff else []
        view.show_lines(
            [*lines, ""] if diff else lines,
            keep_position=keep_position,
            # What the model got is numbered as its notice counts the full output; the notice is not
            # a line of the output.
            first_number=call.first_line,
            numbered=preview.count("\n") + 1 if notice or diff else None,
            diff=diff,
        )
        view.highlight([])

    def _show_header(self, call: ToolCallInfo) -> None:
        spilled = call.spill_path is not None
        if self.mode == "model":
            what = "what the model got"
        elif spilled:
            what = f"full output ({call.lines:,} lines)"
        else:
            what = "full output (nothing was cut: the model got all of it)"
        if call.diff and not (self.mode == "full" and spilled):
            what += ", then the diff"
        title = self.query_one("#tool-output-title", FittedTitle)
        title.show(f"{call.name} ", call.args_summary, f" — {what} [{call.status}]")
        notice = self._problem or call.notice
        if self.mode == "full" and spilled and call.shown_range is not None and not self._problem:
            shown = call.shown_range
            notice = (
                f"Highlighted: lines {shown.start:,}-{shown.end:,}, what the model saw. {call.spill_path}"
            )
        if call.checkpoint:
            kept = f"{call.checkpoint}. u: restore to before"
            notice = f"{notice}  ·  {kept}" if notice else kept
        widget = self.query_one("#tool-output-notice", PathNotice)
        widget.show(notice, call.spill_path)
        widget.set_class(not notice, "-empty")

    def _close_reader(self) -> None:
        self._reader = None
        self._indexing = None
        self.workers.cancel_group(self, "spill-index")
        self.workers.cancel_group(self, "spill-search")

    # --- workers (reads run in threads inside SpillReader) ---------------------------------------------

    def _spawn(self, job: WorkType[None], *, group: str, exclusive: bool = False) -> None:
        """Start a worker from a coroutine function, so one cancelled before it starts leaves nothing
        un-awaited behind."""
        self.run_worker(job, group=group, exclusive=exclusive, exit_on_error=False)

    def _page_source(self, reader: SpillReader) -> Callable[[int, int], None]:
        def source(start: int, count: int) -> None:
            self._spawn(partial(self._load_page, reader, start, count), group="spill-page")

        return source

    def _start_indexing(self, reader: SpillReader, jump_to: int | None = None) -> None:
        """Index the spill file; if that is under way, index again once it is done (the file grew)."""
        if self._indexing is reader:
            self._index_again = True
            return
        self._indexing = reader
        self._index_again = False
        self._spawn(partial(self._index, reader, jump_to), group="spill-index", exclusive=True)

    async def _index(self, reader: SpillReader, jump_to: int | None) -> None:
        def progressed(lines: int) -> None:
            nonlocal jump_to
            if reader is not self._reader:
                return
            self.line_view.set_total(lines)
            if jump_to is not None and jump_to < lines and not self.line_view.follow:
                self.line_view.scroll_to_line(jump_to)
                jump_to = None

        try:
            while True:
                await reader.build_index(chunks_per_step=INDEX_CHUNKS_PER_STEP, on_progress=progressed)
                if not self._index_again or reader is not self._reader:
                    break
                self._index_again = False
        except OSError as error:
            self._fail(reader, error)
        finally:
            if self._indexing is reader:
                self._indexing = None

    async def _load_page(self, reader: SpillReader, start: int, count: int) -> None:
        try:
            lines = await reader.read_lines(start, count)
        except OSError as error:
            self._fail(reader, error)
            return
        if reader is self._reader:
            self.line_view.provide(start, lines)

    async def _search(self, reader: SpillReader, query: str) -> None:
        try:
            result = await reader.search(query)
        except OSError as error:
            self._fail(reader, error)
            return
        if reader is self._reader:
            self.line_view.set_matches(query, result.lines, result.complete and reader.index_complete)

    def _fail(self, reader: SpillReader, error: OSError) -> None:
        if reader is not self._reader:
            return
        self._reader = None
        self._problem = (
            f"Cannot read the full output ({error.strerror or error}); showing what the model got."
        )
        self._show()


def _seen_lines(call: ToolCallInfo) -> list[tuple[int, int]]:
    shown = call.shown_range
    return [(shown.start - 1, shown.end)] if shown is not None else []


def _first_seen(call: ToolCallInfo) -> int | None:
    return call.shown_range.start - 1 if call.shown_range is not None else None
