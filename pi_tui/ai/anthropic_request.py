"""The whole Messages API request for one model (`api: "anthropic-messages"`): body and headers, as pi 1.6
sends them (checked against pi's recorded requests in tests/fixtures/pi16/anthropic).

Pure, like `chat_request`, so `/request` and `pi-tui context --request` show exactly what goes out. The
body's keys come in pi's order: `model, messages, max_tokens, stream, system, tools, thinking,
output_config` (the provider adds `thread`, and `diagnostics` when asked for, see
`anthropic_threads`). Caching is Anthropic's marker kind: three `cache_control` markers, on the system
block, the last tool and the last block of the last message, each `{"type": "ephemeral"}`, with a
`"ttl": "1h"` under `PI_CACHE_RETENTION=long`.

`max_tokens` is pi's clamp to the window (`output_room`, as for the other dialects): the room left after
pi's estimate of the context (the last reply's reported usage plus 3.5 characters a token of what follows
it, or of everything) and a safety margin.
Thinking is a budget (`budget_tokens` per level, within `max_tokens`) or, for models whose
`compat.forceAdaptiveThinking` is set, adaptive with `output_config.effort`. Every compat switch is in
docs/providers.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pi_tui.ai.anthropic_messages import (
    is_same_model,
    mark_last_message,
    to_anthropic_messages,
    to_anthropic_tools,
    without_foreign_thinking,
)
from pi_tui.ai.chat_request import ProviderRequest, cache_retention
from pi_tui.ai.convert import transform_messages
from pi_tui.ai.messages import (
    AssistantMessage,
    ThinkingLevel,
)
from pi_tui.ai.output_room import output_tokens
from pi_tui.ai.stream import LlmContext, LlmMessage, StreamOptions
from pi_tui.ai.strict_schema import prefers_strict
from pi_tui.config.model_config import ModelConfig

MESSAGES_PATH = "/v1/messages?beta=true"
"""The SDK's `beta.messages` endpoint, as pi calls it."""
ANTHROPIC_VERSION = "2023-06-01"
BETA_HEADER = "anthropic-beta"
INTERLEAVED_THINKING_BETA = "interleaved-thinking-2025-05-14"
FINE_GRAINED_TOOL_STREAMING_BETA = "fine-grained-tool-streaming-2025-05-14"
MESSAGE_THREADS_BETA = "message-threads-2026-08-12"
CACHE_DIAGNOSIS_BETA = "cache-diagnosis-2026-04-07"
THINKING_DISPLAY = "summarized"
THINKING_BUDGETS: dict[str, int] = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384}
MIN_ANSWER_TOKENS = 1024
"""What a budget leaves for the answer inside `max_tokens`."""
_EFFORTS: dict[str, str] = {"minimal": "low", "low": "low", "medium": "medium", "high": "high"}


@dataclass(frozen=True)
class AnthropicCompat:
    """The `compat` switches of the Messages API, resolved for one model as pi resolves them."""

    supports_eager_tool_input_streaming: bool = True
    supports_long_cache_retention: bool = True
    supports_cache_control_on_tools: bool = True
    allow_empty_signature: bool = False
    force_adaptive_thinking: bool = False
    supports_message_threads: bool = False
    send_cache_miss_diagnostics: bool = False
    supports_strict_tools: bool = False


def anthropic_compat(model: ModelConfig) -> AnthropicCompat:
    set_ = model.compat

    def pick(value: bool | None, default: bool) -> bool:
        return default if value is None else value

    return AnthropicCompat(
        supports_eager_tool_input_streaming=pick(set_.supports_eager_tool_input_streaming, True),
        supports_long_cache_retention=pick(set_.supports_long_cache_retention, True),
        supports_cache_control_on_tools=pick(set_.supports_cache_control_on_tools, True),
        allow_empty_signature=pick(set_.allow_empty_signature, False),
        force_adaptive_thinking=pick(set_.force_adaptive_thinking, False),
        supports_message_threads=pick(set_.supports_message_threads, "api.anthropic.com" in model.base_url),
        send_cache_miss_diagnostics=pick(set_.send_cache_miss_diagnostics, False),
        supports_strict_tools=pick(set_.supports_strict_tools, False),
    )


def cache_marker(model: ModelConfig, options: StreamOptions) -> dict[str, str] | None:
    retention = cache_retention(options)
    if retention == "none":
        return None
    if retention == "long" and anthropic_compat(model).supports_long_cache_retention:
        return {"type": "ephemeral", "ttl": "1h"}
    return {"type": "ephemeral"}


def clamp_max_tokens(model: ModelConfig, context: LlmContext, max_tokens: int) -> int:
    """pi's `clampMaxTokensToContext`, shared with the other dialects (`output_room`)."""
    return output_tokens(model, context, max_tokens)


# --- thinking -------------------------------------------------------------------------------------


def thinking_effort(model: ModelConfig, level: ThinkingLevel) -> str:
    """pi's level map for adaptive thinking (the model's `thinkingLevelMap` first)."""
    mapped = (model.thinking_level_map or {}).get(level)
    if isinstance(mapped, str):
        return mapped
    return _EFFORTS.get(level, "high")


def _thinking_on(model: ModelConfig, options: StreamOptions) -> bool:
    return model.reasoning and (options.reasoning or "off") != "off"


