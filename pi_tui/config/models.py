"""The model registry: pi's `models.json`, zero-config from the environment, and `--model` resolution.

`models.json` (pi's format) maps provider names to `{baseUrl, apiKey, api, headers?, models[...]}`; `api` (a
provider's, or a model's own) is `openai-completions` (the default), `openai-responses` or
`anthropic-messages` (the default of a provider named `anthropic`, whose baseUrl defaults to Anthropic's).
The file is only read, never written; a malformed file yields diagnostics (path, line, column) and no models,
never an exception. `apiKey` names an environment variable when one of that name exists, else it is
the key itself. Without a file (or for an id it does not list), `OPENAI_API_KEY` and
`OPENAI_BASE_URL` make any model id usable ("zero-config"), with a 128000-token window and a warning;
`anthropic/<id>` (or a bare `claude-…` id when only Anthropic has a key) goes to Anthropic's Messages
API with `ANTHROPIC_AUTH_TOKEN` (sent as a bearer token, pi's order), `ANTHROPIC_OAUTH_TOKEN` or
`ANTHROPIC_API_KEY`.
Keys are never part of a repr; `mask_key` is the only form that may be shown.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

from pi_tui.config.anthropic_catalog import apply_catalog
from pi_tui.config.bounds import clamp_integers
from pi_tui.config.compat import CompatOverrides
from pi_tui.config.json_locations import locate, value_offsets
from pi_tui.config.model_config import (
    DEFAULT_CONTEXT_WINDOW,
    SUPPORTED_APIS,
    WINDOW_ASSUMED,
    Api,
    InputKind,
    ModelConfig,
    Prices,
    PromptCacheLifetimes,
)
from pi_tui.config.paths import models_path

DEFAULT_API: Api = "openai-completions"
ZERO_CONFIG_PROVIDER = "openai"
OPENAI_API_KEY_ENV = "OPENAI_API_KEY"
OPENAI_BASE_URL_ENV = "OPENAI_BASE_URL"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
ANTHROPIC_PROVIDER = "anthropic"
ANTHROPIC_API: Api = "anthropic-messages"
ANTHROPIC_BASE_URL = "https://api.anthropic.com"
ANTHROPIC_AUTH_TOKEN_ENV = "ANTHROPIC_AUTH_TOKEN"
ANTHROPIC_KEY_ENVS = (ANTHROPIC_AUTH_TOKEN_ENV, "ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_API_KEY")
"""pi's order for the built-in `anthropic` provider: a gateway's bearer token first."""

NO_MODEL_MESSAGE = "no model configured: pass --model or add one to models.json"
MAX_MODEL_TOKENS = 10_000_000
"""The largest `contextWindow` and `maxTokens` taken (the largest windows served today are 10M); a
larger one is clamped to it with a warning, as out-of-range settings are (README)."""


def mask_key(key: str | None) -> str:
    """A key as it may appear on screen: its last four characters at most."""
    if not key:
        return "<none>"
    return f"…{key[-4:]}" if len(key) > 12 else "***"


@dataclass(frozen=True)
class ModelsDiagnostic:
    """A problem found while loading models or resolving `--model`; `line`/`column` are 1-based."""

    severity: Literal["error", "warning"]
    message: str
    path: Path | None = None
    line: int | None = None
    column: int | None = None

    def __str__(self) -> str:
        where = ""
        if self.path is not None:
            where = str(self.path) + (f":{self.line}:{self.column}" if self.line is not None else "") + ": "
        return f"{where}{self.severity}: {self.message}"


class _Entry(BaseModel):
    model_config = ConfigDict(
        defer_build=True, alias_generator=to_camel, populate_by_name=True, extra="ignore"
    )


class ModelEntry(_Entry):
    id: str = Field(min_length=1)
    name: str | None = None
    api: str | None = None
    # Strict: "12", 1e5 or true where a token count belongs is reported, not read as a number.
    context_window: int | None = Field(default=None, gt=0, le=MAX_MODEL_TOKENS, strict=True)
    max_tokens: int | None = Field(default=None, gt=0, le=MAX_MODEL_TOKENS, strict=True)
    reasoning: bool = False
    input: list[InputKind] | None = None
    cost: Prices | None = None
    headers: dict[str, str] | None = None
    compat: CompatOverrides | None = None
    thinking_level_map: dict[str, str | None] | None = None
    prompt_cache: PromptCacheLifetimes | None = None


class ProviderEntry(_Entry):
    base_url: str | None = None
    api_key: str | None = Field(default=None, repr=False)
    api: str | None = None
    headers: dict[str, str] | None = None
    compat: CompatOverrides | None = None
    """Switches for every model of the provider; a model's own `compat` wins key by key."""
    models: list[ModelEntry] = Field(default_factory=list)


