"""The chat screen's right-hand side: context inspector, tool-output viewer, compaction timeline.

Data is built off the event loop (session files, token counts, audits) and handed to the panes; the
panes post intents (restore, re-compact, pin) that are carried out here through the core.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from textual import on, work
from textual.app import ComposeResult
from textual.events import DescendantFocus
from textual.screen import Screen
from textual.widgets import TabbedContent, TabPane

from pi_tui.agent.events import (
    AgentEvent,
    MessageEndEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    ToolExecutionUpdateEvent,
)
from pi_tui.context.compaction.pins import Pin
from pi_tui.session.compaction_pins import pin_text, unpin
from pi_tui.session.compaction_sizes import request_prefix
from pi_tui.session.inspector import InspectorCache, build_inspector_data
from pi_tui.session.restore_hold import restore_cost
from pi_tui.session.session_events import AnyEvent
from pi_tui.session_file.entries import MessageEntry
from pi_tui.session_file.store import SessionStore
from pi_tui.tui.inspector_view import ledger_zones, segment_texts
from pi_tui.tui.screens.dialogs import ChoiceDialog
from pi_tui.tui.screens.pane_focus import PaneFocus
from pi_tui.tui.timeline_view import CompactionDetailData, detail_for, preview_for, timeline_rows
from pi_tui.tui.tool_calls import ToolCallLog
from pi_tui.tui.widgets.compaction_detail import CompactionDetail
from pi_tui.tui.widgets.compaction_timeline import CompactionTimeline
from pi_tui.tui.widgets.context_inspector import ContextInspector
from pi_tui.tui.widgets.conversation import ConversationView
from pi_tui.tui.widgets.message_blocks import ToolCallBlock
from pi_tui.tui.widgets.prompt_area import PromptArea
from pi_tui.tui.widgets.tool_output_viewer import ToolOutputViewer
from pi_tui.tui.worker_results import deliver

if TYPE_CHECKING:
    from pi_tui.session.agent_session import AgentSession

INSPECTOR_EVENTS = frozenset(
    {"agent_end", "message_end", "compaction_end", "session_tree", "system_prompt_changed", "model_changed"}
)
TIMELINE_EVENTS = frozenset({"compaction_end", "session_tree"})
TOOL_LOG_EVENTS = (ToolExecutionStartEvent, ToolExecutionUpdateEvent, ToolExecutionEndEvent, MessageEndEvent)
FIRST_PAINT_WAIT_SECONDS = 2.0
"""How long workers that build secondary data (panes, footer figures) hold back for the conversation's
first frame before they go ahead anyway."""


RESTORE_CHOICE = "restore"


class SidePanes(PaneFocus, Screen[None]):
    """Mixed into `ChatScreen`, which supplies `session`, `show_error` and calls the hooks below."""

    if TYPE_CHECKING:
        first_paint: threading.Event

        @property
        def session(self) -> AgentSession: ...

        async def show_error(self, text: str) -> None: ...

    def compose_side(self) -> ComposeResult:
        with TabbedContent(id="side", initial="pane-context"):
            with TabPane("Context", id="pane-context"):
                yield ContextInspector(id="inspector")
            with TabPane("Tools", id="pane-tools"):
                yield ToolOutputViewer(id="tool-viewer")
            with TabPane("Compactions", id="pane-compactions"):
                yield CompactionTimeline(id="timeline")

    def side_reset(self) -> None:
        """A new session (or the first): start every pane from the session file."""
        self._inspector_cache = InspectorCache()
        self._inspector_lock = threading.Lock()
        """Held while a worker uses that cache: a superseded refresh still runs (a thread cannot be
        stopped), and two builds at once on one cache made the newer one report an unknown usage."""
        self._reload_tool_log()
        self._refresh_inspector()
        self._refresh_timeline()

    def forward_to_side_panes(self, events: Sequence[AnyEvent]) -> None:
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
            self._refresh_inspector()
        if kinds & TIMELINE_EVENTS:
            self._reload_tool_log()
            self._refresh_timeline()

    # --- tool calls ------------------------------------------------------------------------------------

    def _reload_tool_log(self) -> None:
        """Rebuild the tool-call log in a worker; events until it is back are kept. It is built from the
        branch, not the context: calls a compaction summarised away still have their full output."""
        store = self.session.store
        self._tool_log: ToolCallLog | None = None
        self._early_tool_events: list[AgentEvent] = []
        self._tool_log_request = request = object()
        self._load_tool_log(store, store.leaf_id, request)

    @work(thread=True, exclusive=True, group="tool-log", exit_on_error=False, description="tool log")
    def _load_tool_log(self, store: SessionStore, leaf_id: str | None, request: object) -> None:
        # (A description is given: by default Textual would repr the store for it.)
        self.first_paint.wait(FIRST_PAINT_WAIT_SECONDS)
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

    def refresh_inspector(self) -> None:
        """Rebuild the Context pane from the session, in a worker (a newer call supersedes an older one);
        the screen calls it after every event that changes the context."""
        self._refresh_inspector()

    @work(thread=True, exclusive=True, group="inspector", exit_on_error=False)
    def _refresh_inspector(self) -> None:
        self.first_paint.wait(FIRST_PAINT_WAIT_SECONDS)
        session = self.session
        cache, lock = self._inspector_cache, self._inspector_lock
        with lock:
            settings = session.resources.settings
            data = build_inspector_data(session.store, settings, session.model, cache=cache)
            context = session.store.build_context()
            texts = segment_texts(
                session.system_prompt,
                [tool.spec() for tool in session.active_tools],
                context.messages,
                context.entry_ids,
                model=session.model,
                zones=ledger_zones(cache.ledger),
            )
        deliver(self, lambda: self.query_one(ContextInspector).show(data, texts))

    # --- tool-output viewer ----------------------------------------------------------------------------

    @on(ToolCallBlock.Selected)
    def _open_tool_call(self, event: ToolCallBlock.Selected) -> None:
        self.show_pane("pane-tools")
        self.query_one(ToolOutputViewer).select(event.call_key)

    # --- compaction timeline ------------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="timeline", exit_on_error=False)
    def _refresh_timeline(self, selected: str | None = None) -> None:
        self.first_paint.wait(FIRST_PAINT_WAIT_SECONDS)
        store = self.session.store
        rows = timeline_rows(store)
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
        settings = session.resources.settings.compaction
        prefix = request_prefix(session)
        return detail_for(session.store, compaction_id, settings, model=session.model, prefix=prefix)

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
        outcome = await self.session.restore_compaction(compaction_id)
        if outcome.error:
            await self.show_error(outcome.error)
        else:
            self.notify("Restored: the next message continues from before that compaction, on a new branch.")

    @on(CompactionTimeline.RecompactRequested)
    def _recompact(self, event: CompactionTimeline.RecompactRequested) -> None:
        self.run_worker(self._recompact_work(event.compaction_id, event.instructions), group="command")

    async def _recompact_work(self, compaction_id: str, instructions: str | None) -> None:
        outcome = await self.session.recompact(compaction_id, instructions)
        if outcome.error and not outcome.cancelled:
            await self.show_error(outcome.error)

    @on(CompactionTimeline.PreviewRequested)
    async def _preview(self) -> None:
        session = self.session
        preview = await asyncio.to_thread(
            lambda: preview_for(
                session.store,
                session.resources.settings.compaction,
                model=session.model,
                prefix=request_prefix(session),
            )
        )
        self.query_one(CompactionTimeline).show_preview(preview)

    @on(CompactionDetail.PinToggled)
    async def _pin(self, event: CompactionDetail.PinToggled) -> None:
        store = self.session.store
        if event.pinned:
            await asyncio.to_thread(pin_text, store, event.kind, event.text)
        else:
            await asyncio.to_thread(unpin, store, Pin(event.kind, event.text))

    # --- layout -------------------------------------------------------------------------------------------

    def show_pane(self, pane_id: str) -> None:
        """Open the side panel on `pane_id` and put the keyboard in it (from anywhere, a pane included)."""
        was_maximized = self.maximized
        if was_maximized is not None:
            self.minimize()
        self.remove_class("-side-hidden")
        self.add_class("-side-shown")
        self.query_one(TabbedContent).active = pane_id
        self.focus_pane(pane_id)
        if was_maximized is not None and not isinstance(was_maximized, ConversationView):
            # A maximised pane stays maximised: the chosen one takes its place.
            self.call_after_refresh(self.action_maximize_pane)
        self.call_after_refresh(self._catch_up_panes)

    def on_descendant_focus(self, event: DescendantFocus) -> None:
        self.remember_pane_focus(event.widget)

    @on(TabbedContent.TabActivated)
    def _pane_activated(self) -> None:
        self.call_after_refresh(self._catch_up_panes)

    def on_resize(self) -> None:
        self.call_after_refresh(self._catch_up_panes)  # a wider screen shows the side panel
        self.call_after_refresh(self.keep_focus_on_screen)  # a narrower one may hide where it was

    def _catch_up_panes(self) -> None:
        """The inspector skips its table while hidden; displayed now, it fills it."""
        self.query_one(ContextInspector).catch_up()

    def action_toggle_side(self, args: str = "") -> None:
        """Ctrl+B: hide or show the side panel (on narrow screens it is hidden until asked for, and
        shown it takes the conversation's place)."""
        self.toggle_class("-side-shown" if self.has_class("-narrow") else "-side-hidden")
        if self.focused_part() == "panel":
            self.set_focus(self.query_one(PromptArea))
        self.call_after_refresh(self._catch_up_panes)

    def action_pane_context(self, args: str = "") -> None:
        self.show_pane("pane-context")

    def action_pane_tools(self, args: str = "") -> None:
        """F3: the Tools pane, on the call ctrl+o acts on (its block says "F3 for all"); from inside the
        pane, the call shown stays."""
        viewer = self.query_one(ToolOutputViewer)
        focused = self.focused
        inside = focused is not None and (focused is viewer or viewer in focused.ancestors)
        target = None if inside else self.query_one(ConversationView).current_tool()
        self.show_pane("pane-tools")
        if target is not None:
            viewer.select(target.call_key)

    def action_pane_compactions(self, args: str = "") -> None:
        self.show_pane("pane-compactions")
