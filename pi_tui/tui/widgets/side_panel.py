"""The chat's side panel: context inspector, tool-output viewer, compaction timeline, one tab each.

The panel owns the workers that build its panes' data off the event loop (session files, token counts,
audits), so they end with it, and carries out what its panes ask for (restore, re-compact, pin) through
the session. The chat screen hands it the session's events (`forward_events`), tells it when the
session changes (`reset`) and which pane to open (`open_pane`); where the panel sits on screen (shown,
hidden, maximised) is the screen's business.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Sequence
from typing import TYPE_CHECKING, Any

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.events import DescendantFocus
from textual.message import Message
from textual.widget import Widget
from textual.widgets import TabbedContent, TabPane

from pi_tui.agent.events import (
    AgentEvent,
    MessageEndEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    ToolExecutionUpdateEvent,
)
from pi_tui.context.compaction.pins import Pin
from pi_tui.session.compaction_ops import PreviewBasis
from pi_tui.session.compaction_pins import pin_text, unpin
from pi_tui.session.context_edits import EditAction, default_note, is_edited, tool_result_entry_id
from pi_tui.session.inspector import InspectorCache
from pi_tui.session.restore_hold import restore_cost
from pi_tui.session.session_events import AnyEvent
from pi_tui.session_file.context_rebuild import entry_message
from pi_tui.session_file.entries import MessageEntry
from pi_tui.session_file.store import SessionStore
from pi_tui.tui.inspector_view import ledger_zones, segment_texts
from pi_tui.tui.screens.dialogs import ChoiceDialog
from pi_tui.tui.timeline_view import CompactionDetailData, detail_for, preview_for, timeline_rows
from pi_tui.tui.tool_calls import ToolCallLog
from pi_tui.tui.widgets.compaction_detail import CompactionDetail
from pi_tui.tui.widgets.compaction_timeline import CompactionTimeline
from pi_tui.tui.widgets.context_inspector import ContextInspector
from pi_tui.tui.widgets.tool_output_viewer import ToolOutputViewer
from pi_tui.tui.worker_results import deliver

if TYPE_CHECKING:
    from pi_tui.session.agent_session import AgentSession
    from pi_tui.session.runtime import AgentSessionRuntime
    from pi_tui.tui.screens.rewind_flow import RewindFlow

INSPECTOR_EVENTS = frozenset(
    {
        "agent_end",
        "message_end",
        "compaction_end",
        "session_tree",
        "system_prompt_changed",
        "model_changed",
        "context_edited",
    }
)
TIMELINE_EVENTS = frozenset({"compaction_end", "session_tree"})
TOOL_LOG_EVENTS = (ToolExecutionStartEvent, ToolExecutionUpdateEvent, ToolExecutionEndEvent, MessageEndEvent)
FIRST_PAINT_WAIT_SECONDS = 2.0
"""How long workers that build secondary data (panes, footer figures) hold back for the conversation's
first frame before they go ahead anyway."""
PANES: dict[str, type[Widget]] = {
    "pane-context": ContextInspector,
    "pane-tools": ToolOutputViewer,
    "pane-compactions": CompactionTimeline,
}
"""Each tab's pane widget, in tab order: what F11 gives the whole screen."""
PANE_FOCUS = {
    "pane-context": "#inspector-table",
    "pane-tools": "#tool-list",
    "pane-compactions": "#timeline-table",
}
"""What a pane's key focuses the first time (afterwards: where the focus last was in that pane)."""
RESTORE_CHOICE = "restore"


