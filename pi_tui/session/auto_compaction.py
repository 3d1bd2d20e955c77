"""Compaction in a live session: `/compact`, the threshold check, overflow recovery, as pi.

The decision is `check_compaction` (pure, in `context/compaction`); the work is `compact_store`. This
module runs them at the right moments, rebuilds the agent's state from the session file afterwards,
emits `compaction_start` / `compaction_end`, and continues the run once after an overflow. A second
overflow in a row is reported, never retried. When the whole branch is within the kept recent
messages there is nothing to summarise: no model is called, and an overflow is reported at once with
what the request costs.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeAlias

from pi_tui.agent.agent import Agent
from pi_tui.agent.tool import AgentTool
from pi_tui.ai.abort import AbortSignal
from pi_tui.ai.convert import convert_to_llm
from pi_tui.ai.messages import AssistantMessage, ThinkingLevel
from pi_tui.ai.overflow import is_context_overflow
from pi_tui.ai.stream import LlmContext, StreamFunction
from pi_tui.config.compaction_budget import resolved_compaction
from pi_tui.config.model_config import ModelConfig
from pi_tui.config.settings import CompactionSettings
from pi_tui.context.accounting.record import RequestKind
from pi_tui.context.compaction.blocker import CompactionBlock, compaction_blocker
from pi_tui.context.compaction.overflow_notice import overflow_notice, request_cost
from pi_tui.context.compaction.triggers import (
    OVERFLOW_RECOVERY_FAILED,
    CompactionTrigger,
    auto_compaction_error,
    check_compaction,
)
from pi_tui.context.resources import Resources
from pi_tui.context.system_prompt import SystemPrompt
from pi_tui.session.compaction_ops import (
    COMPACTION_FAILED,
    CompactionOutcome,
    RestoreOutcome,
    compact_store,
    latest_compaction_ms,
    restore_before,
)
from pi_tui.session.compaction_sizes import request_prefix
from pi_tui.session.failure_recovery import leave_out_of_context
from pi_tui.session.restore_hold import restore_hold
from pi_tui.session.session_events import (
    AnyEvent,
    CompactionEndEvent,
    CompactionReasonName,
    CompactionResult,
    CompactionStartEvent,
    SessionTreeEvent,
)
from pi_tui.session_file.store import SessionStore

CONTINUE_DELAY_S = 0.1
"""pi waits this long after compacting before it continues the interrupted run."""


ConfirmCompaction: TypeAlias = Callable[[CompactionReasonName, int | None], Awaitable[bool]]
"""Asked before an automatic compaction when `compaction.confirm` is set (beyond pi); headless never asks."""


class CompactingSession(Protocol):
    agent: Agent
    confirm_compaction: ConfirmCompaction | None
    model: ModelConfig | None
    resources: Resources
    store: SessionStore
    thinking_level: ThinkingLevel
    system_prompt: SystemPrompt
    active_tools: list[AgentTool[Any]]

    @property
    def api_key(self) -> str | None: ...

    def summary_stream_fn(self, kind: RequestKind) -> StreamFunction: ...

    def last_assistant_message(self) -> AssistantMessage | None: ...

    async def emit(self, event: AnyEvent) -> None: ...


def compaction_settings(session: CompactingSession) -> CompactionSettings:
    """The compaction budgets in force for the session's model (`resolved_compaction`)."""
    return resolved_compaction(session.resources.settings.compaction, session.model)


def session_blocker(session: CompactingSession) -> CompactionBlock | None:
    """Why automatic compaction would not run on the session's branch now (`compaction_blocker`): the
    test `AutoCompaction.check` makes, for the footer to ask too."""
    return compaction_blocker(
        session.store.get_branch(), session.resources.settings.compaction, session.model
    )


def blocked_notice(block: CompactionBlock) -> str:
    """The one line the conversation gets when the threshold is crossed and compaction cannot run."""
    return f"Auto-compaction cannot run: {block.text}. To let it run: {block.change}."


