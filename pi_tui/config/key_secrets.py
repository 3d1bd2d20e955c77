"""Which values are API keys, where they live, and how they are hidden (README: keys are never written).

A key pi-tui knows of is a models.json `apiKey` as resolved, the value of a credential header in
models.json `headers` (`authorization`, `api-key`, `x-goog-api-key`, any name holding `key`, `token`,
`secret` or `auth`; `Bearer X` counts as `X` too), a `*_API_KEY` variable, or a key this
process was handed (`--api-key`, `--api-key-file`, a session's key): `remember_key` records those for
the life of the process, because a key given on the command line stays readable in `/proc/<pid>/cmdline`
even after the session switched to another one. Every known key is replaced by `[redacted]` wherever
text leaves pi-tui's hands (tool output, exports, provider errors), and the variables that hold a
configured key are left out of the environment shell commands get.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping

from pi_tui.config.models import (
    ANTHROPIC_KEY_ENVS,
    OPENAI_API_KEY_ENV,
    ModelRegistry,
    load_registry,
    provider_key_env,
)

REDACTED = "[redacted]"
MIN_KEY_CHARS = 8
"""Shorter values are placeholders (`none`, `local`) or test stubs; replacing them would mangle words."""
_KEY_ENV = re.compile(r".*_API_KEY\Z")
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9_]*\Z")

_keys_in_use: set[str] = set()


def remember_key(key: str | None) -> None:
    """A key this process was handed or used: hidden from every later command and export."""
    if key:
        _keys_in_use.add(key)


_CREDENTIAL_HEADER = re.compile(r"key|token|secret|auth|cookie|password", re.IGNORECASE)
_AUTH_SCHEME = re.compile(r"(?:bearer|basic|token|key)\s+(\S+)\Z", re.IGNORECASE)


def header_credentials(headers: Mapping[str, str] | None) -> set[str]:
    """The values of the credential headers among `headers` (a `Bearer X` value gives `X` as well)."""
    found: set[str] = set()
    for name, value in (headers or {}).items():
        if not isinstance(value, str) or not _CREDENTIAL_HEADER.search(name):
            continue
        found.add(value.strip())
        if scheme := _AUTH_SCHEME.match(value.strip()):
            found.add(scheme.group(1))
    return {value for value in found if len(value) >= MIN_KEY_CHARS}


def _registry_header_credentials(registry: ModelRegistry) -> set[str]:
    found: set[str] = set()
    for model in registry.models:
        found |= header_credentials(model.headers)
    for _base_url, headers, _api in registry.endpoints.values():
        found |= header_credentials(headers)
    return found


def _providers(registry: ModelRegistry) -> set[str]:
    return set(registry.key_specs) | set(registry.endpoints) | {model.provider for model in registry.models}


def configured_keys(env: Mapping[str, str], registry: ModelRegistry) -> set[str]:
    """The keys requests may be made with: each provider's resolved key, the credential headers of
    models.json, `OPENAI_API_KEY` (zero-config) and the keys this process was handed."""
    found = set(_keys_in_use) | _registry_header_credentials(registry)
    for provider in _providers(registry):
        key = registry.api_key(provider, env)
        # An `apiKey` naming a variable that is not set resolves to the name itself: not a secret.
        if key and not _ENV_NAME.match(key):
            found.add(key)
    for name in (OPENAI_API_KEY_ENV, *ANTHROPIC_KEY_ENVS):
        if env.get(name):
            found.add(env[name])
    return found


def known_keys(
    env: Mapping[str, str] | None = None, registry: ModelRegistry | None = None, extra: Iterable[str] = ()
) -> list[str]:
    """Every key value to hide, longest first (so a key containing another is replaced whole)."""
    environment = os.environ if env is None else env
    models = registry if registry is not None else load_registry()
    found = configured_keys(environment, models)
    found.update(value for name, value in environment.items() if _KEY_ENV.match(name))
    found.update(extra)
    return sorted((key for key in found if len(key.strip()) >= MIN_KEY_CHARS), key=len, reverse=True)


def redact(text: str, keys: Iterable[str]) -> str:
    """`text` with every one of `keys` (longest first, as `known_keys` orders them) replaced."""
    for key in keys:
        if key in text:
            text = text.replace(key, REDACTED)
    return text


def without_key_variables(env: Mapping[str, str], registry: ModelRegistry) -> dict[str, str]:
    """`env` minus the variables holding a configured key: `OPENAI_API_KEY`, the ones `apiKey` names,
    `<PROVIDER>_API_KEY`, and any other variable whose value is a configured key."""
    names = {OPENAI_API_KEY_ENV, *ANTHROPIC_KEY_ENVS}
    names.update(provider_key_env(provider) for provider in _providers(registry))
    names.update(spec for spec in registry.key_specs.values() if _ENV_NAME.match(spec))
    keys = {key for key in configured_keys(env, registry) if len(key.strip()) >= MIN_KEY_CHARS}
    return {name: value for name, value in env.items() if name not in names and value not in keys}


def command_secrets() -> tuple[dict[str, str], list[str]]:
    """For one shell command, read afresh (models.json and the session's key may have changed): the
    environment it gets and the keys to cut out of what it prints."""
    registry = load_registry()
    environment = dict(os.environ)
    return without_key_variables(environment, registry), known_keys(environment, registry)
