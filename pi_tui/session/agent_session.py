"""`AgentSession`: one session's agent, its file, its tools and its system prompt (pi's `AgentSession`).

Front ends (the TUI and the headless modes) talk to this class only. It owns an `Agent`, feeds it the
rebuilt context of the session file, persists every message at `message_end` (in event order, off the
event loop), and forwards every agent event to its own subscribers, together with its own events
(`pi_tui.session.session_events`). The system prompt is built once and only rebuilt when the active tools
change or `reload()` finds a changed resource, so every request of a session carries the same bytes.

Work with a job of its own lives beside it: retries and fallback (`failure_recovery`), user shell
commands (`user_bash_runner`), the queue texts (`queued_texts`), tree moves (`tree_navigation`), how
the provider is called and recorded (`provider_calls`).
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, TypeAlias

from pi_tui.agent.agent import Agent, AgentOptions
from pi_tui.agent.events import AgentEvent, MessageEndEvent, MessageStartEvent
from pi_tui.agent.listeners import Listeners
from pi_tui.agent.tool import AgentTool
from pi_tui.ai.abort import AbortSignal
from pi_tui.ai.convert import convert_to_llm
from pi_tui.ai.http_pool import HttpPool
from pi_tui.ai.messages import (
    AssistantMessage,
    BashExecutionMessage,
    ThinkingLevel,
    UserMessage,
)
from pi_tui.ai.stream import LlmContext, StreamEvent, StreamFunction, StreamOptions
from pi_tui.config.approval_mode import ApprovalSetting
from pi_tui.config.key_secrets import remember_key
from pi_tui.config.model_config import ModelConfig
from pi_tui.context.accounting.record import RequestKind
from pi_tui.context.cache_misses import cache_misses
from pi_tui.context.cache_policy import CacheClock, cache_clock, cache_clock_line, cache_settings_line
from pi_tui.context.compaction.summary_call import SummaryModel
from pi_tui.context.resources import Resources, load_resources
from pi_tui.context.system_prompt import SystemPrompt, ToolPrompt
from pi_tui.session.approval import ApprovalPolicy
from pi_tui.session.auto_compaction import AutoCompaction, ConfirmCompaction
from pi_tui.session.cache_warmer import CacheWarmer, WarmingClock
from pi_tui.session.compaction_ops import CompactionOutcome, RestoreOutcome
from pi_tui.session.context_edits import EditAction, EditPreview, apply_context_edit, plan_context_edit
from pi_tui.session.failure_recovery import FailureRecovery
from pi_tui.session.inspector import (
    DEFAULT_RECORDS,
    InspectorCache,
    InspectorData,
    PrefixMeasure,
    build_inspector_data,
    measure_prefix,
)
from pi_tui.session.open_checks import continue_refusal
from pi_tui.session.provider_calls import ProviderCalls
from pi_tui.session.queued_texts import QueuedTexts, QueueKind
from pi_tui.session.request_recorder import RequestRecorder
from pi_tui.session.result_keys import redact_keys_in_result
from pi_tui.session.served_window_check import learn_served_window
from pi_tui.session.session_controls import SessionControls
from pi_tui.session.session_events import (
    NOTICE_DIAGNOSTICS,
    AnyEvent,
    CacheMissEvent,
    CacheWarmedEvent,
    ContextEditedEvent,
    ProviderNoticeEvent,
    SessionTreeEvent,
)
from pi_tui.session.session_setup import (
    DEFAULT_THINKING_LEVEL,
    checkpoints_for,
    clamp_thinking,
    has_thinking_entry,
    persist_message,
    prompt_declaration,
    record_model_and_thinking,
    session_date,
    session_tools,
    user_bash_options,
)
from pi_tui.session.stats import SessionStats, last_assistant_message, last_assistant_text, session_stats
from pi_tui.session.transcript import Transcript, branch_transcript
from pi_tui.session.tree_navigation import NavigationResult, SummaryRequest, content_text, navigate_tree
from pi_tui.session.user_bash_runner import UserBashRunner
from pi_tui.session_file.entries import UsageEntry
from pi_tui.session_file.store import SessionReadOnlyError, SessionStore
from pi_tui.tools.registry import default_tool_names, select_tools

if TYPE_CHECKING:
    # The rewind's modules load on first use, off the path to the first frame.
    from pi_tui.session.rewind import RewindMode, RewindOutcome, RewindPlan, RewindPoint, RewindResult
    from pi_tui.tools.file_checkpoints.store import CheckpointStore

SessionListener: TypeAlias = Callable[[AnyEvent], Awaitable[None] | None]
ResourceReloader: TypeAlias = Callable[[], Resources]


class SessionBusyError(RuntimeError):
    """A prompt arrived while the agent is running and no queueing behaviour was asked for."""


def _note_of(preview: EditPreview) -> str | None:
    if preview.action != "note" or preview.replacement is None:
        return None
    content = preview.replacement.content
    return content if isinstance(content, str) else None


@dataclass(frozen=True)
class SessionConfig:
    """What a new `AgentSession` is made of; front ends build it from the command line and settings."""

    store: SessionStore
    resources: Resources
    model: ModelConfig | None
    api_key: str | None = None
    thinking_level: ThinkingLevel | None = None
    tool_names: Sequence[str] | None = None
    stream_fn: StreamFunction | None = None
    reload_resources: ResourceReloader | None = None
    """How `reload()` re-reads the resources (default: `load_resources(cwd)`)."""
    approve: ApprovalSetting = False
    """`--approve` (true: at least bash, write and edit ask first) or `--approval MODE` (that mode,
    whatever the settings say); false: the settings decide."""
    http_pool: HttpPool | None = None
    """The provider's connections, owned by whoever made the session (it closes them); `reload()` resets
    them. Without one every request opens and closes its own."""
    warming_clock: WarmingClock | None = None
    """The cache warmer's clock and timer (tests drive idle time with their own)."""