class AutoCompaction:
    """Owns the compaction signal (Esc cancels) and pi's one-shot overflow flag."""

    def __init__(self, session: CompactingSession) -> None:
        self._session = session
        self._signal: AbortSignal | None = None
        self._overflow_attempted = False
        self._refused: AssistantMessage | None = None
        """The reply whose overflow was reported as beyond compaction: checked again (before the next
        prompt) it would be reported again."""
        self._block_told = False
        """The conversation was told why a threshold compaction cannot run; told again only after the
        context went under the threshold or was compacted."""

    @property
    def is_compacting(self) -> bool:
        return self._signal is not None

    def cancel(self) -> None:
        if self._signal is not None:
            self._signal.abort()

    def note_progress(self) -> None:
        """A user message or a successful reply: the next overflow may be recovered from again."""
        self._overflow_attempted = False

    def note_reply(self, reply: AssistantMessage) -> None:
        """A successful reply is progress; one that overflowed silently (it stopped normally on more
        input than the window) is not: after a recovery, a second one is reported, never compacted
        again (the rebuilt state would end with the first one, and the run could not continue)."""
        model = self._session.model
        if not reply.failed and not is_context_overflow(reply, model.context_window if model else None):
            self.note_progress()

    async def compact(
        self,
        reason: CompactionReasonName = "manual",
        instructions: str | None = None,
        *,
        will_retry: bool = False,
        recompacts: str | None = None,
    ) -> CompactionOutcome:
        session = self._session
        await session.emit(CompactionStartEvent(reason, recompacts))
        if session.model is None:
            outcome = CompactionOutcome(error="No model configured")
        else:
            self._signal = signal = AbortSignal()
            try:
                outcome = await compact_store(
                    session.store,
                    model=session.model,
                    api_key=session.api_key,
                    stream_fn=session.summary_stream_fn("summary"),
                    settings=compaction_settings(session),
                    custom_instructions=instructions,
                    reason=reason,
                    signal=signal,
                    thinking_level=session.thinking_level,
                    live=live_context(session.agent),
                    prefix=request_prefix(session),
                )
            finally:
                self._signal = None
        if outcome.entry_id is not None and outcome.first_kept_entry_id is not None:
            self._block_told = False
            session.agent.state.messages = session.store.build_context().messages
            result = CompactionResult(
                entry_id=outcome.entry_id,
                summary=outcome.summary,
                first_kept_entry_id=outcome.first_kept_entry_id,
                tokens_before=outcome.tokens_before,
                size=outcome.size,
            )
            await session.emit(CompactionEndEvent(reason, result=result, will_retry=will_retry))
        else:
            await session.emit(
                CompactionEndEvent(
                    reason, aborted=outcome.cancelled, error_message=_reported_error(reason, outcome)
                )
            )
        return outcome

    async def restore(self, compaction_id: str) -> RestoreOutcome:
        """Undo a compaction: the leaf goes to the entry before it, the state gets the raw history back."""
        session = self._session
        old_leaf = session.store.leaf_id
        outcome = restore_before(session.store, compaction_id)
        if outcome.error is None:
            messages = session.store.build_context().messages
            # A failed reply at the restored point (often the overflow that led to the compaction) stays
            # in the file but not in the state: it would only trigger the same compaction again.
            while messages and isinstance(messages[-1], AssistantMessage) and messages[-1].failed:
                messages = messages[:-1]
            session.agent.state.messages = messages
            await session.emit(SessionTreeEvent(session.store.leaf_id, old_leaf))
        return outcome

    async def recompact(self, compaction_id: str, instructions: str | None) -> CompactionOutcome:
        """Summarise the same span again with new instructions, on a new branch."""
        restored = await self.restore(compaction_id)
        if restored.error is not None:
            return CompactionOutcome(error=restored.error)
        return await self.compact("manual", instructions, recompacts=compaction_id)

    async def _confirmed(self, reason: CompactionReasonName, tokens: int | None) -> bool:
        """`compaction.confirm`: the front end may decline; a declined compaction ends as cancelled."""
        session = self._session
        if not session.resources.settings.compaction.confirm or await _ask(session, reason, tokens):
            return True
        await session.emit(CompactionEndEvent(reason, aborted=True))
        return False

    async def check(self, *, before_prompt: bool) -> bool:
        """Run pi's automatic check; True when a run was continued (the caller checks again after it)."""
        session = self._session
        reply = session.last_assistant_message()
        settings = compaction_settings(session)
        if reply is None or reply is self._refused or session.store.read_only_reason is not None:
            return False
        trigger = check_compaction(
            reply,
            session.agent.state.messages,
            model=session.model,
            settings=settings,
            latest_compaction_ms=latest_compaction_ms(session.store),
            skip_aborted=not before_prompt,
            overflow_attempted=self._overflow_attempted,
            hold=hold.state if (hold := restore_hold(session.store)) is not None else None,
        )
        if trigger.kind == "none":
            self._block_told = False
        if trigger.kind == "overflow_failed":
            await session.emit(CompactionEndEvent("overflow", error_message=OVERFLOW_RECOVERY_FAILED))
            return False
        if trigger.kind in ("overflow", "threshold") and (block := session_blocker(session)) is not None:
            await self._refuse(reply, trigger, block)
            return False
        if trigger.kind in ("overflow", "threshold") and not await self._confirmed(
            "overflow" if trigger.kind == "overflow" else "threshold", trigger.context_tokens
        ):
            return False
        if trigger.kind == "overflow":
            self._overflow_attempted = True
            _drop_overflowing_reply(session.agent, session.store)
            outcome = await self.compact("overflow", will_retry=True)
            if outcome.entry_id is None:
                return False
            # The rebuilt state leaves the reply out (the edit above); an older file's compaction of
            # the same span may still hold it: it is not sent back.
            _drop_overflowing_reply(session.agent, None)
            await asyncio.sleep(CONTINUE_DELAY_S)
            await session.agent.continue_()
            return True
        if trigger.kind == "threshold":
            outcome = await self.compact("threshold")
            if outcome.entry_id is not None and session.agent.has_queued_messages() and not before_prompt:
                await asyncio.sleep(CONTINUE_DELAY_S)
                await session.agent.continue_()
                return True
        return False

    async def _refuse(
        self, reply: AssistantMessage, trigger: CompactionTrigger, block: CompactionBlock
    ) -> None:
        """No model call: an overflow (or a count above the window) is reported at once with what the
        request costs; a threshold crossing under the window is told once, with `block`'s reason (pi
        says nothing, and the footer said `(auto)`: issue #27)."""
        session = self._session
        model = session.model
        window = model.context_window if model is not None else 0
        if trigger.kind == "threshold" and (trigger.context_tokens or 0) <= window:
            if not self._block_told:
                self._block_told = True
                await session.emit(CompactionEndEvent("threshold", error_message=blocked_notice(block)))
            return
        self._refused = reply
        state = session.agent.state
        cost = request_cost(reply, state.messages, state.system_prompt, [tool.spec() for tool in state.tools])
        notice = overflow_notice(
            cost,
            window=window,
            model_ref=model.ref if model is not None else "the model",
            keep_recent_tokens=compaction_settings(session).keep_recent_tokens,
        )
        await session.emit(CompactionEndEvent("overflow", error_message=notice))


