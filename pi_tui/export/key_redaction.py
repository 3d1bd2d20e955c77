"""API keys never reach an export (R14.2), even when one was pasted into a message or a tool printed it.

Sessions hold no keys, but a person may paste one, and a command may print its environment; an export
is made to be shared, so every key pi-tui knows of (models.json `apiKey`s as resolved, `*_API_KEY`
variables, the running session's key) is replaced by `[redacted]` in the finished text.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping

from pi_tui.config.models import ModelRegistry, load_registry

REDACTED = "[redacted]"
MIN_KEY_CHARS = 8
"""Shorter values are placeholders or test stubs; replacing them would mangle ordinary words."""
_KEY_ENV = re.compile(r".*_API_KEY\Z")
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9_]*\Z")


def known_keys(
    env: Mapping[str, str] | None = None, registry: ModelRegistry | None = None, extra: Iterable[str] = ()
) -> list[str]:
    """Every key value to hide, longest first (so a key containing another is replaced whole)."""
    environment = os.environ if env is None else env
    models = registry if registry is not None else load_registry()
    found = {value for name, value in environment.items() if _KEY_ENV.match(name)}
    providers = set(models.key_specs) | set(models.endpoints) | {model.provider for model in models.models}
    for provider in providers:
        key = models.api_key(provider, environment)
        # An `apiKey` naming a variable that is not set resolves to the name itself: not a secret.
        if key and not _ENV_NAME.match(key):
            found.add(key)
    found.update(extra)
    return sorted((key for key in found if len(key.strip()) >= MIN_KEY_CHARS), key=len, reverse=True)


def redact(text: str, keys: Iterable[str]) -> str:
    for key in keys:
        if key in text:
            text = text.replace(key, REDACTED)
    return text
