"""Keeps the provider's prompt cache warm as pi 1.6 does (`cacheWarming`, docs/compaction.md "Cache
warming"): the session's last request is sent again, byte for byte but for its output cap of one token,
shortly before the cache entry it wrote expires, while that is expected to save more than it costs.

Each agent request starts a run (replacing the previous one); the clock counts from when the request was
made, as pi's does. While the agent works (`streaming`) a refresh is worth its whole miss; between runs
(`idle`, the default) only pi's 15% of it, and never more than 30 minutes after the request. A refresh
is a `usage` entry of kind `cache_warm`, counted in the session's cost, never sent to the model. The run
stops when the conversation moves on (the messages the request sent are no longer the branch's prefix,
another model is chosen), when the session aborts (Esc, quitting: a refresh in flight is cancelled), or
when a refresh would land too late to find the entry alive. A refresh that the provider rejects or
answers with an error turns warming off for the rest of the session, with one notice: the provider is
failing or the machine is offline, and repeating the call would only bill the failures.

The clock and the timer are injected (`WarmingClock`) so tests drive hours of idleness without waiting.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Protocol

from pi_tui.ai.abort import AbortSignal
from pi_tui.ai.chat_request import cache_retention
from pi_tui.ai.messages import AssistantMessage
from pi_tui.ai.stream import LlmContext, StreamFunction, StreamOptions
from pi_tui.config.model_config import ModelConfig
from pi_tui.context.cache_policy import (
    CACHE_WARM_KIND,
    MAX_IDLE_AGE_S,
    MAX_STREAMING_AGE_S,
    Phase,
    WarmingDecision,
    evaluate_warming,
    last_prompt_tokens,
    prompt_cache_ttl_s,
    warming_delay_s,
)
from pi_tui.session_file.entries import UsageEntry
from pi_tui.session_file.store import SessionStore


class WarmingClock(Protocol):
    """Wall time in epoch seconds, and a sleep on the same clock."""

    def now(self) -> float: ...

    async def sleep(self, seconds: float) -> None: ...


class RealClock:
    def now(self) -> float:
        return time.time()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


@dataclass
class _Run:
    model: ModelConfig
    context: LlmContext
    options: StreamOptions
    is_current: Callable[[], bool]
    ttl_s: float
    delay_s: float
    started_at: float
    written_at: float
    signal: AbortSignal = field(default_factory=AbortSignal)
    phase: Phase = "streaming"
    next_warm_at: float = 0.0
    refresh_deadline: float = 0.0
    refreshing: bool = False
    task: asyncio.Task[None] | None = None


@dataclass(frozen=True)
class WarmingStatus:
    """What the warmer is doing, for the Context pane."""

    state: str
    """`scheduled`, `refreshing` or `inactive`."""
    reason: str | None = None
    next_warm_at: float | None = None
    expires_at: float | None = None
    decision: WarmingDecision | None = None
    phase: Phase | None = None


def replay_options(options: StreamOptions, signal: AbortSignal) -> StreamOptions:
    """The request's own options, capped at one output token, without retries, cancelled by `signal`
    (pi's `getCacheWarmingRequestOptions`). Nothing else changes, so the body is the request's."""
    return replace(options, max_tokens=1, max_retries=0, signal=signal, clock=None, disable_continuation=True)


def is_replayable(model: ModelConfig, options: StreamOptions) -> bool:
    """Anthropic's budget thinking derives `budget_tokens` from `max_tokens`: a one-token replay would
    ask for a different budget, which Anthropic keys its cache on (pi's `isCacheWarmingReplayable`)."""
    if not options.reasoning or options.reasoning == "off" or model.api != "anthropic-messages":
        return True
    return model.compat.force_adaptive_thinking is True


class CacheWarmer:
    def __init__(
        self,
        store: SessionStore,
        stream: StreamFunction,
        get_mode: Callable[[], str],
        *,
        clock: WarmingClock | None = None,
        on_warmed: Callable[[UsageEntry], Awaitable[None]] | None = None,
        on_disabled: Callable[[str], Awaitable[None]] | None = None,
    ) -> None:
        self._store = store
        self._stream = stream
        self._get_mode = get_mode
        self.clock: WarmingClock = clock or RealClock()
        self._on_warmed = on_warmed
        self._on_disabled = on_disabled
        self._run: _Run | None = None
        self._inactive = "waiting for first request"
        self.disabled_reason: str | None = None
        """Set once a refresh failed: warming stays off for the rest of the session."""

    # --- what the session tells it ----------------------------------------------------------------

    def start(
        self,
        model: ModelConfig,
        context: LlmContext,
        options: StreamOptions,
        is_current: Callable[[], bool],
    ) -> None:
        """Keep the entry the request about to be sent writes warm while `is_current()` holds."""
        self._clear()
        if self._get_mode() == "off":
            self._inactive = "cache warming disabled"
            return
        if self.disabled_reason is not None:
            self._inactive = self.disabled_reason
            return
        if not is_replayable(model, options):
            self._inactive = "request cannot be replayed safely"
            return
        retention = cache_retention(options)
        ttl = prompt_cache_ttl_s(model, retention)
        delay = warming_delay_s(ttl) if ttl is not None else None
        if ttl is None or delay is None:
            self._inactive = (
                "request disabled prompt caching" if retention == "none" else "cache lifetime unavailable"
            )
            return
        now = self.clock.now()
        run = _Run(model, context, options, is_current, ttl, delay, started_at=now, written_at=now)
        self._run = run
        self._schedule(run)

    def on_agent_settled(self) -> None:
        """The run is over: `idle` keeps warming (with its odds and its 30 minutes), `streaming` stops."""
        run = self._run
        if run is None:
            return
        if self._get_mode() == "streaming":
            self._stop("agent run settled")
            return
        run.phase = "idle"
        deadline = run.started_at + MAX_IDLE_AGE_S
        if run.next_warm_at > deadline or self.clock.now() >= deadline:
            self._stop("30-minute idle safety limit reached")

    def cancel(self, reason: str = "stopped") -> None:
        """Esc or quitting: stop the run and any refresh in flight."""
        if self._run is not None:
            self._stop(reason)

    # --- what it shows ----------------------------------------------------------------------------

    @property
    def status(self) -> WarmingStatus:
        if self._get_mode() == "off":
            return WarmingStatus("inactive", "cache warming disabled")
        run = self._run
        if run is None:
            return WarmingStatus("inactive", self._inactive)
        decision = self._evaluate(run)
        return WarmingStatus(
            "refreshing" if run.refreshing else "scheduled",
            next_warm_at=run.next_warm_at,
            expires_at=run.written_at + run.ttl_s,
            decision=decision,
            phase=run.phase,
        )

    # --- the run ----------------------------------------------------------------------------------

    def _clear(self) -> None:
        run, self._run = self._run, None
        if run is None:
            return
        run.signal.abort("cache warming stopped")
        if run.task is not None and run.task is not asyncio.current_task():
            run.task.cancel()

    def _stop(self, reason: str) -> None:
        self._clear()
        self._inactive = reason

    def _schedule(self, run: _Run) -> None:
        now = self.clock.now()
        run.next_warm_at = run.written_at + run.delay_s
        # A timer can fire late (a suspended laptop, a blocked loop): half the margin before expiry is
        # kept for that and for sending; later than that the refresh would pay for a full write.
        run.refresh_deadline = run.next_warm_at + (run.ttl_s - run.delay_s) / 2
        limit = run.started_at + (MAX_IDLE_AGE_S if run.phase == "idle" else MAX_STREAMING_AGE_S)
        if run.next_warm_at > limit or now >= limit:
            self._stop(
                "30-minute idle safety limit reached"
                if run.phase == "idle"
                else "one-hour safety limit reached"
            )
            return
        run.task = asyncio.get_running_loop().create_task(self._wait_and_refresh(run))

    def _evaluate(self, run: _Run) -> WarmingDecision:
        return evaluate_warming(run.model, last_prompt_tokens(self._store.get_branch()), run.phase)

    def _still_valid(self, run: _Run) -> bool:
        if self._run is not run:
            return False
        mode = self._get_mode()
        reason = (
            "cache warming disabled"
            if mode == "off"
            else "agent run settled"
            if mode == "streaming" and run.phase == "idle"
            else None
        )
        if reason is None and not run.is_current():
            reason = "conversation context changed"
        if reason is not None:
            self._stop(reason)
            return False
        return True

    async def _wait_and_refresh(self, run: _Run) -> None:
        await self.clock.sleep(max(0.0, run.next_warm_at - self.clock.now()))
        if not self._still_valid(run):
            return
        if self.clock.now() > run.refresh_deadline:
            self._stop("cache refresh deadline missed")
            return
        decision = self._evaluate(run)
        if decision.action != "warm":
            self._stop(
                "expected savings below threshold"
                if decision.economics_available
                else "cache economics unavailable"
            )
            return
        if self._store.read_only_reason is not None:
            self._stop("session is read-only")
            return
        run.refreshing = True
        failure = await self._send(run)
        run.refreshing = False
        if self._run is not run:
            return  # cancelled while in flight: nothing is written
        if failure is not None:
            self.disabled_reason = f"cache warming off for this session: the refresh failed ({failure})"
            self._stop(self.disabled_reason)
            if self._on_disabled is not None:
                await self._on_disabled(self.disabled_reason)
            return
        run.written_at = self.clock.now()
        self._schedule(run)

    async def _send(self, run: _Run) -> str | None:
        """Send the refresh; None when it was billed and recorded, else why it failed."""
        message: AssistantMessage | None = None
        try:
            stream = self._stream(run.model, run.context, replay_options(run.options, run.signal))
            async for event in stream:
                if event.terminal:
                    message = event.message
        except asyncio.CancelledError:
            raise
        except Exception as error:  # the provider's own errors arrive as error replies; this is the rest
            return str(error) or type(error).__name__
        if run.signal.aborted or self._run is not run:
            return None
        if message is None:
            return "no reply"
        if message.stop_reason == "aborted":
            return None
        if message.stop_reason == "error":
            return message.error_message or "the provider answered with an error"
        entry = self._store.append_usage(
            CACHE_WARM_KIND, message.provider, message.response_model or message.model, message.usage
        )
        if self._on_warmed is not None:
            with contextlib.suppress(Exception):
                await self._on_warmed(entry)
        return None
