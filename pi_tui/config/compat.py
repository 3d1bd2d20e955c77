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

ThinkingFormat: TypeAlias = Literal[
    "openai",
    "deepseek",
    "zai",
    "openrouter",
    "qwen",
    "qwen-chat-template",
    "together",
    "ant-ling",
    "string-thinking",
]
MaxTokensField: TypeAlias = Literal["max_completion_tokens", "max_tokens"]
CacheControlFormat: TypeAlias = Literal["anthropic"]
SessionAffinityFormat: TypeAlias = Literal["openai", "openai-nosession", "openrouter"]
"""Which headers carry the session id: `openai` session_id (Responses: session-id), x-client-request-id and
x-session-affinity; `openai-nosession` the last two; `openrouter` x-session-id alone."""
PromptCacheKeyMode: TypeAlias = Literal["auto", "enabled", "disabled"]


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
    requires_non_null_assistant_content: bool | None = None
    requires_tools_with_tool_history: bool | None = None
    requires_thinking_as_text: bool | None = None
    requires_reasoning_content_on_assistant_messages: bool | None = None
    thinking_format: ThinkingFormat | None = None
    supports_strict_mode: bool | None = None
    cache_control_format: CacheControlFormat | None = None
    send_session_affinity_headers: bool | None = None
    session_affinity_format: SessionAffinityFormat | None = None
    prompt_cache_key_mode: PromptCacheKeyMode | None = None
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
    supports_strict_tools: bool | None = None

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
    requires_non_null_assistant_content: bool = False
    requires_tools_with_tool_history: bool = False
    requires_thinking_as_text: bool = False
    requires_reasoning_content_on_assistant_messages: bool = False
    thinking_format: ThinkingFormat = "openai"
    supports_strict_mode: bool = False
    cache_control_format: CacheControlFormat | None = None
    send_session_affinity_headers: bool = False
    session_affinity_format: SessionAffinityFormat = "openai"
    prompt_cache_key_mode: PromptCacheKeyMode = "auto"
    supports_long_cache_retention: bool = True
    open_router_routing: dict[str, Any] = field(default_factory=dict)
    vercel_gateway_routing: dict[str, Any] = field(default_factory=dict)


def _has(base_url: str, *hosts: str) -> bool:
    return any(host in base_url for host in hosts)


def detect_compat(provider: str, base_url: str, model_id: str) -> Compat:
    """pi 1.6's detection for a model nobody configured (`detectCompat` of its openai-completions
    provider): provider name first, then the base URL."""
    zai = provider in ("zai", "zai-coding-cn") or _has(base_url, "api.z.ai", "open.bigmodel.cn")
    together = provider == "together" or _has(base_url, "api.together.ai", "api.together.xyz")
    moonshot = provider in ("moonshotai", "moonshotai-cn") or _has(base_url, "api.moonshot.")
    openrouter = provider == "openrouter" or _has(base_url, "openrouter.ai")
    workers_ai = provider == "cloudflare-workers-ai" or _has(base_url, "api.cloudflare.com")
    gateway = provider == "cloudflare-ai-gateway" or _has(base_url, "gateway.ai.cloudflare.com")
    nvidia = provider == "nvidia" or _has(base_url, "integrate.api.nvidia.com")
    ant_ling = provider == "ant-ling" or _has(base_url, "api.ant-ling.com")
    cerebras = provider == "cerebras" or _has(base_url, "cerebras.ai")
    deepseek = provider == "deepseek" or _has(base_url.lower(), "deepseek.com")
    xai = provider == "xai" or _has(base_url, "api.x.ai")
    chutes = _has(base_url, "chutes.ai")
    opencode = provider == "opencode" or _has(base_url, "opencode.ai")
    non_standard = (
        nvidia or cerebras or xai or together or chutes or deepseek or zai or moonshot or opencode
    ) or (workers_ai or gateway or ant_ling)
    short_max_tokens = chutes or deepseek or moonshot or gateway or together or nvidia or ant_ling or zai
    thinking: ThinkingFormat = "openai"
    if deepseek:
        thinking = "deepseek"
    elif zai:
        thinking = "zai"
    elif together:
        thinking = "together"
    elif ant_ling:
        thinking = "ant-ling"
    elif openrouter:
        thinking = "openrouter"
    return Compat(
        supports_store=not non_standard,
        supports_developer_role=provider == "openai" or _has(base_url, "api.openai.com"),
        supports_reasoning_effort=not (xai or zai or moonshot or together or gateway or nvidia or ant_ling),
        max_tokens_field="max_tokens" if short_max_tokens else "max_completion_tokens",
        requires_reasoning_content_on_assistant_messages=deepseek,
        thinking_format=thinking,
        cache_control_format="anthropic"
        if provider == "openrouter" and model_id.startswith("anthropic/")
        else None,
        send_session_affinity_headers=openrouter,
        session_affinity_format="openrouter" if openrouter else "openai",
        supports_long_cache_retention=not (together or workers_ai or gateway or nvidia or ant_ling),
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
