"""The main screen: the conversation, the editor, pi's footer.

The screen owns the turn worker and the event bridge; widgets only render what the bridge delivers
and post what the user asked for. Slash commands, dialogs and the palette live in `chat_commands`.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Sequence
from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.reactive import var
from textual.screen import Screen

from pi_tui.ai.warm_up import warm_up_openai
from pi_tui.config.project_files.git_branch import git_branch
from pi_tui.session.agent_session import AgentSession
from pi_tui.session.approval import ApprovalAnswer, describe_shell
from pi_tui.session.runtime import AgentSessionRuntime, ReplaceReason
from pi_tui.session_file.store import SessionReadOnlyError
from pi_tui.session_file.usage_totals import usage_totals
from pi_tui.tui.bridge import FRAME_SECONDS, EventBridge, SessionEvents
from pi_tui.tui.command_provider import SlashCommandProvider
from pi_tui.tui.completion_tokens import ResourceCompleter
from pi_tui.tui.footer_context import FooterContext
from pi_tui.tui.screens.chat_commands import ChatCommands
from pi_tui.tui.screens.chat_queue import ChatQueue
from pi_tui.tui.screens.confirm_compaction import COUNTDOWN_SECONDS
from pi_tui.tui.screens.opening_notices import show_opening_notices
from pi_tui.tui.screens.pane_focus import PANE_KEYS, PaneFocus
from pi_tui.tui.screens.sdk_warm_up import SdkWarmUp
from pi_tui.tui.screens.session_questions import approve_tool_call, confirm_compaction
from pi_tui.tui.screens.trust_dialog import ProjectTrustQuestion
from pi_tui.tui.slash_commands import parse_slash_command
from pi_tui.tui.widgets.completion_popup import CompletionPopup
from pi_tui.tui.widgets.conversation import ConversationView
from pi_tui.tui.widgets.key_hints import KeyHints
from pi_tui.tui.widgets.live_status import LiveStatus
from pi_tui.tui.widgets.message_blocks import NoticeBlock
from pi_tui.tui.widgets.prompt_area import PromptArea
from pi_tui.tui.widgets.queued_messages import QueuedMessages
from pi_tui.tui.widgets.side_panel import FIRST_PAINT_WAIT_SECONDS, SidePanel
from pi_tui.tui.widgets.status_footer import FooterData, StatusFooter
from pi_tui.tui.worker_results import deliver

FOOTER_REFRESH_EVENTS = frozenset(
    {
        "message_end",
        "cache_warmed",
        "agent_end",
        "model_fallback",
        "auto_retry_end",
        "compaction_end",
        "session_info_changed",
        "model_changed",
        "thinking_level_changed",
        "session_tree",
    }
)
TRANSCRIPT_EVENTS = frozenset({"session_tree"})
DOUBLE_ESCAPE_SECONDS = 0.5
NEXT_PANE = "Next pane: conversation, side panel, editor"
ABORT = (
    "Abort the reply, a tool, a shell command, a compaction, a branch summary or a retry; queued messages "
    "return to the editor. In a pane: the keyboard back to the editor (idle on a narrow screen the pane "
    "shown in the conversation's place closes)"
)
DROP_FIRST = ("maximize_pane", "toggle_thinking", "toggle_tool_output", "cycle_focus(1)", "pane_context")
"""The footer's hints that go first when the row is too narrow, in this order: what the screen's other
keys do (the focused part's own keys, send, abort) matters more than these, and F1 lists them all."""
KEEP = ("hotkeys",)
"""F1's hint stays to the last: it leads to every key the footer had no room for."""
WIDE_COLUMNS = 120
"""From this width on the side panel is shown beside the conversation (each gets 60 columns or more);
below it a pane takes the conversation's place while open."""


class ChatScreen(ChatCommands, PaneFocus):
    """One session at a time (the runtime swaps it): talk to the model, watch its tools, interrupt it."""

    CSS_PATH = "chat.tcss"
    COMMANDS = Screen.COMMANDS | {SlashCommandProvider}
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (WIDE_COLUMNS, "-wide")]
    AUTO_FOCUS = "#prompt"
    """The editor; the default (the first focusable widget, the conversation) would restyle the whole
    transcript twice on open, once on focus and once when the editor takes it."""
    BINDINGS = [
        Binding("escape", "interrupt", "Abort", tooltip=ABORT),
        Binding("ctrl+o", "toggle_tool_output", "Expand", tooltip="Expand the latest tool output"),
        Binding("ctrl+t", "toggle_thinking", "Thinking", tooltip="Show or hide thinking"),
        Binding("ctrl+l", "choose_model", "Model", tooltip="Choose the model", show=False),
        Binding(
            "shift+tab", "cycle_thinking", "Thinking level", tooltip="Cycle the thinking level", show=False
        ),
        # F5, not shift+tab (Claude Code's): shift+tab is pi's thinking-level cycle and stays so.
        Binding("f5", "approval", "Approval", tooltip="Cycle the approval mode: off, edits, all", show=False),
        Binding("ctrl+c", "clear_editor", "Clear", tooltip="Clear the editor", show=False),
        Binding("f2", "pane_context", "Context", tooltip="Context pane", group=PANE_KEYS),
        Binding("f3", "pane_tools", "Tools", tooltip="Tools pane", group=PANE_KEYS),
        Binding("f4", "pane_compactions", "Compactions", tooltip="Compactions pane", group=PANE_KEYS),
        Binding("ctrl+b", "toggle_side", "Side panel", tooltip="Hide or show the side panel", show=False),
        Binding(
            "f11", "maximize_pane", "Maximise", tooltip="Give the focused pane the whole screen, or back"
        ),
        # Priority: the editor (a TextArea) would take F6 to select a line.
        Binding("f6", "cycle_focus(1)", "Next pane", tooltip=NEXT_PANE, priority=True),
        Binding("shift+f6", "cycle_focus(-1)", "Previous pane", show=False, priority=True),
        Binding("f1", "hotkeys", "Keys", tooltip="Keys and commands"),
    ]
    queue: ChatQueue
    """The queued messages and Tab's follow-ups (set on mount, once the editor and the list exist)."""
    hide_thinking: var[bool] = var(False, toggle_class="-hide-thinking")
    """Ctrl+T folded every reply's thinking away."""

    def __init__(
        self,
        runtime: AgentSessionRuntime,
        *,
        demo: bool = False,
        initial_messages: Sequence[str] = (),
        open_resume: bool = False,
    ) -> None:
        super().__init__()
        self.open_resume = open_resume
        self.runtime = runtime
        self.demo = demo
        self.initial_messages = list(initial_messages)
        self._bridge = EventBridge(self)
        self._git_branch: str | None = None
        self._footer_context = FooterContext()
        self.first_paint = threading.Event()
        self._sdk_warm_up = SdkWarmUp(self, lambda: warm_up_openai())
        """Set once the opened session is on screen: workers that build secondary data wait for it, so
        they do not hold the GIL while the first frame is being made."""
        self._last_escape: float | None = None
        """When Esc was last pressed; None when the next press starts afresh."""
        self.confirm_seconds: float = COUNTDOWN_SECONDS
        self._trust_question = ProjectTrustQuestion()

    def compose(self) -> ComposeResult:
        # The breakpoint class the first resize would set, set now: added after the transcript is
        # mounted it would restyle every widget on the screen.
        wide = self.app.size.width >= WIDE_COLUMNS
        self.set_class(wide, "-wide", update=False)
        self.set_class(not wide, "-narrow", update=False)
        with Horizontal(id="chat-main"):
            conversation = ConversationView(id="conversation")
            conversation.show_cache_notices = lambda: self.session.resources.settings.show_cache_miss_notices
            yield conversation
            yield SidePanel(self.runtime, self.first_paint, id="side")
        yield LiveStatus(id="live-status")
        yield CompletionPopup(id="completion-popup")
        yield QueuedMessages(id="queued")
        yield PromptArea(id="prompt")
        yield StatusFooter(id="status")
        yield KeyHints(drop_first=DROP_FIRST, keep=KEEP, compact=not wide, show_command_palette=wide)

    async def on_mount(self) -> None:
        self.session.confirm_compaction = self._confirm_compaction
        self.session.approval.approver = self._approve_tool_call
        self.session.store.on_notice = self._file_notice
        self._bridge.bind(self.runtime.subscribe)
        self.runtime.on_session_replaced(self._session_replaced)
        self.set_interval(FRAME_SECONDS, self._bridge.flush)
        self.query_one(PromptArea).attach_completion(
            self.query_one(CompletionPopup), ResourceCompleter(lambda: self.session.resources)
        )
        self.queue = ChatQueue(self, self.query_one(PromptArea), self.query_one(QueuedMessages))
        self.query_one(LiveStatus).follow(self.query_one(ConversationView))
        self.query_one(PromptArea).focus()
        # Queued behind the screen's first restyle (it follows on_mount), which would otherwise restyle
        # every transcript widget a second time; session events wait in the queue behind it too.
        self.call_later(self._open_session)

    async def _open_session(self) -> None:
        await self.query_one(ConversationView).show_transcript(self.session.transcript())
        await show_opening_notices(self, self.session)
        self.call_after_refresh(self._first_frame_shown)
        self.refresh_footer()
        self.side_panel.reset()
        self._load_git_branch()
        # The messages given on the command line wait for the answer: they may run commands.
        if self.demo or not self._trust_question.ask(self, self.session, self._start_work):
            await self._start_work()

    async def _start_work(self) -> None:
        if self.initial_messages:
            self.run_prompts(self.initial_messages)
        if self.open_resume:
            await self.action_resume()

    def _first_frame_shown(self) -> None:
        self.first_paint.set()
        # Only now, and once the first keys are handled: the SDK's import holds the GIL for half a
        # second and would have delayed this frame and their echo (screens/sdk_warm_up.py).
        if self.runtime.uses_openai_sdk:
            self._sdk_warm_up.first_frame_shown()

    @on(PromptArea.Changed, "#prompt")
    def _typing_postpones_sdk_warm_up(self) -> None:
        self._sdk_warm_up.editor_changed()

    def on_unmount(self) -> None:
        self._bridge.unbind()

    def on_resize(self) -> None:
        # Eighty columns hold the keys of each part with single spaces and without the palette's key
        # (ctrl+p works all the same; F1 lists it).
        footer = self.query_one(KeyHints)
        footer.compact = self.size.width < WIDE_COLUMNS
        footer.show_command_palette = not footer.compact

    async def _session_replaced(self, session: AgentSession, reason: ReplaceReason) -> None:
        session.confirm_compaction = self._confirm_compaction
        session.approval.approver = self._approve_tool_call
        session.store.on_notice = self._file_notice
        self._footer_context.reset()
        self.query_one(LiveStatus).reset()
        await self.query_one(ConversationView).show_transcript(session.transcript())
        await show_opening_notices(self, session)
        self.queue.show(*session.queued_texts)
        self.refresh_footer()
        self.side_panel.reset()
        self.notify(f"{reason.capitalize()}: session {session.store.session_id[:8]}", timeout=3)
        self._trust_question.ask(self, session, _nothing_more)

    def _file_notice(self, text: str) -> None:
        """What happened to the session file (another writer's entries taken in, a move to a new file);
        appends come from the loop and from worker threads alike."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            self.app.call_from_thread(self.notify, text, severity="warning", timeout=15, markup=False)
        else:
            self.notify(text, severity="warning", timeout=15, markup=False)

    async def _confirm_compaction(self, reason: str, tokens: int | None) -> bool:
        return await confirm_compaction(self.app, reason, tokens, seconds=self.confirm_seconds)

    async def _approve_tool_call(self, tool_name: str, args: dict[str, Any]) -> ApprovalAnswer:
        settings = self.session.resources.settings
        shell = None
        if tool_name == "bash":
            shell = describe_shell(settings.shell_path, settings.shell_command_prefix)
        return await approve_tool_call(self.app, tool_name, args, shell=shell)

    @work(thread=True, exit_on_error=False, group="git")
    def _load_git_branch(self) -> None:
        branch = git_branch(self.session.resources.cwd)
        deliver(self, self._set_git_branch, branch)

    def _set_git_branch(self, branch: str | None) -> None:
        self._git_branch = branch
        self._render_footer()

    # --- session events ---------------------------------------------------------------------------

    @property
    def caught_up(self) -> bool:
        """Every session event so far is on screen (or failed trying): nothing waits in the bridge."""
        return self._bridge.caught_up

    async def on_session_events(self, message: SessionEvents) -> None:
        try:
            await self._apply_session_events(message)
        finally:
            self._bridge.applied()

    async def _apply_session_events(self, message: SessionEvents) -> None:
        self.query_one(LiveStatus).apply(message.events)
        conversation = self.query_one(ConversationView)
        await conversation.apply(message.events)
        kinds = {event.type for event in message.events}
        # A tree move happens while the agent is idle: the store's leaf is the new branch's. (After a
        # compaction the history stays on screen with a marker; the model's view is in the Context pane.)
        if kinds & TRANSCRIPT_EVENTS:
            await conversation.show_transcript(self.session.transcript())
        if kinds & FOOTER_REFRESH_EVENTS:
            self.refresh_footer()
        self.queue.events(message.events)
        self.side_panel.forward_events(message.events)

    @property
    def context_tokens(self) -> int | None:
        """The footer's context size (None until the worker has counted it)."""
        return self._footer_context.tokens

    @property
    def context_estimated(self) -> bool:
        return self._footer_context.estimated

    @property
    def busy(self) -> bool:
        """A run, a user command, a compaction or a branch summary is under way: something Esc stops."""
        session = self.session
        return (
            session.is_running
            or session.is_bash_running
            or session.is_compacting
            or session.is_summarizing_branch
        )

    def refresh_footer(self) -> None:
        """Show the session's figures now; the context usage is recounted in a worker and follows."""
        self._render_footer()
        self._count_context_tokens()

    def _render_footer(self) -> None:
        session = self.session
        totals = usage_totals(session.store.entries)
        model = session.model
        self.query_one(StatusFooter).show(
            FooterData(
                cwd=str(session.resources.cwd),
                git_branch=self._git_branch,
                session_name=session.store.get_session_name(),
                input_tokens=totals.input,
                output_tokens=totals.output,
                cache_read=totals.cache_read,
                cache_write=totals.cache_write,
                cost=totals.cost,
                context_tokens=self._footer_context.tokens,
                context_estimated=self._footer_context.estimated,
                context_window=model.context_window if model else 0,
                auto_compaction=session.resources.settings.compaction.enabled,
                auto_blocked=self._footer_context.blocked,
                model=model.id if model else None,
                thinking=session.thinking_level if model and model.reasoning else None,
                demo=self.demo,
                approval=session.approval.mode,
            )
        )

    @work(thread=True, exclusive=True, group="footer-tokens", exit_on_error=False)
    def _count_context_tokens(self) -> None:
        """The footer's context figure (see `FooterContext`), counted after the first paint."""
        self.first_paint.wait(FIRST_PAINT_WAIT_SECONDS)
        session = self.session
        tokens, estimated, blocked = self._footer_context.count(session)
        if session is self.session:
            deliver(self, self._show_context_tokens, tokens, estimated, blocked)

    def _show_context_tokens(self, tokens: int | None, estimated: bool, blocked: bool) -> None:
        if self._footer_context.update(tokens, estimated, blocked):
            self._render_footer()

    # --- intents ----------------------------------------------------------------------------------

    @on(CompletionPopup.OptionSelected, "#completion-popup")
    def _completion_clicked(self) -> None:
        self.query_one(PromptArea).accept_completion()

    @on(PromptArea.PageConversation)
    def _page_conversation(self, event: PromptArea.PageConversation) -> None:
        self.query_one(ConversationView).page(event.pages)

    @on(PromptArea.Submitted)
    async def _submitted(self, event: PromptArea.Submitted) -> None:
        text = event.text
        stripped = text.strip()
        if stripped.startswith("!") and len(stripped) > 1:
            exclude = stripped.startswith("!!")
            self._run_user_bash(stripped[2:] if exclude else stripped[1:], exclude)
            return
        command = parse_slash_command(text)
        if command is not None:
            slash, args = command
            await getattr(self, f"action_{slash.action}")(args)
            return
        await self.queue.send_or_queue(text, "follow_up" if event.follow_up else "steering")

    @on(QueuedMessages.Edit)
    async def _edit_queued(self, event: QueuedMessages.Edit) -> None:
        await self.queue.edit(event.queued)

    @on(QueuedMessages.Remove)
    async def _remove_queued(self, event: QueuedMessages.Remove) -> None:
        await self.queue.remove(event.queued)

    @on(QueuedMessages.Leave)
    def _leave_queue(self) -> None:
        self.queue.leave()

    async def action_follow_up(self, args: str = "") -> None:
        """`/followup [text]` and the palette."""
        await self.queue.follow_up(args)

    @work(group="turn", exit_on_error=False)
    async def run_prompts(self, texts: list[str]) -> None:
        for index, text in enumerate(texts):
            try:
                await self.session.prompt(text)
            except Exception as error:  # a refused prompt is shown, never a crash
                if isinstance(error, SessionReadOnlyError):  # nothing was sent: the texts stay the user's
                    self.query_one(PromptArea).put_back(texts[index:])
                await self.show_error(str(error))
                break
            finally:
                self.refresh_footer()

    @work(group="bash", exit_on_error=False)
    async def _run_user_bash(self, command: str, exclude: bool) -> None:
        try:
            await self.session.user_bash(command, exclude_from_context=exclude)
        except Exception as error:
            await self.show_error(str(error))

    async def show_error(self, text: str) -> None:
        await self.query_one(ConversationView).mount(NoticeBlock(text, kind="error"))

    @on(SidePanel.Failed)
    async def _side_panel_failed(self, event: SidePanel.Failed) -> None:
        await self.show_error(event.text)

    async def action_interrupt(self) -> None:
        """Esc: stop the run, a user command, a compaction, a branch summary or a retry countdown (queued
        messages go back into the editor); idle, close a pane in the conversation's place, or twice
        within half a second on an empty editor, open the tree."""
        session = self.session
        busy = self.busy
        queued = await session.clear_queue()
        if queued:
            self.query_one(PromptArea).put_back(queued)
        session.abort()
        moved = self.focus_editor_from_pane()
        if not busy and (self.close_pane_in_conversations_place() or moved):
            # Nor is a press that closed a pane or took the keyboard back the first of a double press.
            self._last_escape = None
            return
        now = time.monotonic()
        editor_empty = not self.query_one(PromptArea).text.strip()
        last = self._last_escape
        if not busy and editor_empty and last is not None and now - last < DOUBLE_ESCAPE_SECONDS:
            self._last_escape = None
            await self.action_tree()
            return
        # A press that stopped something is not the first of a double press: the work may end before
        # the next press arrives, and that press must not open the tree.
        self._last_escape = None if busy else now

    def action_toggle_tool_output(self) -> None:
        self.query_one(ConversationView).toggle_tool_output()

    def action_toggle_thinking(self) -> None:
        self.hide_thinking = not self.hide_thinking

    def action_clear_editor(self) -> None:
        self.query_one(PromptArea).clear()


async def _nothing_more() -> None:
    """After a trust question asked on a session switch, nothing waits for the answer."""
