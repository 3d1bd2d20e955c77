"""pi 1.6's catalog of Anthropic's models, for `--model anthropic/<id>` without a models.json entry.

pi's built-in `anthropic` provider knows each Claude model's window, output limit, prices, thinking kind
and thinking level names, and sends their tools strict (`compat.supportsStrictTools`); pi-tui takes
the same facts from this table (pi 1.6.0's `providers/data/anthropic.json`, chat models, every one of
which reasons, reads images and takes strict tools), so a zero-config Claude request is pi's. A
models.json entry for the same model wins; a models.json `anthropic` provider that only moves the
`baseUrl` keeps these facts.

Left out: pi's mid-conversation effort, system-message and tool-change features and its server-side
fallback models (`supportsMidConvoEffort`, `supportsMidConvoSystemMessages`, `supportsMidConvoToolChanges`,
`allowedFallbackModels`), which pi-tui does not implement, and the long-context price tiers; docs/providers.md
says so.
"""

from __future__ import annotations

from dataclasses import dataclass

from pi_tui.config.compat import CompatOverrides
from pi_tui.config.model_config import ModelConfig, Prices

CATALOG_WINDOW = "pi 1.6's catalog"


@dataclass(frozen=True)
class _Entry:
    id: str
    context_window: int
    max_tokens: int
    prices: tuple[float, float, float, float]
    """$ per million tokens: input, output, cache read, cache write."""
    adaptive: bool
    levels: dict[str, str | None] | None


def _budget(id: str, window: int, output: int, prices: tuple[float, float, float, float]) -> _Entry:
    """A model whose thinking takes a token budget (`budget_tokens`)."""
    return _Entry(id, window, output, prices, adaptive=False, levels=None)


def _adaptive(
    id: str,
    window: int,
    output: int,
    prices: tuple[float, float, float, float],
    levels: dict[str, str | None],
) -> _Entry:
    """A model with adaptive thinking and pi's names for its effort levels."""
    return _Entry(id, window, output, prices, adaptive=True, levels=levels)


# pi's `thinkingLevelMap` values: a level mapped to None is not offered ("always on": no "off").
_MAX_ONLY: dict[str, str | None] = {"max": "max"}
_XHIGH_AND_MAX: dict[str, str | None] = {"xhigh": "xhigh", "max": "max"}
_XHIGH_AND_MAX_ALWAYS_ON: dict[str, str | None] = {"off": None, "xhigh": "xhigh", "max": "max"}
_LOW_TO_MAX: dict[str, str | None] = {
    "minimal": None,
    "low": "low",
    "medium": "medium",
    "high": "high",
    "xhigh": "xhigh",
    "max": "max",
}
_LOW_TO_MAX_ALWAYS_ON: dict[str, str | None] = {"off": None, **_LOW_TO_MAX}

# id, window, output limit, $ per million tokens (input, output, cache read, cache write), thinking.
CATALOG: dict[str, _Entry] = {
    entry.id: entry
    for entry in (
        _adaptive("claude-fable-5", 1_000_000, 128_000, (10, 50, 1, 12.5), _XHIGH_AND_MAX_ALWAYS_ON),
        _adaptive("claude-fable-5-1", 1_000_000, 128_000, (10, 50, 0.25, 12.5), _XHIGH_AND_MAX_ALWAYS_ON),
        _adaptive("claude-fable-5-2", 1_000_000, 128_000, (8, 40, 0.2, 10), _XHIGH_AND_MAX_ALWAYS_ON),
        _budget("claude-haiku-4-5", 200_000, 64_000, (1, 5, 0.1, 1.25)),
        _budget("claude-haiku-4-5-20251001", 200_000, 64_000, (1, 5, 0.1, 1.25)),
        _adaptive("claude-haiku-5-5", 1_000_000, 128_000, (0.1, 0.5, 0.01, 0.125), _LOW_TO_MAX),
        _budget("claude-opus-4-5", 200_000, 64_000, (5, 25, 0.5, 6.25)),
        _budget("claude-opus-4-5-20251101", 200_000, 64_000, (5, 25, 0.5, 6.25)),
        _adaptive("claude-opus-4-6", 1_000_000, 128_000, (5, 25, 0.5, 6.25), _MAX_ONLY),
        _adaptive("claude-opus-4-7", 1_000_000, 128_000, (5, 25, 0.5, 6.25), _XHIGH_AND_MAX),
        _adaptive("claude-opus-4-8", 1_000_000, 128_000, (5, 25, 0.5, 6.25), _XHIGH_AND_MAX),
        _adaptive("claude-opus-5", 1_000_000, 128_000, (5, 25, 0.5, 6.25), _XHIGH_AND_MAX),
        _adaptive("claude-opus-5-5", 1_000_000, 128_000, (4, 20, 0.2, 5), _LOW_TO_MAX_ALWAYS_ON),
        _budget("claude-sonnet-4-5", 200_000, 64_000, (3, 15, 0.3, 3.75)),
        _budget("claude-sonnet-4-5-20250929", 200_000, 64_000, (3, 15, 0.3, 3.75)),
        _adaptive("claude-sonnet-4-6", 1_000_000, 128_000, (3, 15, 0.3, 3.75), _MAX_ONLY),
        _adaptive("claude-sonnet-5", 1_000_000, 128_000, (2, 10, 0.2, 2.5), _XHIGH_AND_MAX),
        _adaptive("claude-sonnet-5-5", 1_000_000, 128_000, (2, 10, 0.1, 2.5), _LOW_TO_MAX_ALWAYS_ON),
    )
}


def apply_catalog(model: ModelConfig) -> bool:
    """Fill `model` (an `anthropic` model no models.json entry describes) from the catalog; False when
    the catalog does not know its id."""
    entry = CATALOG.get(model.id)
    if entry is None:
        return False
    model.context_window = entry.context_window
    model.max_tokens = entry.max_tokens
    model.reasoning = True
    model.input = ["text", "image"]
    model.cost = Prices(
        input=entry.prices[0], output=entry.prices[1], cache_read=entry.prices[2], cache_write=entry.prices[3]
    )
    model.thinking_level_map = dict(entry.levels) if entry.levels is not None else None
    model.compat = CompatOverrides(
        force_adaptive_thinking=True if entry.adaptive else None, supports_strict_tools=True
    )
    model.window_source = CATALOG_WINDOW
    return True