class SidePanel(Vertical):
    """Shown beside the conversation, or in its place on a narrow screen (the screen decides)."""

    DEFAULT_CSS = """
    SidePanel > TabbedContent { height: 1fr; }
    """

    class Failed(Message):
        """A restore or a re-compaction failed: `text` says why, in the conversation."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self, runtime: AgentSessionRuntime, first_paint: threading.Event, *, id: str | None = None):
        super().__init__(id=id)
        self._runtime = runtime
        self._first_paint = first_paint
        """Set once the conversation is on screen: the workers wait for it (see FIRST_PAINT_WAIT_SECONDS)."""
        self._inspector_cache = InspectorCache()
        self._inspector_lock = threading.Lock()
        """Held while a worker uses that cache: a superseded refresh still runs (a thread cannot be
        stopped), and two builds at once on one cache made the newer one report an unknown usage."""
        self._tool_log: ToolCallLog | None = None
        self._early_tool_events: list[AgentEvent] = []
        """Tool events that arrived while the log was being rebuilt: applied to it once it is back."""
        self._tool_log_request = object()
        self._pane_focus: dict[str, Widget] = {}
        """The widget last focused in each pane (by pane id), focused again when the pane is opened."""

    @property
    def session(self) -> AgentSession:
        return self._runtime.session

    def compose(self) -> ComposeResult:
        with TabbedContent(initial="pane-context"):
            with TabPane("Context", id="pane-context"):
                inspector = ContextInspector(id="inspector")
                inspector.clock_source = lambda: self.session.cache_clock_line()
                yield inspector
            with TabPane("Tools", id="pane-tools"):
                yield ToolOutputViewer(id="tool-viewer")
            with TabPane("Compactions", id="pane-compactions"):
                yield CompactionTimeline(id="timeline")

    def reset(self) -> None:
        """A new session (or the first): start every pane from the session file."""
        self._inspector_cache = InspectorCache()
        self._inspector_lock = threading.Lock()
        self._reload_tool_log()
        self.refresh_context_pane()
        self._refresh_timeline()

    def forward_events(self, events: Sequence[AnyEvent]) -> None:
        """The session's events, as the conversation got them: each pane follows what concerns it."""
        viewer = self.query_one(ToolOutputViewer)
        changed = False
        for event in events:
            if isinstance(event, TOOL_LOG_EVENTS):
                if self._tool_log is None:
                    self._early_tool_events.append(event)
                    continue
                key = self._tool_log.apply(event)
                changed = key is not None or changed
                if isinstance(event, ToolExecutionUpdateEvent) and key is not None and key == viewer.selected:
                    viewer.append_live(key, event.partial_result.text_content)
        if changed and self._tool_log is not None:
            viewer.update_calls(self._tool_log.calls())
        kinds = {event.type for event in events}
        if kinds & INSPECTOR_EVENTS:
            self.refresh_context_pane()
        if kinds & TIMELINE_EVENTS:
            self._reload_tool_log()
            self._refresh_timeline()

    # --- tabs and focus -------------------------------------------------------------------------------

    @property
    def active_pane(self) -> str:
        return self.query_one(TabbedContent).active

    def active_pane_widget(self) -> Widget:
        return self.query_one(PANES[self.active_pane])

    def open_pane(self, pane_id: str) -> None:
        """Bring `pane_id`'s tab forward and put the keyboard in it."""
        self.query_one(TabbedContent).active = pane_id
        self.focus_pane(pane_id)

    def focus_pane(self, pane_id: str) -> None:
        """Focus where the focus last was in the pane, or its main table."""
        remembered = self._pane_focus.get(pane_id)
        if remembered is not None and remembered.is_attached:
            self.screen.set_focus(remembered)
        elif pane_id in PANE_FOCUS:
            self.screen.set_focus(self.query_one(PANE_FOCUS[pane_id]))

    def on_descendant_focus(self, event: DescendantFocus) -> None:
        pane = next(
            (node for node in event.widget.ancestors if getattr(node, "id", None) in PANE_FOCUS), None
        )
        if pane is not None and pane.id is not None:
            self._pane_focus[pane.id] = event.widget

    def tools_focused(self) -> bool:
        """Whether the focus is inside the Tools pane."""
        viewer = self.query_one(ToolOutputViewer)
        focused = self.screen.focused
        return focused is not None and (focused is viewer or viewer in focused.ancestors)

    def select_tool_call(self, call_key: str) -> None:
        self.query_one(ToolOutputViewer).select(call_key)

    @on(TabbedContent.TabActivated)
    def _pane_activated(self) -> None:
        self.call_after_refresh(self.catch_up)

    def catch_up(self) -> None:
        """The inspector skips its table while hidden; displayed now, it fills it."""
        self.query_one(ContextInspector).catch_up()

    # --- tool calls ------------------------------------------------------------------------------------

    def _reload_tool_log(self) -> None:
        """Rebuild the tool-call log in a worker; events until it is back are kept. It is built from the
        branch, not the context: calls a compaction summarised away still have their full output."""
        store = self.session.store
        self._tool_log = None
        self._early_tool_events = []
        self._tool_log_request = request = object()
        self._load_tool_log(store, store.leaf_id, request)

    @work(thread=True, exclusive=True, group="tool-log", exit_on_error=False, description="tool log")
    def _load_tool_log(self, store: SessionStore, leaf_id: str | None, request: object) -> None:
        # (A description is given: by default Textual would repr the store for it.)
        self._first_paint.wait(FIRST_PAINT_WAIT_SECONDS)
        branch = store.get_branch(leaf_id) if leaf_id is not None else []
        log = ToolCallLog.from_messages(entry.message for entry in branch if isinstance(entry, MessageEntry))
        deliver(self, self._install_tool_log, log, request)

    def _install_tool_log(self, log: ToolCallLog, request: object) -> None:
        if request is not self._tool_log_request:  # built by a worker a newer reload replaced
            return
        for event in self._early_tool_events:
            log.apply(event)
        self._early_tool_events = []
        self._tool_log = log
        self.query_one(ToolOutputViewer).update_calls(log.calls())

    # --- context inspector ---------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="inspector", exit_on_error=False)
    def refresh_context_pane(self) -> None:
        """Recount the context and show it in the Context pane (in a worker; a newer call replaces it)."""
        self._first_paint.wait(FIRST_PAINT_WAIT_SECONDS)
        session = self.session
        cache, lock = self._inspector_cache, self._inspector_lock
        with lock:
            data = session.inspector_data(cache)
            context = session.store.build_context()
            texts = segment_texts(
                session.system_prompt,
                [tool.spec() for tool in session.active_tools],
                context.messages,
                context.entry_ids,
                model=session.model,
                zones=ledger_zones(cache.ledger),
                projection=context.projection,
            )
        deliver(self, lambda: self.query_one(ContextInspector).show(data, texts))

    # --- compaction timeline ------------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="timeline", exit_on_error=False)
    def _refresh_timeline(self, selected: str | None = None) -> None:
        self._first_paint.wait(FIRST_PAINT_WAIT_SECONDS)
        store = self.session.store
        rows = timeline_rows(store, self.session.checkpoints)
        chosen = selected or (rows[-1].compaction_id if rows else None)
        detail = self._detail(chosen) if chosen else None
        deliver(self, self._show_timeline, rows, detail, chosen)

    def _show_timeline(self, rows: Any, detail: Any, chosen: str | None) -> None:
        timeline = self.query_one(CompactionTimeline)
        timeline.show(rows, detail)
        if chosen is not None:
            timeline.select(chosen)

    def _detail(self, compaction_id: str) -> CompactionDetailData | None:
        session = self.session
        return detail_for(session.store, compaction_id, PreviewBasis.of_session(session), session.checkpoints)

    @on(CompactionTimeline.CompactionSelected)
    def _compaction_selected(self, event: CompactionTimeline.CompactionSelected) -> None:
        self._load_detail(event.compaction_id)

    @work(thread=True, exclusive=True, group="timeline-detail", exit_on_error=False)
    def _load_detail(self, compaction_id: str) -> None:
        detail = self._detail(compaction_id)
        deliver(self, lambda: self.query_one(CompactionTimeline).show_detail(detail))

    @on(CompactionTimeline.RestoreRequested)
    def _restore(self, event: CompactionTimeline.RestoreRequested) -> None:
        """Say what the restore brings back and what it does to automatic compaction, then ask."""
        compaction_id = event.compaction_id
        session = self.session
        cost = restore_cost(
            session.store, compaction_id, session.model, session.resources.settings.compaction
        )
        if cost is None:
            self.notify(f"{compaction_id} is not a compaction entry", severity="error")
            return

        def chosen(answer: str | None) -> None:
            if answer == RESTORE_CHOICE:
                self.run_worker(self._restore_work(compaction_id), group="command", exit_on_error=False)

        dialog = ChoiceDialog(
            "Restore before this compaction?",
            [(RESTORE_CHOICE, "Restore: continue from before it, on a new branch"), ("cancel", "Cancel")],
            hint=cost.describe(),
            filterable=False,
        )
        self.app.push_screen(dialog, callback=chosen)

    async def _restore_work(self, compaction_id: str) -> None:
        previous_leaf = self.session.store.leaf_id
        outcome = await self.session.restore_compaction(compaction_id)
        if outcome.error:
            self.post_message(self.Failed(outcome.error))
        else:
            self.notify("Restored: the next message continues from before that compaction, on a new branch.")
            await self.rewind_flow.offer_files_at_leaf(previous_leaf, "Bring the files along too?")

    @property
    def rewind_flow(self) -> RewindFlow:
        from pi_tui.tui.screens.rewind_flow import RewindFlow

        def start(work: Awaitable[None]) -> None:
            self.run_worker(work, group="command", exit_on_error=False)

        return RewindFlow(self.app, lambda: self.session, start, lambda _text: None, self.notify)

    @on(ToolOutputViewer.EditWanted)
    def _edit_tool_result(self, event: ToolOutputViewer.EditWanted) -> None:
        entry_id = tool_result_entry_id(self.session.store, event.tool_call_id)
        if entry_id is None:
            self.notify("This call has no result in the session yet.", severity="warning")
            return
        self._offer_context_edit(entry_id)

    @on(ContextInspector.EditWanted)
    def _edit_message(self, event: ContextInspector.EditWanted) -> None:
        self._offer_context_edit(event.entry_id)

    def _offer_context_edit(self, entry_id: str) -> None:
        """The preview (what the model loses, tokens saved per turn, what it costs now), then the edit."""
        session = self.session
        undo = is_edited(session.store, entry_id)
        preview = session.plan_context_edit(entry_id, "restore" if undo else "hide")
        if isinstance(preview, str):
            self.notify(preview, severity="warning", markup=False)
            return
        entry = session.store.get_entry(entry_id)
        message = entry_message(entry) if entry is not None else None
        note = default_note(message) if message is not None else ""
        if undo:
            options = [("restore", "Restore the original"), ("cancel", "Cancel")]
        else:
            options = [
                ("hide", "Hide it from future requests"),
                ("note", f"Replace it with a note: {note}"),
                ("cancel", "Cancel"),
            ]

        def chosen(answer: str | None) -> None:
            actions: dict[str | None, EditAction] = {"hide": "hide", "note": "note", "restore": "restore"}
            action = actions.get(answer)
            if action is not None:
                self.run_worker(self._edit_work(entry_id, action, note), group="command", exit_on_error=False)

        title = "Restore this entry?" if undo else "Hide this from the model?"
        hint = "\n".join(preview.lines())
        self.app.push_screen(ChoiceDialog(title, options, hint=hint, filterable=False), callback=chosen)

    async def _edit_work(self, entry_id: str, action: EditAction, note: str) -> None:
        preview = self.session.plan_context_edit(entry_id, action, note if action == "note" else None)
        refusal = preview if isinstance(preview, str) else await self.session.apply_context_edit(preview)
        if refusal is not None:
            self.notify(refusal, severity="warning", markup=False)
            return
        done = {"hide": "Hidden", "note": "Replaced with a note", "restore": "Restored"}[action]
        self.notify(f"{done}: the next request sends the context without re-reading it twice.", markup=False)

    @on(ToolOutputViewer.RestoreBeforeRequested)
    def _restore_before(self, event: ToolOutputViewer.RestoreBeforeRequested) -> None:
        self.run_worker(
            self.rewind_flow.restore_before(event.tool_call_id), group="command", exit_on_error=False
        )

    @on(CompactionTimeline.RecompactRequested)
    def _recompact(self, event: CompactionTimeline.RecompactRequested) -> None:
        self.run_worker(self._recompact_work(event.compaction_id, event.instructions), group="command")

    async def _recompact_work(self, compaction_id: str, instructions: str | None) -> None:
        outcome = await self.session.recompact(compaction_id, instructions)
        if outcome.error and not outcome.cancelled:
            self.post_message(self.Failed(outcome.error))

    @on(CompactionTimeline.PreviewRequested)
    async def _preview(self) -> None:
        session = self.session
        preview = await asyncio.to_thread(preview_for, session.store, PreviewBasis.of_session(session))
        self.query_one(CompactionTimeline).show_preview(preview)

    @on(CompactionDetail.PinToggled)
    async def _pin(self, event: CompactionDetail.PinToggled) -> None:
        store = self.session.store
        if event.pinned:
            await asyncio.to_thread(pin_text, store, event.kind, event.text)
        else:
            await asyncio.to_thread(unpin, store, Pin(event.kind, event.text))
