"""The provider for a model: its `api` picks the wire (Chat Completions, the Responses API or Anthropic's
Messages API).

`stream_by_api` is the `StreamFunction` the session uses by default. It decides per request, so a
fallback from a model of one API to a model of the other switches wire with it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from pi_tui.ai.anthropic_provider import stream_anthropic
from pi_tui.ai.openai_provider import stream_openai
from pi_tui.ai.responses_provider import stream_responses
from pi_tui.ai.stream import LlmContext, StreamEvent, StreamFunction, StreamOptions
from pi_tui.config.model_config import ModelConfig

PROVIDERS: dict[str, StreamFunction] = {
    "openai-completions": stream_openai,
    "openai-responses": stream_responses,
    "anthropic-messages": stream_anthropic,
}


def stream_by_api(
    model: ModelConfig, context: LlmContext, options: StreamOptions
) -> AsyncIterator[StreamEvent]:
    """Stream one reply through the provider of `model.api`."""
    return PROVIDERS[model.api](model, context, options)
