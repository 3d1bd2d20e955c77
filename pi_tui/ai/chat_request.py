"""The whole Chat Completions request for one model: body and headers, in the model's dialect.

Pure, so the inspector and `pi-tui context --request` show exactly what the provider will get. What each
switch changes is in docs/providers.md; the shape follows what pi 1.6 sends (checked against pi's own
requests in tests/fixtures/pi16/requests), because the same session must hit the same provider cache
whichever of the two tools continues it.

Caching: OpenAI caches on its own and `prompt_cache_key` (the session id) keeps a session's requests on
one cache; Anthropic models behind OpenRouter cache nothing unless the request marks where a cacheable
prefix ends (`cache_control`). pi 1.6 marks the system prompt, the last tool and the last message with
text (a trailing tool result included), so the next request reads the whole of this one from cache.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from pi_tui.ai.convert import transform_messages
from pi_tui.ai.messages import AssistantMessage, ThinkingLevel, ToolResultMessage
from pi_tui.ai.openai_messages import WireDialect, WireMessage, to_openai_messages, to_openai_tools
from pi_tui.ai.output_room import output_tokens
from pi_tui.ai.stream import LlmContext, LlmMessage, StreamOptions
from pi_tui.config.compat import Compat, SessionAffinityFormat
from pi_tui.config.identity import APP_CATEGORY, APP_NAME, APP_URL
from pi_tui.config.model_config import Api, ModelConfig

CACHE_RETENTION_ENV = "PI_CACHE_RETENTION"
"""pi's switch: `long` asks for 24-hour caching where offered, `none` sends no cache key."""
CacheRetention: TypeAlias = Literal["none", "short", "long"]


@dataclass
class ProviderRequest:
    """What goes over the wire, credentials excepted (the client adds `authorization`)."""

    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)
    path: str = "/chat/completions"


def cache_retention(options: StreamOptions) -> CacheRetention:
    value = options.cache_retention or os.environ.get(CACHE_RETENTION_ENV, "short")
    return value if value in ("none", "short", "long") else "short"  # type: ignore[return-value]


def effort_word(model: ModelConfig, level: ThinkingLevel) -> str | None:
    """The provider's word for a thinking level: the model's `thinkingLevelMap` first; `xhigh` is `high`
    where nothing says otherwise (OpenAI-style servers know no higher effort)."""
    mapping = model.thinking_level_map or {}
    if level in mapping:
        return mapping[level]
    return "high" if level == "xhigh" else level


def _off_word(model: ModelConfig, default: str | None) -> str | None:
    """What thinking off is sent as: the model's `thinkingLevelMap.off` (an explicit null: nothing)."""
    mapping = model.thinking_level_map or {}
    return mapping.get("off", default)


def _reasoning_params(model: ModelConfig, compat: Compat, level: ThinkingLevel) -> dict[str, Any]:
    """The thinking fields of pi 1.6's `buildParams`, per `thinkingFormat`."""
    if not model.reasoning:
        return {}
    on = level != "off"
    effort = effort_word(model, level) if on else None
    params: dict[str, Any] = {}
    match compat.thinking_format:
        case "deepseek":
            if on:
                params["thinking"] = {"type": "enabled"}
            elif _off_word(model, "") is not None:
                params["thinking"] = {"type": "disabled"}
        case "zai":
            params["thinking"] = {"type": "enabled", "clear_thinking": False} if on else {"type": "disabled"}
        case "qwen":
            params["enable_thinking"] = on
        case "qwen-chat-template":
            return {"chat_template_kwargs": {"enable_thinking": on, "preserve_thinking": True}}
        case "together":
            params["reasoning"] = {"enabled": on}
        case "ant-ling":
            mapped = (model.thinking_level_map or {}).get(level) if on else None
            return {"reasoning": {"effort": mapped}} if mapped is not None else {}
        case "string-thinking":
            word = effort if on else _off_word(model, "none")
            return {"thinking": word} if word is not None else {}
        case "openrouter":
            word = effort if on else _off_word(model, "none")
            return {"reasoning": {"effort": word}} if word is not None else {}
        case _:
            word = effort if on else _off_word(model, None)
            if word is not None and compat.supports_reasoning_effort:
                params["reasoning_effort"] = word
            return params
    if on and effort is not None and compat.supports_reasoning_effort:
        params["reasoning_effort"] = effort
    return params


def _has_tool_history(messages: list[LlmMessage]) -> bool:
    return any(
        isinstance(message, ToolResultMessage)
        or (isinstance(message, AssistantMessage) and message.tool_calls)
        for message in messages
    )


def _marker(retention: CacheRetention) -> dict[str, str]:
    return {"type": "ephemeral", "ttl": "1h"} if retention == "long" else {"type": "ephemeral"}


def _marked_text(content: Any, marker: dict[str, str]) -> Any:
    """Content with a marker on its last text part (a string becomes one text part); None if it has none."""
    if isinstance(content, str):
        return [{"type": "text", "text": content, "cache_control": marker}] if content else None
    if isinstance(content, list):
        for index in range(len(content) - 1, -1, -1):
            part = content[index]
            if isinstance(part, dict) and part.get("type") == "text":
                return [*content[:index], {**part, "cache_control": marker}, *content[index + 1 :]]
    return None


