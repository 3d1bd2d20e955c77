"""The request a model's API gets, whichever API that is: one entry point for previews and providers."""

from __future__ import annotations

from pi_tui.ai.anthropic_errors import strict_limits_exceeded
from pi_tui.ai.anthropic_request import ANTHROPIC_VERSION, build_anthropic_request
from pi_tui.ai.chat_request import ProviderRequest, build_chat_request
from pi_tui.ai.responses_request import build_responses_request
from pi_tui.ai.stream import LlmContext, StreamOptions
from pi_tui.config.key_secrets import REDACTED
from pi_tui.config.model_config import ModelConfig

CREDENTIAL_HEADERS = frozenset({"authorization", "api-key", "x-api-key", "x-goog-api-key"})


def build_request(model: ModelConfig, context: LlmContext, options: StreamOptions) -> ProviderRequest:
    if model.api == "anthropic-messages":
        # As the provider would send it: without strict tools once Claude found them too many.
        strict = not strict_limits_exceeded(options.session_id)
        return build_anthropic_request(model, context, options, strict_preferred=strict)
    if model.api == "openai-responses":
        return build_responses_request(model, context, options)
    return build_chat_request(model, context, options)


def shown_headers(model: ModelConfig, request: ProviderRequest) -> dict[str, str]:
    """Every header pi-tui adds, as it may be shown: credentials (the key the client sends, a key in
    models.json `headers`) replaced by `[redacted]`."""
    headers = {"authorization": f"Bearer {REDACTED}"}
    if model.api == "anthropic-messages":
        headers = {"anthropic-version": ANTHROPIC_VERSION, "x-api-key": REDACTED}
    for name, value in {**model.headers, **request.headers}.items():
        headers[name.lower()] = REDACTED if name.lower() in CREDENTIAL_HEADERS else value
    return headers