class ModelsFile(_Entry):
    providers: dict[str, ProviderEntry] = Field(default_factory=dict)


@dataclass
class ModelRegistry:
    """The models a user configured, with each provider's configured `apiKey` text (not yet resolved)."""

    models: list[ModelConfig] = field(default_factory=list)
    diagnostics: list[ModelsDiagnostic] = field(default_factory=list)
    key_specs: dict[str, str] = field(default_factory=dict, repr=False)
    endpoints: dict[str, tuple[str, dict[str, str], Api]] = field(default_factory=dict)
    """Provider name → (baseUrl, headers, api), for `provider/<id the file does not list>`."""

    def find(self, ref: str) -> ModelConfig | None:
        """`provider/id` (a provider named in the file) or a bare id (first match in file order)."""
        provider, _, rest = ref.partition("/")
        if rest:
            for model in self.models:
                if model.provider == provider and model.id == rest:
                    return model
        return next((model for model in self.models if model.id == ref), None)

    def api_key(self, provider: str, env: Mapping[str, str]) -> str | None:
        """The provider's key: its `apiKey` (an env var name or the key), else `<PROVIDER>_API_KEY`."""
        spec = self.key_specs.get(provider)
        if spec:
            return env.get(spec, spec)
        if provider == ANTHROPIC_PROVIDER:
            return anthropic_env_key(env)
        return env.get(provider_key_env(provider))


def anthropic_env_key(env: Mapping[str, str]) -> str | None:
    return next((env[name] for name in ANTHROPIC_KEY_ENVS if env.get(name)), None)


def provider_key_env(provider: str) -> str:
    """`openrouter` → `OPENROUTER_API_KEY` (the variable pi also reads for a provider without apiKey)."""
    return re.sub(r"[^A-Z0-9]", "_", provider.upper()) + "_API_KEY"


def _error_at(
    path: Path,
    text: str,
    loc: tuple[str | int, ...],
    message: str,
    severity: Literal["error", "warning"] = "error",
) -> ModelsDiagnostic:
    try:
        line, column = locate(text, value_offsets(text), loc)
    except (ValueError, IndexError, RecursionError):
        line, column = 1, 1
    dotted = ".".join(str(part) for part in loc) or "root"
    return ModelsDiagnostic(severity, f"{dotted}: {message}", path, line, column)


