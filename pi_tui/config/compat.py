"""Per-model dialect switches (`compat` in models.json) and pi's detection of them.

OpenAI-compatible servers differ in what they accept and in how they cache: a field one requires another
rejects. Each switch may be set in a model's `"compat": {...}`; an unset switch is detected from the
provider name first, then from the base URL (a substring match), exactly as pi detects it, so a
models.json written for pi behaves the same here. docs/providers.md lists the switches and what each
changes on the wire.

Unknown keys are kept (a newer pi may know them) and reported once; a wrong type is a diagnostic with its
place in the file, never a crash.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

ThinkingFormat: TypeAlias = Literal["openai", "deepseek", "zai", "openrouter", "qwen", "qwen-chat-template"]
MaxTokensField: TypeAlias = Literal["max_completion_tokens", "max_tokens"]
CacheControlFormat: TypeAlias = Literal["anthropic"]


class CompatOverrides(BaseModel):
    """The switches a models.json entry sets explicitly (None = detect)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow")

    supports_store: bool | None = None
    supports_developer_role: bool | None = None
    supports_reasoning_effort: bool | None = None
    supports_usage_in_streaming: bool | None = None
    max_tokens_field: MaxTokensField | None = None
    requires_tool_result_name: bool | None = None
    requires_assistant_after_tool_result: bool | None = None
    requires_thinking_as_text: bool | None = None
    requires_reasoning_content_on_assistant_messages: bool | None = None
    thinking_format: ThinkingFormat | None = None
    supports_strict_mode: bool | None = None
    cache_control_format: CacheControlFormat | None = None
    send_session_affinity_headers: bool | None = None
    supports_long_cache_retention: bool | None = None
    open_router_routing: dict[str, Any] | None = None
    vercel_gateway_routing: dict[str, Any] | None = None
    # Anthropic's Messages API (resolved by pi_tui/ai/anthropic_request.py, docs/providers.md).
    supports_message_threads: bool | None = None
    supports_eager_tool_input_streaming: bool | None = None
    supports_cache_control_on_tools: bool | None = None
    allow_empty_signature: bool | None = None
    force_adaptive_thinking: bool | None = None
    send_cache_miss_diagnostics: bool | None = None

    def unknown_keys(self) -> list[str]:
        return sorted((self.model_extra or {}).keys())


@dataclass(frozen=True)
class Compat:
    """Every switch resolved for one model at one base URL."""

    supports_store: bool = True
    supports_developer_role: bool = True
    supports_reasoning_effort: bool = True
    supports_usage_in_streaming: bool = True
    max_tokens_field: MaxTokensField = "max_completion_tokens"
    requires_tool_result_name: bool = False
    requires_assistant_after_tool_result: bool = False
    requires_thinking_as_text: bool = False
    requires_reasoning_content_on_assistant_messages: bool = False
    thinking_format: ThinkingFormat = "openai"
    supports_strict_mode: bool = True
    cache_control_format: CacheControlFormat | None = None
    send_session_affinity_headers: bool = False
    supports_long_cache_retention: bool = True
    open_router_routing: dict[str, Any] = field(default_factory=dict)
    vercel_gateway_routing: dict[str, Any] = field(default_factory=dict)


_NON_STANDARD_PROVIDERS = ("cerebras", "xai", "zai", "opencode")
_NON_STANDARD_PROVIDER_PREFIXES = ("moonshotai", "cloudflare-")
_NON_STANDARD_HOSTS = (
    "cerebras.ai",
    "api.x.ai",
    "chutes.ai",
    "deepseek.com",
    "api.z.ai",
    "api.moonshot.",
    "opencode.ai",
    "api.cloudflare.com",
    "gateway.ai.cloudflare.com",
)


def _is(provider: str, base_url: str, names: tuple[str, ...], hosts: tuple[str, ...]) -> bool:
    return provider in names or any(host in base_url for host in hosts)


def _is_moonshot(provider: str, base_url: str) -> bool:
    return provider.startswith("moonshotai") or "api.moonshot." in base_url


def _is_cloudflare_gateway(provider: str, base_url: str) -> bool:
    return provider == "cloudflare-ai-gateway" or "gateway.ai.cloudflare.com" in base_url


def _is_cloudflare(provider: str, base_url: str) -> bool:
    return provider.startswith("cloudflare-") or "cloudflare.com" in base_url


def detect_compat(provider: str, base_url: str, model_id: str) -> Compat:
    """pi's detection for a model nobody configured: provider name first, then the base URL."""
    non_standard = provider in _NON_STANDARD_PROVIDERS or provider.startswith(_NON_STANDARD_PROVIDER_PREFIXES)
    non_standard = non_standard or any(host in base_url for host in _NON_STANDARD_HOSTS)
    moonshot = _is_moonshot(provider, base_url)
    gateway = _is_cloudflare_gateway(provider, base_url)
    deepseek = _is(provider, base_url, ("deepseek",), ("deepseek.com",))
    zai = _is(provider, base_url, ("zai",), ("api.z.ai",))
    openrouter = _is(provider, base_url, ("openrouter",), ("openrouter.ai",))
    xai = _is(provider, base_url, ("xai",), ("api.x.ai",))
    short_max_tokens = "chutes.ai" in base_url or moonshot or gateway
    anthropic_via_openrouter = provider == "openrouter" and model_id.startswith("anthropic/")
    thinking: ThinkingFormat = "openai"
    if deepseek:
        thinking = "deepseek"
    elif zai:
        thinking = "zai"
    elif openrouter:
        thinking = "openrouter"
    return Compat(
        supports_store=not non_standard,
        supports_developer_role=not non_standard,
        supports_reasoning_effort=not (xai or zai or moonshot or gateway),
        max_tokens_field="max_tokens" if short_max_tokens else "max_completion_tokens",
        requires_reasoning_content_on_assistant_messages=deepseek,
        thinking_format=thinking,
        supports_strict_mode=not (moonshot or gateway),
        cache_control_format="anthropic" if anthropic_via_openrouter else None,
        supports_long_cache_retention=not _is_cloudflare(provider, base_url),
    )


def resolve_compat(overrides: CompatOverrides, provider: str, base_url: str, model_id: str) -> Compat:
    """Explicit switches first, the detected value for every switch left unset."""
    detected = detect_compat(provider, base_url, model_id)
    explicit = {
        name: value
        for name, value in overrides
        if value is not None and name in Compat.__dataclass_fields__  # extras are not switches
    }
    merged: dict[str, Any] = {name: getattr(detected, name) for name in Compat.__dataclass_fields__}
    merged.update(explicit)
    return Compat(**merged)
