"""The context window a local server actually serves, read from the server itself.

A model nobody described in models.json would otherwise be assumed to hold 128,000 tokens; local servers
often serve far less (llama.cpp's `-c`, vLLM's `--max-model-len`), and a budget built on the wrong figure
compacts too late and overflows. The size that counts is the one the server allocated, never the size the
model was trained for (llama.cpp reports that as `n_ctx_train`; it is ignored here).

Where each server says it:
- vLLM: `GET /v1/models` → `data[].max_model_len`;
- llama.cpp: `GET /v1/models` → `data[].meta.n_ctx` where present, else `GET /props` →
  `default_generation_settings.n_ctx` (or a top-level `n_ctx`).
"""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

logger = logging.getLogger(__name__)

PROBE_TIMEOUT_S = 3.0
MIN_OUTPUT_TOKENS = 256
MAX_ANSWER_BYTES = 4 * 1024 * 1024
"""A model list is a few kilobytes; a server answering with more is not read further."""


@dataclass(frozen=True)
class ServedWindow:
    tokens: int
    source: str
    """Where the figure came from, as shown to the user (e.g. `llama.cpp /props n_ctx`)."""


def _positive(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _entry_for(models: Any, model_id: str) -> dict[str, Any] | None:
    data = models.get("data") if isinstance(models, dict) else None
    entries = [entry for entry in data if isinstance(entry, dict)] if isinstance(data, list) else []
    named = [entry for entry in entries if entry.get("id") == model_id]
    if named:
        return named[0]
    return entries[0] if len(entries) == 1 else None  # a local server serves one model, whatever it is called


def window_from_models(models: Any, model_id: str) -> ServedWindow | None:
    entry = _entry_for(models, model_id)
    if entry is None:
        return None
    if (tokens := _positive(entry.get("max_model_len"))) is not None:
        return ServedWindow(tokens, "server /v1/models max_model_len")
    meta = entry.get("meta")
    if isinstance(meta, dict) and (tokens := _positive(meta.get("n_ctx"))) is not None:
        return ServedWindow(tokens, "server /v1/models meta.n_ctx")
    return None


def window_from_props(props: Any) -> ServedWindow | None:
    if not isinstance(props, dict):
        return None
    settings = props.get("default_generation_settings")
    if isinstance(settings, dict) and (tokens := _positive(settings.get("n_ctx"))) is not None:
        return ServedWindow(tokens, "server /props n_ctx")
    if (tokens := _positive(props.get("n_ctx"))) is not None:
        return ServedWindow(tokens, "server /props n_ctx")
    return None


def _props_url(base_url: str) -> str:
    """llama.cpp serves `/props` at its root, beside `/v1`."""
    parts = urlsplit(base_url.rstrip("/"))
    path = parts.path[: -len("/v1")] if parts.path.endswith("/v1") else parts.path
    return urlunsplit((parts.scheme, parts.netloc, path + "/props", "", ""))


def _get_json(url: str, api_key: str | None, timeout_s: float) -> Any:
    # Imported here, in the thread that asks, not with the session: urllib.request brings http.client,
    # email and ssl, none of which the first frame needs (docs/startup.md).
    import urllib.request

    request = urllib.request.Request(url, headers={"authorization": f"Bearer {api_key}"} if api_key else {})
    with urllib.request.urlopen(request, timeout=timeout_s) as response:
        return json.loads(response.read(MAX_ANSWER_BYTES))


def _probe(base_url: str, model_id: str, api_key: str | None, timeout_s: float) -> ServedWindow | None:
    try:
        found = window_from_models(_get_json(base_url.rstrip("/") + "/models", api_key, timeout_s), model_id)
    except (OSError, ValueError) as error:
        logger.info("no model list at %s: %s", base_url, error)
        found = None
    if found is not None:
        return found
    try:
        return window_from_props(_get_json(_props_url(base_url), api_key, timeout_s))
    except (OSError, ValueError) as error:
        logger.info("no /props beside %s: %s", base_url, error)
        return None


async def _get_json_shared(client: Any, url: str, api_key: str | None, timeout_s: float) -> Any:
    headers = {"authorization": f"Bearer {api_key}"} if api_key else {}
    response = await client.get(url, headers=headers, timeout=timeout_s)
    if response.status_code != 200:
        raise ValueError(f"HTTP {response.status_code}")
    return json.loads(response.content[:MAX_ANSWER_BYTES])


async def _probe_shared(
    client: Any, base_url: str, model_id: str, api_key: str | None, timeout_s: float
) -> ServedWindow | None:
    """The same two questions over the provider's pooled connection (no second connection to open)."""
    try:
        listed = await _get_json_shared(client, base_url.rstrip("/") + "/models", api_key, timeout_s)
        if (found := window_from_models(listed, model_id)) is not None:
            return found
    except Exception as error:  # any transport's failure means "the server does not say"
        logger.info("no model list at %s: %s", base_url, error)
    try:
        return window_from_props(await _get_json_shared(client, _props_url(base_url), api_key, timeout_s))
    except Exception as error:
        logger.info("no /props beside %s: %s", base_url, error)
        return None


async def probe_served_window(
    base_url: str,
    model_id: str,
    api_key: str | None,
    *,
    timeout_s: float = PROBE_TIMEOUT_S,
    http_client: Any = None,
) -> ServedWindow | None:
    """The served window, or None when the server does not say (a hosted API, an error, no answer).
    With the provider's pooled `http_client` the questions reuse its connection; without one they are
    two small GETs in a thread."""
    if urlsplit(base_url).scheme not in ("http", "https"):
        return None
    if http_client is not None:
        return await _probe_shared(http_client, base_url, model_id, api_key, timeout_s)
    return await asyncio.to_thread(_probe, base_url, model_id, api_key, timeout_s)


def output_cap(max_tokens: int, window: int) -> int:
    """Output tokens that leave room for a prompt: a quarter of the window at most."""
    return max(MIN_OUTPUT_TOKENS, min(max_tokens, window // 4))
