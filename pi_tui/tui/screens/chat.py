"""The main screen: the conversation, the editor, pi's footer.

The screen owns the session's turn worker and the event bridge; widgets only render what the bridge
delivers and post what the user asked for.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer

from pi_tui.config.git_branch import git_branch
from pi_tui.context.accounting.ledger import BranchLedger
from pi_tui.session.agent_session import AgentSession
from pi_tui.session.path_view import path_items
from pi_tui.session.usage_totals import usage_totals
from pi_tui.tui.bridge import FRAME_SECONDS, EventBridge, SessionEvents
from pi_tui.tui.widgets.conversation import ConversationView
from pi_tui.tui.widgets.message_blocks import NoticeBlock
from pi_tui.tui.widgets.prompt_area import PromptArea
from pi_tui.tui.widgets.status_footer import FooterData, StatusFooter

FOOTER_REFRESH_EVENTS = frozenset({"message_end", "agent_end", "model_fallback", "auto_retry_end"})


class ChatScreen(Screen[None]):
    """One session: talk to the model, watch its tools, interrupt it."""

    CSS_PATH = "chat.tcss"
    BINDINGS = [
        Binding("escape", "interrupt", "Abort", show=True),
        Binding("ctrl+o", "toggle_tool_output", "Expand output"),
        Binding("ctrl+t", "toggle_thinking", "Thinking"),
        Binding("ctrl+c", "clear_editor", "Clear", show=False),
    ]

    def __init__(
        self, session: AgentSession, *, demo: bool = False, initial_messages: Sequence[str] = ()
    ) -> None:
        super().__init__()
        self.session = session
        self.initial_messages = list(initial_messages)
        self.demo = demo
        self._bridge = EventBridge(self)
        self._git_branch: str | None = None
        self._show_thinking = True
        self._ledger = BranchLedger()

    def compose(self) -> ComposeResult:
        with Horizontal(id="chat-main"):
            yield ConversationView(id="conversation")
        yield PromptArea(id="prompt")
        yield StatusFooter(id="status")
        yield Footer()

    async def on_mount(self) -> None:
        self._bridge.bind(self.session.subscribe)
        self.set_interval(FRAME_SECONDS, self._bridge.flush)
        await self.query_one(ConversationView).show_transcript(self.session.agent.state.messages)
        self.query_one(PromptArea).focus()
        self.refresh_footer()
        self._load_git_branch()
        if self.initial_messages:
            self._run_prompts(self.initial_messages)

    def on_unmount(self) -> None:
        self._bridge.unbind()

    @work(thread=True, exit_on_error=False, group="git")
    def _load_git_branch(self) -> None:
        branch = git_branch(self.session.resources.cwd)
        self.app.call_from_thread(self._set_git_branch, branch)

    def _set_git_branch(self, branch: str | None) -> None:
        self._git_branch = branch
        self.refresh_footer()

    # --- session events ---------------------------------------------------------------------------

    async def on_session_events(self, message: SessionEvents) -> None:
        await self.query_one(ConversationView).apply(message.events)
        if any(event.type in FOOTER_REFRESH_EVENTS for event in message.events):
            self.refresh_footer()

    def refresh_footer(self) -> None:
        session = self.session
        totals = usage_totals(session.store.entries)
        model = session.model
        self.query_one(StatusFooter).show(
            FooterData(
                cwd=_home_relative(str(session.resources.cwd)),
                git_branch=self._git_branch,
                session_name=session.store.get_session_name(),
                input_tokens=totals.input,
                output_tokens=totals.output,
                cache_read=totals.cache_read,
                cache_write=totals.cache_write,
                cost=totals.cost,
                context_tokens=self._context_tokens(),
                context_window=model.context_window if model else 0,
                auto_compaction=session.resources.settings.compaction.enabled,
                model=model.id if model else None,
                thinking=session.thinking_level if model and model.reasoning else None,
                demo=self.demo,
            )
        )

    def _context_tokens(self) -> int | None:
        """pi §11.1 context usage of the branch; counts are cached per entry, so this stays cheap."""
        model = self.session.model
        self._ledger.reset(path_items(self.session.store.get_branch()))
        usage = self._ledger.context_usage(model.context_window if model else 0)
        return usage.tokens if usage is not None else None

    # --- intents ----------------------------------------------------------------------------------

    @on(PromptArea.Submitted)
    async def _submitted(self, event: PromptArea.Submitted) -> None:
        text = event.text
        if self.session.is_running:
            if event.follow_up:
                await self.session.follow_up(text)
                self.notify("Queued as a follow-up for when the agent stops.")
            else:
                await self.session.steer(text)
                self.notify("Queued: delivered after the current tool calls.")
            return
        self._run_prompts([text])

    @work(group="turn", exit_on_error=False)
    async def _run_prompts(self, texts: list[str]) -> None:
        for text in texts:
            try:
                await self.session.prompt(text)
            except Exception as error:  # a refused prompt is shown, never a crash
                await self.query_one(ConversationView).mount(NoticeBlock(str(error), kind="error"))
                break
            finally:
                self.refresh_footer()

    async def action_interrupt(self) -> None:
        """Esc: stop the run (or a retry countdown); queued messages go back into the editor."""
        queued = await self.session.clear_queue()
        if queued:
            self.query_one(PromptArea).put_back(queued)
        self.session.abort()

    def action_toggle_tool_output(self) -> None:
        self.query_one(ConversationView).toggle_tool_output()

    def action_toggle_thinking(self) -> None:
        self._show_thinking = not self._show_thinking
        self.set_class(not self._show_thinking, "-hide-thinking")

    def action_clear_editor(self) -> None:
        self.query_one(PromptArea).clear()


def _home_relative(path: str) -> str:
    from pathlib import Path

    home = str(Path.home())
    return "~" + path[len(home) :] if path == home or path.startswith(home + "/") else path