def parse_models_file(path: Path) -> tuple[ModelsFile | None, list[ModelsDiagnostic]]:
    """Read and validate `models.json`; a missing file is no models and no diagnostics."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, []
    except (OSError, UnicodeDecodeError) as error:
        return None, [ModelsDiagnostic("error", f"cannot read models file: {error}", path)]
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as error:
        message = f"invalid JSON: {error.msg}"
        return None, [ModelsDiagnostic("error", message, path, error.lineno, error.colno)]
    except (ValueError, RecursionError) as error:  # an integer of 4300+ digits, nesting too deep
        return None, [ModelsDiagnostic("error", f"invalid JSON: {error}", path)]
    effective, clamped = clamp_integers(raw, ModelsFile)
    try:
        parsed = ModelsFile.model_validate(effective)
    except ValidationError as error:
        return None, [_error_at(path, text, tuple(issue["loc"]), issue["msg"]) for issue in error.errors()]
    warnings = [_error_at(path, text, change.path, change.message, "warning") for change in clamped]
    return parsed, sorted(warnings, key=lambda warning: (warning.line or 0, warning.column or 0))


_DEFAULT_BASE_URLS = {ZERO_CONFIG_PROVIDER: DEFAULT_BASE_URL, ANTHROPIC_PROVIDER: ANTHROPIC_BASE_URL}


def _supported(api: str | None) -> Api | None:
    return next((known for known in SUPPORTED_APIS if known == api), None)


def _model_config(
    provider: str, entry: ProviderEntry, model: ModelEntry, base_url: str, api: Api
) -> ModelConfig:
    config = ModelConfig(id=model.id, name=model.name or model.id, provider=provider, base_url=base_url)
    config.api = api
    if model.context_window is not None:
        config.context_window = model.context_window
    if model.max_tokens is not None:
        config.max_tokens = model.max_tokens
    config.reasoning = model.reasoning
    if model.input is not None:
        config.input = list(model.input)
    if model.cost is not None:
        config.cost = model.cost
    config.headers = {**(entry.headers or {}), **(model.headers or {})}
    config.compat = _merged_compat(entry.compat, model.compat)
    config.thinking_level_map = model.thinking_level_map
    config.prompt_cache = model.prompt_cache
    return config


def _merged_compat(provider: CompatOverrides | None, model: CompatOverrides | None) -> CompatOverrides:
    merged: dict[str, object] = {}
    for layer in (provider, model):
        if layer is not None:
            merged.update({name: value for name, value in layer if value is not None})
    return CompatOverrides.model_validate(merged)


def _unknown_compat_keys(path: Path, where: str, compat: CompatOverrides | None) -> list[ModelsDiagnostic]:
    if compat is None or not (unknown := compat.unknown_keys()):
        return []
    names = ", ".join(unknown)
    message = f"{where}: unknown compat key(s) {names}: kept, but pi-tui does not act on them"
    return [ModelsDiagnostic("warning", message, path)]


def build_registry(parsed: ModelsFile, path: Path) -> ModelRegistry:
    registry = ModelRegistry()
    for provider, entry in parsed.providers.items():
        default_api = ANTHROPIC_API if provider == ANTHROPIC_PROVIDER else DEFAULT_API
        provider_api = _supported(entry.api or default_api)
        if provider_api is None:
            supported = ", ".join(SUPPORTED_APIS)
            message = f'provider "{provider}": api "{entry.api}" is not supported (only {supported})'
            registry.diagnostics.append(ModelsDiagnostic("warning", message, path))
            continue
        base_url = entry.base_url or _DEFAULT_BASE_URLS.get(provider)
        if base_url is None:
            message = f'provider "{provider}": baseUrl is required; skipped'
            registry.diagnostics.append(ModelsDiagnostic("error", message, path))
            continue
        if entry.api_key and entry.api_key.startswith("!"):
            message = f'provider "{provider}": command apiKeys ("!...") are not supported; no key used'
            registry.diagnostics.append(ModelsDiagnostic("warning", message, path))
        elif entry.api_key:
            registry.key_specs[provider] = entry.api_key
        registry.endpoints[provider] = (base_url, dict(entry.headers or {}), provider_api)
        registry.diagnostics += _unknown_compat_keys(path, f'provider "{provider}"', entry.compat)
        for model in entry.models:
            registry.diagnostics += _unknown_compat_keys(path, f'model "{provider}/{model.id}"', model.compat)
            model_api = _supported(model.api or provider_api)
            if model_api is None:
                message = f'model "{provider}/{model.id}": api "{model.api}" is not supported; skipped'
                registry.diagnostics.append(ModelsDiagnostic("warning", message, path))
            else:
                registry.models.append(_model_config(provider, entry, model, base_url, model_api))
    return registry


def load_registry(path: Path | None = None) -> ModelRegistry:
    """The registry from `models.json` (default: `paths.models_path()`); never raises."""
    target = path or models_path()
    parsed, diagnostics = parse_models_file(target)
    registry = build_registry(parsed, target) if parsed is not None else ModelRegistry()
    registry.diagnostics[:0] = diagnostics
    return registry


def _anthropic_zero_config(ref: str, env: Mapping[str, str]) -> ModelConfig | None:
    """`anthropic/<id>`, or a bare `claude-…` id when Anthropic has a key and OpenAI none: Anthropic's
    Messages API at its own address."""
    provider, _, model_id = ref.partition("/")
    if not model_id:
        wanted = ref.startswith("claude") and anthropic_env_key(env) and not env.get(OPENAI_API_KEY_ENV)
        if not wanted:
            return None
        model_id = ref
    elif provider != ANTHROPIC_PROVIDER:
        return None
    return ModelConfig(
        id=model_id,
        name=model_id,
        provider=ANTHROPIC_PROVIDER,
        api=ANTHROPIC_API,
        base_url=ANTHROPIC_BASE_URL,
        context_window=DEFAULT_CONTEXT_WINDOW,
        window_source=WINDOW_ASSUMED,
    )


def _unknown_window(ref: str) -> str:
    return f'unknown model "{ref}": context window assumed {DEFAULT_CONTEXT_WINDOW} tokens'


def _provider_endpoint(
    registry: ModelRegistry, ref: str
) -> tuple[str, str, tuple[str, dict[str, str], Api]] | None:
    provider, _, model_id = ref.partition("/")
    endpoint = registry.endpoints.get(provider)
    return (provider, model_id, endpoint) if model_id and endpoint is not None else None


@dataclass
class ModelResolution:
    """The outcome of `--model`: a model (None when none could be chosen), its key, and what went wrong."""

    model: ModelConfig | None
    api_key: str | None = field(default=None, repr=False)
    source: Literal["models.json", "zero-config", "none"] = "none"
    diagnostics: list[ModelsDiagnostic] = field(default_factory=list)

    def __repr__(self) -> str:
        ref = self.model.ref if self.model else None
        return f"ModelResolution(model={ref!r}, api_key={mask_key(self.api_key)}, source={self.source!r})"


def resolve_model(
    ref: str | None,
    base_url: str | None = None,
    api_key: str | None = None,
    *,
    registry: ModelRegistry | None = None,
    env: Mapping[str, str] | None = None,
) -> ModelResolution:
    """Resolve `--model` / `--base-url` / `--api-key` against models.json, then the environment.

    A ref is `provider/id` or a bare id; without one the first configured model is used. An id the
    registry does not list is served zero-config (provider `openai`, `OPENAI_BASE_URL` or OpenAI's
    endpoint, `OPENAI_API_KEY`) with a 128000-token window and a warning. `base_url` and `api_key`
    override whatever was resolved.
    """
    environment = os.environ if env is None else env
    registry = registry if registry is not None else load_registry()
    diagnostics = list(registry.diagnostics)
    found = registry.find(ref) if ref else (registry.models[0] if registry.models else None)
    if found is not None:
        model = found.model_copy(deep=True)
        key = api_key or registry.api_key(model.provider, environment)
        source: Literal["models.json", "zero-config"] = "models.json"
    elif ref and (endpoint := _provider_endpoint(registry, ref)) is not None:
        provider, model_id, (endpoint_url, headers, endpoint_api) = endpoint
        model = ModelConfig(id=model_id, name=model_id, provider=provider, base_url=endpoint_url)
        model.headers = headers
        model.window_source = WINDOW_ASSUMED
        model.api = endpoint_api
        key = api_key or registry.api_key(provider, environment)
        source = "models.json"
        # The built-in provider's models keep pi's catalog facts when models.json only moves its endpoint.
        known = provider == ANTHROPIC_PROVIDER and endpoint_api == ANTHROPIC_API and apply_catalog(model)
        if not known:
            diagnostics.append(ModelsDiagnostic("warning", _unknown_window(ref)))
    elif ref and (anthropic := _anthropic_zero_config(ref, environment)) is not None:
        model = anthropic
        key = api_key or anthropic_env_key(environment)
        source = "zero-config"
        if not apply_catalog(model):
            diagnostics.append(ModelsDiagnostic("warning", _unknown_window(ref)))
    elif ref:
        model = ModelConfig(
            id=ref,
            name=ref,
            provider=ZERO_CONFIG_PROVIDER,
            base_url=environment.get(OPENAI_BASE_URL_ENV) or DEFAULT_BASE_URL,
            context_window=DEFAULT_CONTEXT_WINDOW,
            window_source=WINDOW_ASSUMED,
        )
        key = api_key or environment.get(OPENAI_API_KEY_ENV)
        source = "zero-config"
        diagnostics.append(ModelsDiagnostic("warning", _unknown_window(ref)))
    else:
        diagnostics.append(ModelsDiagnostic("error", NO_MODEL_MESSAGE))
        return ModelResolution(None, None, "none", diagnostics)
    if base_url:
        model.base_url = base_url
    return ModelResolution(model, key or None, source, diagnostics)