def output_budget(model: ModelConfig, context: LlmContext, options: StreamOptions) -> tuple[int, int | None]:
    """`(max_tokens, budget_tokens)`: the budget only for budget thinking."""
    max_tokens = clamp_max_tokens(model, context, options.max_tokens or model.max_tokens)
    level = options.reasoning or "off"
    if not _thinking_on(model, options) or anthropic_compat(model).force_adaptive_thinking:
        return max_tokens, None
    budget = THINKING_BUDGETS["high" if level == "xhigh" else level]
    max_tokens = min(max_tokens + budget, model.max_tokens)
    if max_tokens <= budget:
        budget = min(budget, max(0, max_tokens - MIN_ANSWER_TOKENS))
    max_tokens = clamp_max_tokens(model, context, max_tokens)
    return max_tokens, min(budget, max(0, max_tokens - MIN_ANSWER_TOKENS)) or MIN_ANSWER_TOKENS


def _thinking_params(model: ModelConfig, options: StreamOptions, budget: int | None) -> dict[str, Any]:
    if not model.reasoning:
        return {}
    if not _thinking_on(model, options):
        mapping = model.thinking_level_map or {}
        explicitly_unsent = "off" in mapping and mapping["off"] is None
        return {} if explicitly_unsent else {"thinking": {"type": "disabled"}}
    if anthropic_compat(model).force_adaptive_thinking:
        effort = thinking_effort(model, options.reasoning or "high")
        return {
            "thinking": {"type": "adaptive", "display": THINKING_DISPLAY},
            "output_config": {"effort": effort},
        }
    return {"thinking": {"type": "enabled", "budget_tokens": budget, "display": THINKING_DISPLAY}}


# --- headers --------------------------------------------------------------------------------------


def beta_features(
    model: ModelConfig, context: LlmContext, options: StreamOptions, *, threads: bool
) -> list[str]:
    """The `anthropic-beta` values; an `anthropic-beta` header in models.json replaces the list."""
    for name, value in model.headers.items():
        if name.lower() == BETA_HEADER:
            return list(dict.fromkeys(part.strip() for part in value.split(",") if part.strip()))
    compat = anthropic_compat(model)
    features: list[str] = []
    if context.tools and not compat.supports_eager_tool_input_streaming:
        features.append(FINE_GRAINED_TOOL_STREAMING_BETA)
    if _thinking_on(model, options) and not compat.force_adaptive_thinking:
        features.append(INTERLEAVED_THINKING_BETA)
    if threads:
        features.append(MESSAGE_THREADS_BETA)
    if compat.send_cache_miss_diagnostics:
        features.append(CACHE_DIAGNOSIS_BETA)
    return features


def previous_reply_id(messages: Sequence[LlmMessage], model: ModelConfig) -> str | None:
    """The id of this model's last reply, which Anthropic's cache diagnostics compare the request with."""
    for message in reversed(messages):
        if isinstance(message, AssistantMessage) and is_same_model(message, model) and message.response_id:
            return message.response_id
    return None


@dataclass
class AnthropicRequest(ProviderRequest):
    unsigned_thinking: int = 0
    """Same-model thinking blocks that had to go without their signature."""
    preferred_strict: bool = False
    """Some tool went strict only because it prefers to (pi's `hasPreferredStrictTools`): the request can
    go again without when the server finds the strict tools too many."""


def threads_wanted(model: ModelConfig, options: StreamOptions) -> bool:
    """pi threads a session's requests where the compat switch allows and caching is on."""
    caching = bool(options.session_id) and cache_retention(options) != "none"
    return caching and anthropic_compat(model).supports_message_threads


def build_anthropic_request(
    model: ModelConfig, context: LlmContext, options: StreamOptions, *, strict_preferred: bool = True
) -> AnthropicRequest:
    """The full request for `context` (messages not yet transformed), before any thread is applied;
    `strict_preferred=False` once the server refused this session's strict tools as too many."""
    compat = anthropic_compat(model)
    marker = cache_marker(model, options)
    messages = transform_messages(without_foreign_thinking(context.messages, model), model)
    converted = to_anthropic_messages(messages, allow_empty_signature=compat.allow_empty_signature)
    if marker is not None:
        mark_last_message(converted.messages, marker)
    max_tokens, budget = output_budget(model, context, options)
    body: dict[str, Any] = {"model": model.id, "messages": converted.messages, "max_tokens": max_tokens}
    body["stream"] = True
    if context.system_prompt:
        system: dict[str, Any] = {"type": "text", "text": context.system_prompt}
        if marker is not None:
            system["cache_control"] = marker
        body["system"] = [system]
    if context.tools:
        tool_marker = marker if compat.supports_cache_control_on_tools else None
        body["tools"] = to_anthropic_tools(
            context.tools,
            eager_input_streaming=compat.supports_eager_tool_input_streaming,
            marker=tool_marker,
            strict_tools=compat.supports_strict_tools,
            strict_preferred=strict_preferred,
        )
    body.update(_thinking_params(model, options, budget))
    if options.tool_choice is not None:
        body["tool_choice"] = {"type": options.tool_choice}
    if compat.send_cache_miss_diagnostics:  # pi does not send it: an opt-in (docs/providers.md)
        body["diagnostics"] = {"previous_message_id": previous_reply_id(context.messages, model)}
    headers: dict[str, str] = {}
    betas = beta_features(model, context, options, threads=threads_wanted(model, options))
    if betas:
        headers[BETA_HEADER] = ",".join(betas)
    preferred_strict = any(
        tool.get("strict") is True and prefers_strict(spec)
        for tool, spec in zip(body.get("tools") or [], context.tools, strict=False)
    )
    return AnthropicRequest(
        body=body,
        headers=headers,
        path=MESSAGES_PATH,
        unsigned_thinking=converted.unsigned_thinking,
        preferred_strict=preferred_strict,
    )
