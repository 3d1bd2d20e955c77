"""A model nobody described gets the window its server really serves, asked once per session."""

from __future__ import annotations

from pi_tui.ai.http_pool import HttpPool
from pi_tui.ai.served_window import output_cap, probe_served_window
from pi_tui.config.model_config import WINDOW_ASSUMED, ModelConfig


async def learn_served_window(model: ModelConfig, api_key: str | None, pool: HttpPool | None) -> bool:
    """Ask the server when `model`'s window is only assumed, and adopt what it says (the output cap
    shrinks to fit). True once asked, whatever the answer: a server that does not say is not asked again.
    Over the pool when there is one, so the question rides the connection the model calls will use."""
    if model.window_source != WINDOW_ASSUMED:
        return True
    if pool is None:
        served = await probe_served_window(model.base_url, model.id, api_key)
    else:
        async with pool.lease(model.provider, model.base_url) as client:
            served = await probe_served_window(model.base_url, model.id, api_key, http_client=client)
    if served is not None:
        model.context_window = served.tokens
        model.max_tokens = output_cap(model.max_tokens, served.tokens)
        model.window_source = served.source
    return True
