"""pi 1.6's prompt-cache rules for a session: how long a model's cache lives, whether a one-token refresh
pays for itself, and the cache's clock as `/session`, the Context pane and `pi-tui context` show it.

pi 1.6 keeps a provider's prompt cache warm (`cacheWarming`: `off`, `streaming` during a run, `idle` also
between runs for up to 30 minutes), prints notices for large misses (`showCacheMissNotices`) and learns
how long a model's cache lives from models.json (`promptCache: {short, long}`, seconds). The numbers
here are pi's (pi-ai's cache-warming module): a refresh is due at 90% of the lifetime (at least ten
seconds before it ends), and is sent only when 15% (the chance the user comes back within the lifetime
while idle; 100% while a run goes on) of what a miss would cost, less the refresh's own price, is at
least $0.05. The session's `CacheWarmer` (pi_tui/session/cache_warmer.py) does the sending.

A model without `promptCache` gets its dialect's lifetime where pi's catalog declares one: Anthropic's
marker cache lives 5 minutes (1 hour at the long tier), as pi 1.6's built-in Anthropic models say.
OpenAI-style automatic caches publish no lifetime (pi's OpenAI models declare none) and local servers
keep their KV cache as long as they like: neither is warmed unless models.json says how long it lives.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from pi_tui.ai.chat_request import cache_retention
from pi_tui.ai.messages import AssistantMessage, ModelPrices, Usage, compute_cost
from pi_tui.ai.prompt_cache import is_local_server, prompt_cache_kind
from pi_tui.ai.stream import StreamOptions
from pi_tui.config.model_config import ModelConfig
from pi_tui.config.settings import Settings
from pi_tui.session_file.entries import MessageEntry, SessionEntry, UsageEntry

CACHE_WARM_KIND = "cache_warm"
"""The `usage` entry kind pi 1.6 writes for a refresh."""
MAX_IDLE_AGE_S = 30 * 60
"""Idle warming stops this long after the real request that wrote the cache (pi's 30 minutes)."""
MAX_STREAMING_AGE_S = 60 * 60
"""Warming during a run stops this long after the request that started it (pi's hour)."""
MINIMUM_EXPECTED_SAVINGS = 0.05
"""A refresh is sent only when it is expected to save at least this many dollars (pi's)."""
IDLE_CONTINUATION_PROBABILITY = 0.15
"""pi's measured chance that the user sends the next request within the lifetime while idle."""
MARKER_LIFETIMES = (300, 3600)
"""(short, long) seconds: Anthropic's marker cache, as pi 1.6's catalog declares for its models."""

Phase: TypeAlias = Literal["streaming", "idle"]
Retention: TypeAlias = Literal["none", "short", "long"]


def _lifetime(seconds: int) -> str:
    if seconds % 3600 == 0:
        return f"{seconds // 3600} h"
    if seconds % 60 == 0:
        return f"{seconds // 60} min"
    return f"{seconds} s"


def declared_lifetimes(model: ModelConfig | None) -> tuple[int | None, int | None, str]:
    """(short, long, where from): models.json's `promptCache`, else the dialect's default."""
    if model is None:
        return None, None, "no model"
    lifetimes = model.prompt_cache
    if lifetimes is not None and (lifetimes.short is not None or lifetimes.long is not None):
        return lifetimes.short, lifetimes.long, "models.json"
    if is_local_server(model.base_url):
        return None, None, "a local server: never warmed"
    kind = prompt_cache_kind(model)
    if kind == "marker":
        return MARKER_LIFETIMES[0], MARKER_LIFETIMES[1], "Anthropic's markers"
    if kind == "automatic":
        return None, None, "automatic cache, lifetime not published"
    return None, None, "not known to cache"


def prompt_cache_ttl_s(model: ModelConfig | None, retention: Retention) -> int | None:
    """How long the entry a request writes lives, for the retention tier it used (None: unknown, or
    caching off); pi's `getPromptCacheTtlMs`."""
    if retention == "none":
        return None
    short, long, _ = declared_lifetimes(model)
    return long if retention == "long" else short


def warming_delay_s(ttl_s: float) -> float | None:
    """When the refresh is due: at 90% of the lifetime, keeping at least ten seconds of margin."""
    if ttl_s <= 10:
        return None
    return max(0.001, min(ttl_s * 0.9, ttl_s - 10))


@dataclass(frozen=True)
class WarmingDecision:
    """pi's `evaluateCacheWarming`: what a refresh costs, what a miss would, and what it is worth."""

    phase: Phase
    prompt_tokens: int
    warm_cost: float
    miss_cost: float
    continuation_probability: float
    expected_savings: float
    economics_available: bool

    @property
    def action(self) -> Literal["warm", "stop"]:
        return "warm" if self.expected_savings >= MINIMUM_EXPECTED_SAVINGS else "stop"


def _price(prices: ModelPrices, **tokens: int) -> float:
    return compute_cost(Usage(**tokens), prices).total


def evaluate_warming(model: ModelConfig, prompt_tokens: int, phase: Phase) -> WarmingDecision:
    prices = ModelPrices.model_validate(model.cost.model_dump())
    hit = _price(prices, cache_read=prompt_tokens)
    miss = (
        _price(prices, cache_write=prompt_tokens)
        if prices.cache_write > 0
        else _price(prices, input=prompt_tokens)
    )
    warm = _price(prices, cache_read=prompt_tokens, output=1)
    miss_cost = max(0.0, miss - hit)
    probability = IDLE_CONTINUATION_PROBABILITY if phase == "idle" else 1.0
    return WarmingDecision(
        phase=phase,
        prompt_tokens=prompt_tokens,
        warm_cost=warm,
        miss_cost=miss_cost,
        continuation_probability=probability,
        expected_savings=probability * miss_cost - warm,
        economics_available=prompt_tokens > 0 and (hit > 0 or miss > 0),
    )


def last_prompt_tokens(branch: Sequence[SessionEntry]) -> int:
    """The prompt of the branch's latest real request, as the provider counted it (pi's rule)."""
    for entry in reversed(branch):
        if isinstance(entry, MessageEntry) and isinstance(entry.message, AssistantMessage):
            usage = entry.message.usage
            return usage.input + usage.cache_read + usage.cache_write
    return 0


@dataclass(frozen=True)
class CacheClock:
    """The cache's state at `now` (epoch seconds), read from the branch: when the last request or refresh
    wrote it, when it expires, when a refresh would be due and what it would cost and protect."""

    mode: str
    ttl_s: int | None
    source: str
    written_at: float | None
    request_at: float | None
    decision: WarmingDecision | None
    refreshes: int
    refresh_cost: float
    now: float
    live_next_refresh_at: float | None = None
    """The running session's own schedule (its warmer), which wins over what the file implies."""
    live_reason: str | None = None
    """Why the running session sends no refresh (a failed refresh turned warming off, Esc)."""

    @property
    def expires_at(self) -> float | None:
        if self.ttl_s is None or self.written_at is None:
            return None
        return self.written_at + self.ttl_s

    @property
    def warm(self) -> bool:
        return self.expires_at is not None and self.now < self.expires_at

    @property
    def next_refresh_at(self) -> float | None:
        """When a session that stays idle sends its next refresh (None: it sends none)."""
        if self.live_reason is not None:
            return None
        if self.live_next_refresh_at is not None:
            return self.live_next_refresh_at
        if self.mode != "idle" or self.ttl_s is None or self.written_at is None or self.request_at is None:
            return None
        delay = warming_delay_s(self.ttl_s)
        if delay is None or self.decision is None or self.decision.action != "warm":
            return None
        due = self.written_at + delay
        if due > self.request_at + MAX_IDLE_AGE_S or not self.warm:
            return None
        return due

    @property
    def stop_reason(self) -> str | None:
        """Why no refresh is coming, in pi's words where pi has them."""
        if self.live_reason is not None:
            return self.live_reason
        if self.mode == "off":
            return "cache warming disabled"
        if self.ttl_s is None:
            return f"cache lifetime unavailable ({self.source})"
        if self.written_at is None:
            return "waiting for first request"
        if self.mode == "streaming":
            return "warms only during a run (cacheWarming streaming)"
        if self.decision is not None and not self.decision.economics_available:
            return "cache economics unavailable (models.json has no prices)"
        if self.decision is not None and self.decision.action != "warm":
            return "expected savings below threshold"
        if not self.warm:
            return "expired"
        if self.next_refresh_at is None:
            return "30-minute idle safety limit reached"
        return None


def _epoch_s(entry: SessionEntry) -> float | None:
    from datetime import datetime

    try:
        return datetime.fromisoformat(entry.timestamp.replace("Z", "+00:00")).timestamp()
    except (AttributeError, ValueError):
        return None


def cache_clock(
    branch: Sequence[SessionEntry],
    model: ModelConfig | None,
    settings: Settings,
    now: float | None = None,
    retention: Retention | None = None,
) -> CacheClock:
    """The clock from what the file says: the latest reply's request time (its message's `timestamp`,
    when the request was made) or the latest refresh, whichever is later, plus the lifetime."""
    request_at: float | None = None
    written_at: float | None = None
    refreshes = 0
    refresh_cost = 0.0
    for entry in branch:
        if isinstance(entry, MessageEntry) and isinstance(entry.message, AssistantMessage):
            request_at = entry.message.timestamp / 1000
            written_at = request_at
        elif isinstance(entry, UsageEntry) and entry.kind == CACHE_WARM_KIND:
            refreshes += 1
            refresh_cost += entry.usage.cost.total
            at = _epoch_s(entry)
            if at is not None and (written_at is None or at > written_at):
                written_at = at
    ttl = prompt_cache_ttl_s(model, retention or cache_retention(StreamOptions()))
    _, _, source = declared_lifetimes(model)
    tokens = last_prompt_tokens(branch)
    decision = evaluate_warming(model, tokens, "idle") if model is not None and tokens else None
    return CacheClock(
        mode=settings.cache_warming,
        ttl_s=ttl,
        source=source,
        written_at=written_at,
        request_at=request_at,
        decision=decision,
        refreshes=refreshes,
        refresh_cost=refresh_cost,
        now=time.time() if now is None else now,
    )


def _m_ss(seconds: float) -> str:
    whole = max(0, int(seconds))
    return f"{whole // 60}:{whole % 60:02d}"


def _clock_time(epoch_s: float) -> str:
    return time.strftime("%H:%M:%S", time.localtime(epoch_s))


def cache_clock_line(clock: CacheClock) -> str:
    """`warm, expires in 3:12 · next refresh at 14:02:10, costs $0.0031, protects $0.41` and the like."""
    expires = clock.expires_at
    if expires is None:
        state = "no cache clock"
    elif clock.warm:
        state = f"warm, expires in {_m_ss(expires - clock.now)}"
    else:
        state = f"cold since {_m_ss(clock.now - expires)} ago"
    parts = [state]
    due = clock.next_refresh_at
    decision = clock.decision
    if due is not None and decision is not None:
        parts.append(
            f"next refresh at {_clock_time(due)}, costs ${decision.warm_cost:.4f}, "
            f"protects ${decision.miss_cost:.4f} ({decision.prompt_tokens:,} tokens re-written on a miss)"
        )
    elif (reason := clock.stop_reason) is not None:
        parts.append(f"no refresh: {reason}")
    if clock.refreshes:
        parts.append(
            f"{clock.refreshes} refresh{'es' if clock.refreshes != 1 else ''} ${clock.refresh_cost:.4f}"
        )
    return " · ".join(parts)


def cache_clock_json(clock: CacheClock) -> dict[str, Any]:
    decision = clock.decision
    return {
        "warm": clock.warm,
        "ttlSeconds": clock.ttl_s,
        "lifetimeSource": clock.source,
        "writtenAt": clock.written_at,
        "expiresAt": clock.expires_at,
        "expiresInSeconds": (clock.expires_at - clock.now) if clock.expires_at is not None else None,
        "nextRefreshAt": clock.next_refresh_at,
        "noRefreshReason": clock.stop_reason if clock.next_refresh_at is None else None,
        "refreshCost": decision.warm_cost if decision is not None else None,
        "missCost": decision.miss_cost if decision is not None else None,
        "expectedSavings": decision.expected_savings if decision is not None else None,
        "refreshes": clock.refreshes,
        "refreshesCost": clock.refresh_cost,
    }


def cache_lifetimes(model: ModelConfig | None) -> str:
    """The model's cache lifetimes and where they come from (models.json or the dialect)."""
    short, long, source = declared_lifetimes(model)
    if short is None and long is None:
        if model is not None and model.prompt_cache is None and source != "no model":
            return f"cache lifetime not declared (models.json promptCache; {source})"
        return "cache lifetime not declared (models.json promptCache)"
    parts = []
    if short is not None:
        parts.append(f"short {_lifetime(short)}")
    if long is not None:
        parts.append(f"long {_lifetime(long)}")
    suffix = "" if source == "models.json" else f" ({source})"
    return "cache lives " + ", ".join(parts) + suffix


def cache_settings_line(settings: Settings, model: ModelConfig | None) -> str:
    """`cacheWarming`, `showCacheMissNotices` and the model's `promptCache`, as a person reads them."""
    warming = f"warming {settings.cache_warming}"
    notices = "miss notices on" if settings.show_cache_miss_notices else "miss notices off"
    return f"{warming} · {notices} · {cache_lifetimes(model)}"


def cache_settings_json(settings: Settings, model: ModelConfig | None) -> dict[str, Any]:
    """The same facts for `--json`, with pi 1.6's key names."""
    lifetimes = model.prompt_cache if model is not None else None
    short, long, source = declared_lifetimes(model)
    return {
        "cacheWarming": settings.cache_warming,
        "warmingSent": settings.cache_warming != "off" and (short is not None or long is not None),
        "showCacheMissNotices": settings.show_cache_miss_notices,
        "promptCache": lifetimes.model_dump(by_alias=True, exclude_none=True) if lifetimes else None,
        "effectivePromptCache": {
            key: value for key, value in (("short", short), ("long", long)) if value is not None
        },
        "lifetimeSource": source,
    }


def cache_warmed_text(cost: float) -> str:
    """pi 1.6's transcript line for a refresh (`formatCacheWarmingUsage`): at least three decimals."""
    whole, _, fraction = f"{cost:.6f}".rstrip("0").partition(".")
    return f"Cache warmed: ${whole}.{fraction.ljust(3, '0')}"
