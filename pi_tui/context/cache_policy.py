"""What pi 1.6's cache settings say for a session, in one line for `/session` and `pi-tui context`.

pi 1.6 keeps a provider's prompt cache warm while a session is idle (`cacheWarming`), prints notices for
large misses (`showCacheMissNotices`) and learns how long a model's cache lives from models.json
(`promptCache: {short, long}`, seconds). pi-tui reads all three and shows them here; it sends no refresh
yet, so the line says so rather than promise a saving it does not make.
"""

from __future__ import annotations

from typing import Any

from pi_tui.config.model_config import ModelConfig
from pi_tui.config.settings import Settings

WARMING_NOT_SENT = "pi-tui sends no refresh yet"


def _lifetime(seconds: int) -> str:
    if seconds % 3600 == 0:
        return f"{seconds // 3600} h"
    if seconds % 60 == 0:
        return f"{seconds // 60} min"
    return f"{seconds} s"


def cache_lifetimes(model: ModelConfig | None) -> str:
    """The model's declared cache lifetimes, or that models.json declares none."""
    lifetimes = model.prompt_cache if model is not None else None
    if lifetimes is None or (lifetimes.short is None and lifetimes.long is None):
        return "cache lifetime not declared (models.json promptCache)"
    parts = []
    if lifetimes.short is not None:
        parts.append(f"short {_lifetime(lifetimes.short)}")
    if lifetimes.long is not None:
        parts.append(f"long {_lifetime(lifetimes.long)}")
    return "cache lives " + ", ".join(parts)


def cache_settings_line(settings: Settings, model: ModelConfig | None) -> str:
    """`cacheWarming`, `showCacheMissNotices` and the model's `promptCache`, as a person reads them."""
    warming = f"warming {settings.cache_warming}"
    if settings.cache_warming != "off":
        warming += f" ({WARMING_NOT_SENT})"
    notices = "miss notices on" if settings.show_cache_miss_notices else "miss notices off"
    return f"{warming} · {notices} · {cache_lifetimes(model)}"


def cache_settings_json(settings: Settings, model: ModelConfig | None) -> dict[str, Any]:
    """The same facts for `--json`, with pi 1.6's key names."""
    lifetimes = model.prompt_cache if model is not None else None
    return {
        "cacheWarming": settings.cache_warming,
        "warmingSent": False,
        "showCacheMissNotices": settings.show_cache_miss_notices,
        "promptCache": lifetimes.model_dump(by_alias=True, exclude_none=True) if lifetimes else None,
    }