def add_cache_markers(
    messages: list[WireMessage], tools: list[dict[str, Any]], marker: dict[str, str]
) -> None:
    """Anthropic-style markers as pi 1.6 places them: the system prompt, the last tool and the last user,
    assistant or tool message with text. Each ends a prefix the provider writes to its cache."""
    if messages and messages[0]["role"] in ("system", "developer"):
        marked = _marked_text(messages[0]["content"], marker)
        if marked is not None:
            messages[0]["content"] = marked
    if tools:
        tools[-1]["cache_control"] = marker
    for message in reversed(messages[1:]):
        if message["role"] in ("user", "assistant", "tool"):
            marked = _marked_text(message.get("content"), marker)
            if marked is not None:
                message["content"] = marked
                break


def _is_openai(model: ModelConfig) -> bool:
    return "api.openai.com" in model.base_url


def _is_openrouter(model: ModelConfig) -> bool:
    return model.provider == "openrouter" or "openrouter.ai" in model.base_url


def session_headers(session_id: str | None, format: SessionAffinityFormat = "openai") -> dict[str, str]:
    """The session-affinity headers of a Chat Completions request, in the dialect's format."""
    if not session_id:
        return {}
    if format == "openrouter":
        return {"x-session-id": session_id}
    headers = {"session_id": session_id} if format == "openai" else {}
    return {**headers, "x-client-request-id": session_id, "x-session-affinity": session_id}


def attribution_headers(model: ModelConfig) -> dict[str, str]:
    if not _is_openrouter(model):
        return {}
    return {"http-referer": APP_URL, "x-openrouter-title": APP_NAME, "x-openrouter-categories": APP_CATEGORY}


def wire_dialect(model: ModelConfig) -> WireDialect:
    return WireDialect(compat=model.dialect(), reasoning_model=model.reasoning)


def prompt_cache_key(model: ModelConfig, options: StreamOptions, api: Api | None = None) -> str | None:
    """The `prompt_cache_key` a request for `model` over `api` (default: the model's) carries: the session
    id where it keeps a session on one cache (api.openai.com, or 24-hour retention); the Responses API
    sends it whenever caching is on, as pi does. One rule for the request and for the request record,
    which remembers the key because a changed key is a cache miss."""
    retention = cache_retention(options)
    if not options.session_id or retention == "none":
        return None
    compat = model.dialect()
    if (api or model.api) == "openai-responses":
        return None if model.compat.prompt_cache_key_mode == "disabled" else options.session_id
    if compat.prompt_cache_key_mode != "auto":
        return options.session_id if compat.prompt_cache_key_mode == "enabled" else None
    long_retention = retention == "long" and compat.supports_long_cache_retention
    return options.session_id if _is_openai(model) or long_retention else None


def build_chat_request(model: ModelConfig, context: LlmContext, options: StreamOptions) -> ProviderRequest:
    """The Chat Completions request for `context` (messages not yet transformed for the model)."""
    dialect = wire_dialect(model)
    compat = dialect.compat
    messages = transform_messages(context.messages, model)
    retention = cache_retention(options)
    wire_messages = to_openai_messages(context.system_prompt, messages, dialect)
    body: dict[str, Any] = {"model": model.id, "messages": wire_messages, "stream": True}
    cache_key = prompt_cache_key(model, options, "openai-completions")
    if cache_key is not None:
        body["prompt_cache_key"] = cache_key
        if retention == "long" and compat.supports_long_cache_retention:
            body["prompt_cache_retention"] = "24h"
    if compat.supports_usage_in_streaming:
        body["stream_options"] = {"include_usage": True}
    if compat.supports_store:
        body["store"] = False
    body[compat.max_tokens_field] = output_tokens(model, context, options.max_tokens)
    tools: list[dict[str, Any]] = []
    if context.tools:
        tools = to_openai_tools(context.tools, dialect)
        body["tools"] = tools
    elif compat.requires_tools_with_tool_history and _has_tool_history(messages):
        body["tools"] = []  # proxies in front of Anthropic refuse tool history without a tools field
    if options.tool_choice is not None:
        body["tool_choice"] = options.tool_choice
    body.update(_reasoning_params(model, compat, options.reasoning or "off"))
    if _is_openrouter(model) and compat.open_router_routing:
        body["provider"] = compat.open_router_routing
    if "ai-gateway.vercel" in model.base_url and compat.vercel_gateway_routing:
        body["providerOptions"] = {"gateway": compat.vercel_gateway_routing}
    if compat.cache_control_format == "anthropic":
        add_cache_markers(wire_messages, tools, _marker(retention))
    headers = {**attribution_headers(model)}
    if compat.send_session_affinity_headers:
        headers.update(session_headers(options.session_id, compat.session_affinity_format))
    return ProviderRequest(body=body, headers=headers)
