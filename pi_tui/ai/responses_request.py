"""The whole Responses API request for one model (`api: "openai-responses"`): body and headers, as pi sends.

Pure, like `chat_request`, and checked against pi 1.6's own recorded requests (tests/fixtures/pi16/requests,
`responses-reasoning`). Nothing is stored on the server (`store: false`), so a reasoning model's reasoning
travels with the request: `include` asks for it encrypted, and each reply's reasoning item is replayed
whole (see `responses_input`). The session id is the prompt cache key and goes in the `session-id` and
`x-client-request-id` headers (OpenRouter: `x-session-id`), which keep a session's requests on one cache.
"""

from __future__ import annotations

from typing import Any

from pi_tui.ai.chat_request import ProviderRequest, cache_retention, effort_word
from pi_tui.ai.convert import transform_messages
from pi_tui.ai.messages import ThinkingLevel
from pi_tui.ai.output_room import output_tokens
from pi_tui.ai.responses_input import to_responses_input, to_responses_tools
from pi_tui.ai.stream import LlmContext, StreamOptions
from pi_tui.config.model_config import ModelConfig

RESPONSES_PATH = "/responses"
ENCRYPTED_REASONING = "reasoning.encrypted_content"
REASONING_SUMMARY = "auto"
EFFORT_NONE = "none"
MIN_OUTPUT_TOKENS = 16
"""The Responses API refuses a smaller `max_output_tokens`; pi 1.6 never asks for less."""


def reasoning_params(model: ModelConfig, level: ThinkingLevel) -> dict[str, Any]:
    """`reasoning` (and `include`) for a reasoning model. Thinking off is asked for explicitly (`none`),
    since these models reason by default, unless the model's `thinkingLevelMap` maps `off` to null."""
    if not model.reasoning:
        return {}
    if level == "off":
        mapping = model.thinking_level_map or {}
        word = mapping.get("off", EFFORT_NONE)  # an explicit null: send nothing
        return {} if word is None else {"reasoning": {"effort": word}}
    effort = effort_word(model, level)
    if effort is None:
        return {}
    return {
        "reasoning": {"effort": effort, "summary": REASONING_SUMMARY},
        "include": [ENCRYPTED_REASONING],
    }


def responses_session_headers(model: ModelConfig, session_id: str | None) -> dict[str, str]:
    """pi 1.6's session headers on the Responses API, by the model's `sessionAffinityFormat` (detected:
    `openrouter` on OpenRouter, else `openai`)."""
    if not session_id:
        return {}
    format = model.compat.session_affinity_format
    if format is None:
        openrouter = model.provider == "openrouter" or "openrouter.ai" in model.base_url
        format = "openrouter" if openrouter else "openai"
    if format == "openrouter":
        return {"x-session-id": session_id}
    headers = {"session-id": session_id} if format == "openai" else {}
    return {**headers, "x-client-request-id": session_id}


def build_responses_request(
    model: ModelConfig, context: LlmContext, options: StreamOptions
) -> ProviderRequest:
    """The Responses request for `context` (messages not yet transformed for the model)."""
    messages = transform_messages(context.messages, model)
    retention = cache_retention(options)
    body: dict[str, Any] = {
        "model": model.id,
        "input": to_responses_input(context.system_prompt, messages, model),
        "stream": True,
    }
    caching = bool(options.session_id) and retention != "none"
    if caching and model.compat.prompt_cache_key_mode != "disabled":
        body["prompt_cache_key"] = options.session_id
        if retention == "long" and model.dialect().supports_long_cache_retention:
            body["prompt_cache_retention"] = "24h"
    body["store"] = False
    body["max_output_tokens"] = max(output_tokens(model, context, options.max_tokens), MIN_OUTPUT_TOKENS)
    if context.tools:
        body["tools"] = to_responses_tools(context.tools, strict=model.compat.supports_strict_mode is True)
    if options.tool_choice is not None:
        body["tool_choice"] = options.tool_choice
    body.update(reasoning_params(model, options.reasoning or "off"))
    headers = responses_session_headers(model, options.session_id) if caching else {}
    return ProviderRequest(body=body, headers=headers, path=RESPONSES_PATH)
