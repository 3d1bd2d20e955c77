"""The compaction budgets in force for one model: pi 1.6's `compaction.modelOverrides`, then the ordinary
settings, then defaults that scale with the window.

pi's defaults (keep the newest 20,000 tokens, reserve 16,384) assume a large window. On a 12,000-token
window the kept tail is bigger than the threshold, so nothing is ever older than it and automatic
compaction never happens, while the footer says `(auto)`. A budget nobody set is therefore at most a
quarter of the window each (unchanged from 65,536 / 80,000 tokens up); a value a settings file or a model
override names is used as written (the reserve still at most half the window, `bounds.reserve_within_window`).
Every figure of compaction (the threshold check, the cut point, the summary budget, the Context pane, the
restore dialog, the headless commands) reads these resolved settings, so they agree.
"""

from __future__ import annotations

from pi_tui.config.model_config import ModelConfig
from pi_tui.config.settings import CompactionSettings

WINDOW_SHARE = 4
"""An unset budget takes at most 1/4 of the window: the threshold at 3/4, the kept tail a third of it."""
BUDGET_KEYS = ("reserve_tokens", "keep_recent_tokens")


def resolved_compaction(settings: CompactionSettings, model: ModelConfig | None) -> CompactionSettings:
    """`settings` with the reserve and the kept recent tokens `model` gets (see the module docstring).
    `model_fields_set` names the values someone set (an override counts), as for the ordinary settings."""
    override = settings.model_overrides.get(model.ref) if model is not None else None
    window = model.context_window if model is not None else 0
    update: dict[str, int] = {}
    chosen: set[str] = set()
    for key in BUDGET_KEYS:
        value = getattr(override, key) if override is not None else None
        if value is not None:
            update[key] = value
            chosen.add(key)
        elif key in settings.model_fields_set:
            continue
        elif window > 0:
            update[key] = min(getattr(settings, key), window // WINDOW_SHARE)
    if not update:
        return settings
    resolved = settings.model_copy(update=update)
    resolved.__pydantic_fields_set__ = set(settings.model_fields_set) | chosen
    return resolved


def budget_source(settings: CompactionSettings, model: ModelConfig | None, key: str) -> str:
    """Where the value of `key` (`reserve_tokens` or `keep_recent_tokens`) in force comes from, as a
    settings path a user can change."""
    camel = "reserveTokens" if key == "reserve_tokens" else "keepRecentTokens"
    override = settings.model_overrides.get(model.ref) if model is not None else None
    if override is not None and getattr(override, key) is not None and model is not None:
        return f'compaction.modelOverrides["{model.ref}"].{camel}'
    if key in settings.model_fields_set:
        return f"compaction.{camel}"
    return f"compaction.{camel} (unset: a quarter of the window at most)"
