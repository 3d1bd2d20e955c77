"""Which kind of prompt cache a model's provider keeps, decided from its dialect and address.

- `marker`: nothing is cached unless the request carries `cache_control` markers (Anthropic's models on
  its Messages API, or through OpenRouter or a proxy: `cacheControlFormat: "anthropic"`).
- `automatic`: any repeated prefix of a request is read from cache without being asked: OpenAI (and
  Azure's), DeepSeek, xAI, Moonshot, Z.ai, Google's Gemini endpoint, OpenRouter's other upstreams, and
  every local server (llama.cpp, vLLM, Ollama, LM Studio keep the previous prompt's KV cache).
- None: not known to cache; a request costs its full input.

Compaction reads this to decide whether summarising inside the cached conversation is cheaper than
sending the history again as one new message (docs/compaction.md).
"""

from __future__ import annotations

import ipaddress
from typing import Literal, TypeAlias
from urllib.parse import urlsplit

from pi_tui.config.model_config import ModelConfig

PromptCacheKind: TypeAlias = Literal["marker", "automatic"]

_AUTOMATIC_PROVIDERS = (
    "openai",
    "azure-openai-responses",
    "deepseek",
    "xai",
    "moonshot",
    "zai",
    "openrouter",
)
_AUTOMATIC_HOSTS = (
    "api.openai.com",
    "openai.azure.com",
    "api.deepseek.com",
    "api.x.ai",
    "api.moonshot.ai",
    "api.moonshot.cn",
    "api.z.ai",
    "open.bigmodel.cn",
    "generativelanguage.googleapis.com",
    "openrouter.ai",
)
_LOCAL_SUFFIXES = (".local", ".localhost", ".internal", ".lan")


def is_local_server(base_url: str) -> bool:
    """A server on this machine or the local network (a loopback or private address, or a local name)."""
    host = (urlsplit(base_url).hostname or "").lower()
    if host in ("localhost", "host.docker.internal") or host.endswith(_LOCAL_SUFFIXES):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_private or address.is_link_local


def prompt_cache_kind(model: ModelConfig) -> PromptCacheKind | None:
    if model.api == "anthropic-messages" or model.dialect().cache_control_format == "anthropic":
        return "marker"
    if is_local_server(model.base_url):
        return "automatic"
    host = (urlsplit(model.base_url).hostname or "").lower()
    if model.provider in _AUTOMATIC_PROVIDERS or any(host.endswith(known) for known in _AUTOMATIC_HOSTS):
        return "automatic"
    return None


def summary_tool_choice(model: ModelConfig) -> str | None:
    """`tool_choice` for a summary asked inside the conversation: "none" where it leaves the cache alone.

    Anthropic drops its cache of the messages when `tool_choice` changes between requests, and local
    servers (llama.cpp's chat templates) render the prompt without the tools under "none", which moves
    every token after the system prompt: on those the instructions alone keep the model from calling a
    tool, and a reply that calls one anyway is not used.
    """
    if prompt_cache_kind(model) == "marker" or is_local_server(model.base_url):
        return None
    return "none"