async def _ask(session: CompactingSession, reason: CompactionReasonName, tokens: int | None) -> bool:
    confirm = session.confirm_compaction
    return True if confirm is None else await confirm(reason, tokens)


def _reported_error(reason: CompactionReasonName, outcome: CompactionOutcome) -> str | None:
    """Manual: every refusal is shown. Automatic: only a failed summary call; "nothing to compact"
    ends silently, as in pi."""
    if outcome.cancelled or outcome.error is None:
        return None
    if reason == "manual":
        return outcome.error
    failed_prefix = f"{COMPACTION_FAILED}: "
    if outcome.error.startswith(failed_prefix):
        return auto_compaction_error(reason, outcome.error.removeprefix(failed_prefix))
    return None


def live_context(agent: Agent) -> LlmContext:
    """The request the agent would send now, without a new message: what a summary asked inline extends."""
    state = agent.state
    return LlmContext(
        state.system_prompt, convert_to_llm(state.messages), [tool.spec() for tool in state.tools]
    )


def _drop_overflowing_reply(agent: Agent, store: SessionStore | None) -> None:
    """The reply that overflowed leaves the state: an error, or a "silent" overflow that stopped normally
    with more input than the window holds (z.ai does). With `store`, it also leaves the file's context
    with a `context_edit`, written before the compaction as pi 1.6 does."""
    messages = agent.state.messages
    if messages and isinstance(messages[-1], AssistantMessage):
        if store is not None:
            leave_out_of_context(store, messages[-1])
        messages = messages[:-1]
    # Failed replies retried earlier in the run sit just before it in the file; they are never sent.
    while messages and isinstance(messages[-1], AssistantMessage) and messages[-1].failed:
        messages = messages[:-1]
    agent.state.messages = messages