class AgentSession(SessionControls):
    """Runs one session: prompts, queues, abort, persistence, events."""

    def __init__(self, config: SessionConfig) -> None:
        self.store = config.store
        self.resources = config.resources
        self.model = config.model
        self._api_key = config.api_key
        remember_key(config.api_key)  # hidden from every command and export from now on
        self._http_pool = config.http_pool
        self._listeners: Listeners[SessionListener] = Listeners()
        self._recovery = FailureRecovery(self)
        self._compaction = AutoCompaction(self)
        self.confirm_compaction: ConfirmCompaction | None = None
        self._recorder = RequestRecorder(self.store)
        self._calls = ProviderCalls(self, self._recorder, config.stream_fn, config.http_pool)
        self.warmer = CacheWarmer(
            self.store,
            self._calls.unrecorded,
            lambda: self.resources.settings.cache_warming,
            clock=config.warming_clock,
            on_warmed=self._cache_warmed,
            on_disabled=self._warming_disabled,
        )
        self._tree_signal: AbortSignal | None = None
        self._bash = UserBashRunner(self)
        self._window_asked = False
        self._reload_resources = config.reload_resources or (lambda: load_resources(self.resources.cwd))
        settings = self.resources.settings
        self.tools_by_name = session_tools(self.resources, self.store)
        self.approval = ApprovalPolicy.chosen(config.approve, settings.approval, emit=self.emit)

        existing = self.store.build_context()
        tool_names = config.tool_names
        if tool_names is None and existing.prompt.seen:
            # A pi 1.6 file records its tool set: the session continues with it (docs/pi-compatibility.md).
            tool_names = existing.prompt.tool_names
        elif tool_names is None and settings.default_tools is not None:
            tool_names = default_tool_names(settings.default_tools)
        self.missing_tools: list[str] = [name for name in tool_names or () if name not in self.tools_by_name]
        """Tools the session's file has in force that pi-tui does not have (said once as it opens)."""
        self.active_tools: list[AgentTool[Any]] = select_tools(self.tools_by_name, tool_names)
        thinking_recorded = has_thinking_entry(self.store)
        requested = config.thinking_level or (
            existing.thinking_level
            if thinking_recorded
            else settings.default_thinking_level or DEFAULT_THINKING_LEVEL
        )
        self.thinking_level = clamp_thinking(requested, self.model)
        self.system_prompt = self._build_system_prompt()
        self.agent = Agent(
            AgentOptions(
                stream_fn=self._agent_turn,
                convert_to_llm=convert_to_llm,
                get_api_key=self._get_api_key,
                before_tool_call=self.approval.before_tool_call,
                after_tool_call=redact_keys_in_result,
                steering_mode=settings.steering_mode,
                follow_up_mode=settings.follow_up_mode,
            ),
            system_prompt=self.system_prompt.text,
            model=self.model,
            thinking_level=self.thinking_level,
            tools=self.active_tools,
            messages=existing.messages,
        )
        # A resumed session records a different model with its next message, not on open, as pi does:
        # opening pi's file to look must not write to it.
        self._model_unrecorded = bool(self.store.entries)
        record_model_and_thinking(
            self.store, self.model, self.thinking_level, model_too=not self._model_unrecorded
        )
        self._queued = QueuedTexts(self.agent, self.emit)
        self.agent.subscribe(self._on_agent_event)

    def _agent_turn(
        self, model: ModelConfig, context: LlmContext, options: StreamOptions
    ) -> AsyncIterator[StreamEvent]:
        """The agent's calls; each restarts cache warming from the entry it writes (pi 1.6)."""
        options = self._calls.options(options)
        sent = list(self.agent.state.messages)

        def is_current() -> bool:
            # Warm only while the conversation still extends what this request sent, on its model.
            now = self.agent.state.messages
            return (
                self.model is not None
                and self.model.same_model(model.provider, model.id)
                and len(sent) <= len(now)
                and all(a is b for a, b in zip(sent, now, strict=False))
            )

        self.warmer.start(model, context, options, is_current)
        return self._calls.agent_turn(model, context, options)

    async def _tell_cache_miss(self, message: AssistantMessage) -> None:
        """pi 1.6's one-line notice when the reply re-billed enough cached tokens (`showCacheMissNotices`)."""
        if not self.resources.settings.show_cache_miss_notices:
            return
        entry_id = self.store.message_entry_id(message)
        if entry_id is None:
            return
        miss = cache_misses(self.store.get_branch(), self._read_price).get(entry_id)
        if miss is not None and miss.worth_a_notice():
            await self.emit(CacheMissEvent(miss.notice(), miss.missed_tokens, miss.missed_cost))

    def _read_price(self, provider: str, model_id: str) -> float:
        model = self.model
        return model.cost.cache_read if model is not None and model.same_model(provider, model_id) else 0.0

    async def _cache_warmed(self, entry: UsageEntry) -> None:
        await self.emit(CacheWarmedEvent(entry.id, entry.usage.cost.total))

    async def _warming_disabled(self, text: str) -> None:
        await self.emit(ProviderNoticeEvent(text))

    def _build_system_prompt(self) -> SystemPrompt:
        tools = [
            ToolPrompt(tool.name, tool.prompt_snippet, tool.prompt_guidelines) for tool in self.active_tools
        ]
        return self.resources.system_prompt(tools=tools, date=session_date(self.store))

    @property
    def api_key(self) -> str | None:
        """The key requests are made with (never persisted)."""
        return self._api_key

    async def _get_api_key(self, provider: str) -> str | None:
        return self._api_key

    @property
    def stream_fn(self) -> StreamFunction:
        """The provider as the session calls it, without recording."""
        return self._calls.unrecorded

    def summary_stream_fn(self, kind: RequestKind) -> StreamFunction:
        """The provider for summary calls, each leaving a request record of `kind`."""
        return self._calls.summary(kind)

    # --- events ---------------------------------------------------------------------------------

    def subscribe(self, listener: SessionListener) -> Callable[[], None]:
        """Receive every event, in order; listeners are awaited one after another."""
        return self._listeners.add(listener)

    async def _on_agent_event(self, event: AgentEvent, signal: AbortSignal) -> None:
        message = event.message if isinstance(event, MessageStartEvent) else None
        if isinstance(message, UserMessage):
            self._compaction.note_progress()
            await self._queued.delivered(content_text(message.content))
        if isinstance(event, MessageEndEvent):
            await self._persist(event)
            if isinstance(event.message, AssistantMessage):
                if event.message.stop_reason in ("error", "aborted"):
                    # A failing provider (or an offline machine) is not refreshed: a replay would fail too.
                    self.warmer.cancel(
                        "the last request failed" if event.message.stop_reason == "error" else "aborted"
                    )
                await self._recorder.flush()
                self._compaction.note_reply(event.message)
        await self.emit(event)
        if isinstance(event, MessageEndEvent) and isinstance(event.message, AssistantMessage):
            await self._tell_cache_miss(event.message)
            for diagnostic in event.message.diagnostics or []:
                text = diagnostic.get("message")
                if diagnostic.get("type") in NOTICE_DIAGNOSTICS and isinstance(text, str):
                    await self.emit(ProviderNoticeEvent(text))

    async def emit(self, event: AnyEvent) -> None:
        """Hand `event` to every listener in turn (agent events and the session's own)."""
        for listener in self._listeners:
            result = listener(event)
            if result is not None:
                await result

    async def _persist(self, event: MessageEndEvent) -> None:
        message = event.message
        if self.store.read_only_reason is not None:
            return
        if self._model_unrecorded:
            self._model_unrecorded = False
            record_model_and_thinking(self.store, self.model, self.thinking_level)
        await asyncio.to_thread(persist_message, self.store, message)

    # --- intents --------------------------------------------------------------------------------

    @property
    def is_running(self) -> bool:
        return self.agent.is_running

    async def prompt(self, text: str) -> None:
        """Send `text` (after skill and template expansion) and wait until the run is over."""
        if self.agent.is_running:
            raise SessionBusyError("Agent is already processing. Use steer() or follow_up() to queue.")
        if self.model is None:
            raise SessionBusyError("No model configured: pass --model or add one to models.json")
        if (refusal := continue_refusal(self.store)) is not None:
            raise SessionReadOnlyError(refusal)
        expanded = self.resources.expand_input(text)
        await self._learn_served_window()
        await self._bash.flush()
        await self._compaction.check(before_prompt=True)
        self.agent.state.system_prompt = self.system_prompt.text
        await asyncio.to_thread(self._declare_prompt_and_tools)
        await self.agent.prompt(expanded)
        await self._after_run()
        self.warmer.on_agent_settled()

    def cache_settings_line(self) -> str:
        """pi 1.6's cache settings for this session's model, as `/session` shows them."""
        return cache_settings_line(self.resources.settings, self.model)

    def plan_context_edit(
        self, target_id: str, action: EditAction, note: str | None = None
    ) -> EditPreview | str:
        """The preview of a context edit (docs/compaction.md "Context edits"), or why it is refused."""
        return plan_context_edit(self.store, self.model, target_id, action, note)

    async def apply_context_edit(self, preview: EditPreview) -> str | None:
        """Write a previewed edit; the next request honours it. Returns why it was refused, or None."""
        if self.agent.is_running:
            return "the agent is running: edit the context once it is idle"
        if self.store.read_only_reason is not None:
            return f"session is read-only: {self.store.read_only_reason}"
        note = _note_of(preview)
        fresh = plan_context_edit(self.store, self.model, preview.target_id, preview.action, note)
        if isinstance(fresh, str):
            return fresh  # the context changed since the preview (another edit, a compaction)
        entry = apply_context_edit(self.store, fresh)
        self.agent.state.messages = self.store.build_context().messages
        await self.emit(ContextEditedEvent(entry.id, preview.target_id, preview.action))
        return None

    def cache_clock(self) -> CacheClock:
        """The cache's clock now: what the file says, with the warmer's own schedule while it runs."""
        branch = self.store.get_branch()
        clock = cache_clock(branch, self.model, self.resources.settings, now=self.warmer.clock.now())
        status = self.warmer.status
        if status.state != "inactive" and status.expires_at is not None and clock.ttl_s is not None:
            return replace(
                clock, written_at=status.expires_at - clock.ttl_s, live_next_refresh_at=status.next_warm_at
            )
        if self.warmer.disabled_reason is not None or status.reason == "stopped by Esc or quit":
            return replace(clock, live_reason=status.reason)
        return clock

    def cache_clock_line(self) -> str | None:
        """The Context pane's `warm, expires in m:ss · next refresh at …` line; None for a model whose
        cache has no known lifetime and was never refreshed (`/session` says why: no clock to show)."""
        clock = self.cache_clock()
        if clock.ttl_s is None and clock.refreshes == 0:
            return None
        return cache_clock_line(clock)

    def _declare_prompt_and_tools(self) -> None:
        """pi 1.6 keeps the prompt and tools in the session: a system message before the request when
        they are new to the context or changed (docs/pi-compatibility.md). It is never sent: pi-tui
        sends its own prompt, which the sections spell out."""
        if self.store.read_only_reason is not None:
            return
        messages = prompt_declaration(self.agent.state.messages, self.system_prompt, self.active_tools)
        if not messages:
            return
        if self._model_unrecorded:
            self._model_unrecorded = False
            record_model_and_thinking(self.store, self.model, self.thinking_level)
        for message in messages:
            persist_message(self.store, message)
        self.agent.state.messages = [*self.agent.state.messages, *messages]

    async def _learn_served_window(self) -> None:
        if not self._window_asked and self.model is not None:
            self._window_asked = await learn_served_window(self.model, self._api_key, self._http_pool)

    async def _after_run(self) -> None:
        """Retries and fallback first; then pi's compaction check, which may continue the run once."""
        while True:
            if self.store.write_failure is not None:  # nothing more is sent that the file cannot take
                return
            await self._recovery.run()
            if not await self._compaction.check(before_prompt=False):
                return

    async def compact(self, instructions: str | None = None) -> CompactionOutcome:
        """`/compact [instructions]`: stop any run, then summarise the older part of the branch."""
        if self.agent.is_running:
            self.agent.abort()
            await self.agent.wait_for_idle()
        return await self._compaction.compact("manual", instructions)

    async def restore_compaction(self, compaction_id: str) -> RestoreOutcome:
        return await self._compaction.restore(compaction_id)

    async def recompact(self, compaction_id: str, instructions: str | None) -> CompactionOutcome:
        return await self._compaction.recompact(compaction_id, instructions)

    @property
    def is_compacting(self) -> bool:
        return self._compaction.is_compacting

    @property
    def is_summarizing_branch(self) -> bool:
        """A tree move is under way; only its branch summary call takes time (the rest is store writes)."""
        return self._tree_signal is not None

    def switch_model(self, model: ModelConfig, api_key: str | None) -> None:
        """Use `model` from now on and record it; no event (callers announce why it changed)."""
        self.model = model
        self._api_key = api_key
        remember_key(api_key)
        self.agent.state.model = model
        self.thinking_level = clamp_thinking(self.thinking_level, model)
        self.agent.state.thinking_level = self.thinking_level
        if self.store.read_only_reason is None:
            self.store.append_model_change(model.provider, model.id)

    # --- queue: steering and follow-up messages ---------------------------------------------------

    async def steer(self, text: str) -> None:
        """Deliver `text` after the running turn's tool calls finish."""
        await self._queued.add("steering", self.resources.expand_input(text))

    async def follow_up(self, text: str) -> None:
        """Deliver `text` once the agent would otherwise stop."""
        await self._queued.add("follow_up", self.resources.expand_input(text))

    @property
    def queued_texts(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(steering, follow-up) texts not yet delivered, oldest first."""
        return tuple(self._queued.steering), tuple(self._queued.follow_up)

    async def take_queued(self, kind: QueueKind, text: str) -> bool:
        """Take one undelivered message back out of its queue (to edit or drop it); False once it has
        been delivered."""
        return await self._queued.take(kind, text)

    async def clear_queue(self) -> list[str]:
        """Take back every undelivered message (Esc puts them in the editor): steering first."""
        return await self._queued.take_all()

    def abort(self) -> None:
        """Stop whatever runs: a retry countdown, a user command, a branch summary and the agent's run."""
        self._recovery.cancel()
        self.warmer.cancel("stopped by Esc or quit")
        self._compaction.cancel()
        self._bash.cancel()
        if self._tree_signal is not None:
            self._tree_signal.abort()
        self.agent.abort()

    async def wait_for_idle(self) -> None:
        await self.agent.wait_for_idle()

    def inspector_data(
        self,
        cache: InspectorCache | None = None,
        *,
        leaf_id: str | None = None,
        record_limit: int = DEFAULT_RECORDS,
        with_boundary: bool = True,
    ) -> InspectorData:
        """What the Context pane, the footer and `pi-tui context` show for this session's branch (one
        function, so they agree); the prefix is measured from the prompt and tools before any request
        recorded one."""
        return build_inspector_data(
            self.store,
            self.resources.settings,
            self.model,
            leaf_id=leaf_id,
            record_limit=record_limit,
            with_boundary=with_boundary,
            cache=cache,
            current_prefix=self.measure_prefix,
        )

    def measure_prefix(self) -> PrefixMeasure:
        """The static prefix (system prompt parts and tool schemas) the next request would carry."""
        return measure_prefix(self.system_prompt, [tool.spec() for tool in self.active_tools])

    def session_stats(self) -> SessionStats:
        """`/session`: counts and usage of the current context."""
        return session_stats(
            self.agent.state.messages,
            session_file=str(self.store.path) if self.store.path is not None else None,
            session_id=self.store.session_id,
            context_window=self.model.context_window if self.model is not None else None,
            window_source=self.model.window_source if self.model is not None else None,
        )

    # --- user shell commands (`!command`, `!!command`) ------------------------------------------

    @property
    def is_bash_running(self) -> bool:
        return self._bash.running

    @property
    def pending_bash_messages(self) -> tuple[BashExecutionMessage, ...]:
        return self._bash.pending

    async def user_bash(self, command: str, *, exclude_from_context: bool = False) -> BashExecutionMessage:
        """Run `!command` (`!!`: `exclude_from_context`), streaming `bash_output` events.

        Recorded at once when the agent is idle; while it runs the message waits for the next prompt,
        so a tool call and its result are never split. One command at a time (else
        `UserBashBusyError`); `abort()` cancels it.
        """
        options = user_bash_options(self.resources, self.store)
        return await self._bash.run(command, options, exclude_from_context=exclude_from_context)

    def abort_bash(self) -> None:
        """Cancel the running user command only (Esc while it runs)."""
        self._bash.cancel()

    # --- tree navigation ------------------------------------------------------------------------

    async def navigate_tree(
        self,
        target_id: str,
        *,
        summarize: bool = False,
        custom_instructions: str | None = None,
        replace_instructions: bool = False,
        label: str | None = None,
    ) -> NavigationResult:
        """Move the leaf to `target_id`, with an optional branch summary; the agent then continues from
        the new position. A user message target comes back as `editor_text`."""
        if self.agent.is_running:
            raise SessionBusyError("Wait for the agent to finish (or abort it) before moving in the tree.")
        request = None
        if summarize:
            target = None
            if self.model is not None:
                target = SummaryModel(
                    self.model, self.summary_stream_fn("branch-summary"), self._api_key, self.thinking_level
                )
            reserve = self.resources.settings.branch_summary.reserve_tokens
            request = SummaryRequest(target, reserve, custom_instructions, replace_instructions)
        self._tree_signal = signal = AbortSignal()
        try:
            result = await navigate_tree(
                self.store, target_id, summary=request, label=label, signal=signal, emit=self.emit
            )
        finally:
            self._tree_signal = None
        if result.cancelled or target_id == result.old_leaf_id:
            return result
        self.agent.state.messages = self.store.build_context().messages
        summary_id = result.summary_entry.id if result.summary_entry is not None else None
        await self.emit(SessionTreeEvent(result.new_leaf_id, result.old_leaf_id, summary_id))
        return result

    # --- rewind (docs/rewind.md) -----------------------------------------------------------------

    async def plan_rewind(self, entry_id: str, *, paths: set[str] | None = None) -> RewindPlan:
        """What restoring the files as they were at `entry_id` (before it, for a user message) would
        change, with diffs and conflicts; `paths` limits it to some files. Reads only."""
        from pi_tui.session.rewind import plan_rewind, point_for

        point = point_for(self.store, entry_id)
        plan = await asyncio.to_thread(
            plan_rewind, self.store, self.checkpoints, str(self.resources.cwd), point
        )
        return plan if paths is None else plan.only(paths)

    async def plan_restore_before(self, tool_call_id: str) -> RewindPlan | None:
        """The files one write, edit or bash call changed, as they were before it; None without a
        checkpoint (the Tools pane's "restore this file to before")."""
        from pi_tui.session.rewind import change_record, plan_rewind

        for entry in reversed(self.store.entries):
            record = change_record(entry)
            message = getattr(entry, "message", None)
            if record is None or getattr(message, "tool_call_id", None) != tool_call_id:
                continue
            paths = {change.path for change in record.files}
            project = str(self.resources.cwd)
            point = entry.parent_id
            plan = await asyncio.to_thread(plan_rewind, self.store, self.checkpoints, project, point)
            return plan.only(paths)
        return None

    async def plan_files_at_leaf(self, previous_leaf: str | None) -> RewindPlan:
        """What bringing the files to the current leaf's state would change after a tree move (or a
        compaction restore) from `previous_leaf`, where the agent had left them."""
        from pi_tui.session.rewind import plan_rewind

        return await asyncio.to_thread(
            functools.partial(
                plan_rewind,
                self.store,
                self.checkpoints,
                str(self.resources.cwd),
                self.store.leaf_id,
                from_leaf=previous_leaf,
            )
        )

    async def plan_undo_rewind(self) -> RewindPlan | None:
        """The last rewind's files as they were before it (what it replaced, hand edits included);
        None when the branch has no rewind that changed a file. Reads only."""
        from pi_tui.session.rewind import plan_undo

        return await asyncio.to_thread(plan_undo, self.store, self.checkpoints, str(self.resources.cwd))

    async def rewind(
        self,
        entry_id: str,
        mode: RewindMode,
        *,
        plan: RewindPlan | None = None,
        chosen_conflicts: set[str] | None = None,
        force: bool = False,
    ) -> RewindResult:
        """Restore the files, the conversation or both to `entry_id`; files changed outside pi-tui are
        left unless chosen. The restore is recorded, so it can be rewound in turn."""
        if self.agent.is_running:
            raise SessionBusyError("Wait for the agent to finish (or abort it) before rewinding.")
        from pi_tui.session.rewind import rewind_store

        old_leaf = self.store.leaf_id
        result = await rewind_store(
            self.store,
            self.checkpoints,
            str(self.resources.cwd),
            entry_id,
            mode,
            plan=plan,
            chosen_conflicts=chosen_conflicts,
            force=force,
        )
        self.agent.state.messages = self.store.build_context().messages
        await self.emit(SessionTreeEvent(self.store.leaf_id, old_leaf, None))
        return result

    async def restore_files(
        self, plan: RewindPlan, *, chosen_conflicts: set[str] | None = None, force: bool = False
    ) -> RewindOutcome:
        """Apply a plan made by `plan_rewind` or `plan_files_at_leaf`, the conversation staying put."""
        if self.agent.is_running:
            raise SessionBusyError("Wait for the agent to finish (or abort it) before restoring files.")
        from pi_tui.session.rewind import apply_rewind

        old_leaf = self.store.leaf_id
        outcome = await asyncio.to_thread(
            apply_rewind,
            self.store,
            self.checkpoints,
            str(self.resources.cwd),
            plan,
            chosen_conflicts=chosen_conflicts,
            force=force,
        )
        await self.emit(SessionTreeEvent(self.store.leaf_id, old_leaf, None))
        return outcome

    async def rewind_points(self) -> list[RewindPoint]:
        """Every user message on every branch, and whether its files can still be restored."""
        from pi_tui.session.rewind import rewind_points

        return await asyncio.to_thread(rewind_points, self.store, self.checkpoints)

    @property
    def checkpoints(self) -> CheckpointStore:
        return checkpoints_for(self.store)

    # --- queries --------------------------------------------------------------------------------

    def transcript(self) -> Transcript:
        """What the conversation shows of the current branch: its history as it happened (`transcript`)."""
        return branch_transcript(self.store.get_branch())

    def last_assistant_message(self) -> AssistantMessage | None:
        return last_assistant_message(self.agent.state.messages)

    def last_assistant_text(self) -> str | None:
        return last_assistant_text(self.agent.state.messages)
