"""Writing a compaction's summary with the chosen strategy, and what the summary call(s) cost.

An inline summary that cannot be used is asked again once with the serialising strategy; both calls are
billed, so the figures stored with the compaction add them up. The figures go into the compaction
entry's `details` (pi reads only `readFiles` and `modifiedFiles` there and keeps the rest).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pi_tui.ai.abort import AbortSignal
from pi_tui.ai.messages import Usage
from pi_tui.ai.stream import LlmContext
from pi_tui.context.compaction.inline_summary import InlineFallback, summarize_inline
from pi_tui.context.compaction.preparation import CompactionPreparation
from pi_tui.context.compaction.strategy import StrategyChoice, StrategyName
from pi_tui.context.compaction.summaries import CompactionSummary, summarize_compaction
from pi_tui.context.compaction.summary_call import SummaryFailure, SummaryModel


@dataclass(frozen=True)
class SummaryCallFacts:
    """How the summary was written, its input tokens by cache, and the calls' cost in $ (models.json)."""

    strategy: StrategyName
    reason: str
    fallback: str | None
    cached_tokens: int
    uncached_tokens: int
    cost: float

    @property
    def cached_share(self) -> float | None:
        total = self.cached_tokens + self.uncached_tokens
        return self.cached_tokens / total if total else None

    def describe(self) -> str:
        """One line for the Compactions pane and `pi-tui compactions`."""
        total = self.cached_tokens + self.uncached_tokens
        line = f"{self.strategy}: {self.cached_tokens:,} of {total:,} input tokens from cache"
        if self.cached_share is not None:
            line += f" ({round(100 * self.cached_share)}%)"
        if self.cost:
            line += f", ${self.cost:.4f}"
        return line + (f"; inline not used: {self.fallback}" if self.fallback else "")

    def to_details(self) -> dict[str, Any]:
        details: dict[str, Any] = {
            "summaryStrategy": self.strategy,
            "summaryStrategyReason": self.reason,
            "summaryInput": {"cachedTokens": self.cached_tokens, "uncachedTokens": self.uncached_tokens},
            "summaryCost": self.cost,
        }
        if self.fallback is not None:
            details["inlineFallback"] = self.fallback
        return details

    @classmethod
    def from_details(cls, details: Any) -> SummaryCallFacts | None:
        """The facts stored with a compaction; None for one written by pi or an older pi-tui."""
        if not isinstance(details, dict):
            return None
        strategy = details.get("summaryStrategy")
        inputs = details.get("summaryInput")
        if strategy not in ("inline", "serialize") or not isinstance(inputs, dict):
            return None
        cached, uncached = inputs.get("cachedTokens"), inputs.get("uncachedTokens")
        cost, reason, fallback = details.get("summaryCost"), details.get("summaryStrategyReason"), None
        if isinstance(details.get("inlineFallback"), str):
            fallback = details["inlineFallback"]
        if not isinstance(cached, int) or not isinstance(uncached, int):
            return None
        return cls(
            strategy,
            reason if isinstance(reason, str) else "",
            fallback,
            cached,
            uncached,
            float(cost) if isinstance(cost, int | float) else 0.0,
        )


def call_facts(
    strategy: StrategyName, reason: str, fallback: str | None, usages: Sequence[Usage]
) -> SummaryCallFacts:
    return SummaryCallFacts(
        strategy=strategy,
        reason=reason,
        fallback=fallback,
        cached_tokens=sum(usage.cache_read for usage in usages),
        uncached_tokens=sum(usage.input + usage.cache_write for usage in usages),
        cost=sum(usage.cost.total for usage in usages),
    )


async def write_summary(
    preparation: CompactionPreparation,
    target: SummaryModel,
    choice: StrategyChoice,
    live: LlmContext | None,
    *,
    custom_instructions: str | None = None,
    pins: Sequence[str] = (),
    signal: AbortSignal | None = None,
) -> tuple[CompactionSummary | SummaryFailure, SummaryCallFacts]:
    spent: list[Usage] = []
    fallback: str | None = None
    if choice.name == "inline" and live is not None:
        inline = await summarize_inline(
            preparation, target, live, custom_instructions=custom_instructions, pins=pins, signal=signal
        )
        if not isinstance(inline, InlineFallback):
            usages = inline.usages if isinstance(inline, CompactionSummary) else []
            return inline, call_facts("inline", choice.reason, None, usages)
        fallback, spent = inline.reason, inline.usage
    result = await summarize_compaction(
        preparation, target, custom_instructions=custom_instructions, pins=pins, signal=signal
    )
    if isinstance(result, CompactionSummary):
        result.usages = [*spent, *result.usages]
    usages = result.usages if isinstance(result, CompactionSummary) else spent
    reason = choice.reason if fallback is None else f"inline summary not usable: {fallback}"
    return result, call_facts("serialize", reason, fallback, usages)
