"""pi 1.6's cache-miss notices (`showCacheMissNotices`): a reply whose prompt re-billed what the previous
request had cached, by pi's arithmetic, and the one line the conversation shows when it cost enough.

A miss is the part of the previous request's prompt (or the previous cache refresh's) that this reply
did not read from the cache: `min(previous prompt, this prompt) - cacheRead`. Misses of 1,024 tokens or
less are cache-breakpoint noise. Its cost is those tokens at the rate this reply actually paid for its
uncached input (input or cache write) less the cache-read rate. A compaction or branch summary resets the
comparison (the context changed on purpose); a model switch does not (it re-bills the whole prompt). A
turn that reports no cache activity counts only once caching was seen, as on providers that report none
it means nothing. The line is shown when the miss re-billed at least 20,000 tokens or $0.10, labelled
with pi's heuristic cause: a model switch, or an idle gap past Anthropic's 5-minute lifetime.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TypeAlias

from pi_tui.ai.messages import AssistantMessage, Usage
from pi_tui.context.token_figures import format_tokens, js_round
from pi_tui.session_file.entries import (
    BranchSummaryEntry,
    CompactionEntry,
    MessageEntry,
    SessionEntry,
    UsageEntry,
)

CACHE_TTL_S = 5 * 60
"""Idle gaps longer than this are named as the likely cause (Anthropic's default lifetime)."""
NOISE_FLOOR_TOKENS = 1024
NOTICE_MIN_TOKENS = 20_000
NOTICE_MIN_COST = 0.10

ReadPrice: TypeAlias = Callable[[str, str], float]
"""A model's cache-read price ($ per million tokens) by provider and model id (0 when unknown)."""


@dataclass(frozen=True)
class _Previous:
    prompt_tokens: int
    model_key: str
    timestamp_ms: float
    reported_cache: bool


@dataclass(frozen=True)
class CacheMiss:
    missed_tokens: int
    missed_cost: float
    idle_s: float
    model_changed: bool

    def worth_a_notice(self) -> bool:
        return self.missed_tokens >= NOTICE_MIN_TOKENS or self.missed_cost >= NOTICE_MIN_COST

    def notice(self) -> str:
        """pi 1.6's line: `Cache miss after 7m idle: 120k tokens re-billed (~$1.73)`."""
        cost = f" (~${self.missed_cost:.2f})" if self.missed_cost >= 0.01 else ""
        label = "Cache miss"
        if self.model_changed:
            label = "Cache miss after model switch"
        elif self.idle_s >= CACHE_TTL_S:
            label = f"Cache miss after {js_round(self.idle_s / 60)}m idle"
        return f"{label}: {format_tokens(self.missed_tokens)} tokens re-billed{cost}"


def _prompt(usage: Usage) -> int:
    return usage.input + usage.cache_read + usage.cache_write


def _miss(previous: _Previous | None, message: AssistantMessage, read_price: ReadPrice) -> CacheMiss | None:
    usage = message.usage
    prompt = _prompt(usage)
    if previous is None or prompt <= 0:
        return None
    if usage.cache_read + usage.cache_write == 0 and not previous.reported_cache:
        return None
    missed = min(previous.prompt_tokens, prompt) - usage.cache_read
    if missed <= NOISE_FLOOR_TOKENS:
        return None
    paid_tokens = usage.input + usage.cache_write
    paid_rate = (usage.cost.input + usage.cost.cache_write) / paid_tokens if paid_tokens else 0.0
    if usage.cache_read > 0:
        read_rate = usage.cost.cache_read / usage.cache_read
    else:
        read_rate = read_price(message.provider, message.model) / 1_000_000
    return CacheMiss(
        missed_tokens=missed,
        missed_cost=missed * max(0.0, paid_rate - read_rate),
        idle_s=max(0.0, (message.timestamp - previous.timestamp_ms) / 1000),
        model_changed=_model_key(message) != previous.model_key,
    )


def _model_key(message: AssistantMessage) -> str:
    """The model that answered: a refresh's `usage` entry names the server's model (`responseModel`,
    as pi writes it), so a reply is compared by the same name. pi 1.6 compares the requested id there,
    and calls a miss after a refresh from a server that renames its model a model switch."""
    return f"{message.provider}/{message.response_model or message.model}"


def _epoch_ms(timestamp: str) -> float:
    try:
        return datetime.fromisoformat(timestamp.replace("Z", "+00:00")).timestamp() * 1000
    except ValueError:
        return 0.0


def cache_misses(entries: Sequence[SessionEntry], read_price: ReadPrice) -> dict[str, CacheMiss]:
    """Every counted miss of `entries` (file order), by the id of the reply's entry that paid for it."""
    previous: _Previous | None = None
    misses: dict[str, CacheMiss] = {}
    for entry in entries:
        if isinstance(entry, CompactionEntry | BranchSummaryEntry):
            previous = None
        elif isinstance(entry, UsageEntry) and entry.kind == "cache_warm":
            prompt = _prompt(entry.usage)
            if prompt > 0:
                previous = _Previous(
                    prompt, f"{entry.provider}/{entry.model}", _epoch_ms(entry.timestamp), True
                )
        elif isinstance(entry, MessageEntry) and isinstance(entry.message, AssistantMessage):
            message = entry.message
            miss = _miss(previous, message, read_price)
            if miss is not None:
                misses[entry.id] = miss
            prompt = _prompt(message.usage)
            if prompt > 0:
                reported = (previous.reported_cache if previous else False) or (
                    message.usage.cache_read + message.usage.cache_write > 0
                )
                previous = _Previous(
                    prompt, f"{message.provider}/{message.model}", message.timestamp, reported
                )
    return misses
