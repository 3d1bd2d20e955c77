"""How much of each Chat Completions request a real provider would serve from its prompt cache.

Pure bookkeeping (no I/O): feed request bodies in the order they were sent to `PromptCache.serve` and
each `CacheResult` says how many prompt tokens were read from the cache and how many were written.

A request is cut into *blocks*, in the order Anthropic renders a prompt: the tool definitions (one block
each), then the system prompt's content parts (`system` and `developer` messages, wherever they stand,
since Anthropic keeps the system prompt apart from the turns), then each other message in order: a
user or assistant message's content parts (string content counts as one text part, so `"hi"` and
`[{"type": "text", "text": "hi"}]` are the same block, as they are to Anthropic: providers switch a
message between the two forms when they add or drop a cache marker), an assistant message's
`tool_calls` one block each, a tool message one block. Two blocks are the same when their canonical
JSON (sorted keys, no `cache_control`) and their role are, and both open a message or both do not.
Other message fields (`reasoning_content`, `reasoning_details`, `name`) and request parameters other
than `model` are not part of the prompt here; each model has its own cache. A Messages API body
(Anthropic's own) is read the same way: its top-level `system` blocks are the system prompt, and the
`tool_result`, `thinking` and `tool_use` blocks are content parts of their messages.

Kinds:

- `"marker"`: Anthropic's cache as used through OpenRouter. A block carrying `cache_control` of type
  `ephemeral` (a tool definition, a content part, a tool message or one of its parts) is a marker; the
  prefix ending at each marker is written. A request reads the longest written prefix that is a prefix
  of it and ends at most `lookback` blocks before one of its markers, since Anthropic looks for an
  earlier entry only that far back from each breakpoint. Writes are the tokens of the longest marked
  prefix beyond what was read, so a token is written once. Anthropic's limit of 4 markers per request is
  not enforced (`CacheResult.markers` shows the count).
- `"automatic"`: OpenAI's (and DeepSeek's, and local servers') cache: every request is remembered
  whole, and a request reads the longest prefix it shares with any earlier one when that is at least
  `min_tokens`, rounded down to `min_tokens` plus a multiple of `round_to` as OpenAI reports it. Sharing
  is measured in whole blocks, so a prefix that ends inside a block is counted only up to that block's
  start. Nothing is reported as written.

Tokens are counted with `pi_tui.ai.tokens.count` (tiktoken's cl100k_base, offline: ~10 MB/s, and each
distinct block is counted once per cache) on each block's canonical JSON text, so the numbers are
deterministic and close to, not equal to, a provider's own count. Pass `count_tokens` to use another
counter (tests use `len` to get round numbers).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

CacheKind = Literal["marker", "automatic"]

OPENAI_MIN_TOKENS = 1024
"""OpenAI caches prompts of 1,024 tokens or more; Anthropic's Sonnet and Opus 4.x (before 4.5) also
cache nothing shorter than 1,024 tokens, so the same default serves both kinds."""
OPENAI_INCREMENT = 128
ANTHROPIC_LOOKBACK = 20

OPENROUTER_CACHED_INCLUDES_WRITES = True
"""Whether OpenRouter's `prompt_tokens_details.cached_tokens` counts the tokens written as well as
those read. The brief this emulator was written to says it does (`cached_tokens` = reads + writes, with
`cache_write_tokens` the writes alone), so a client must subtract the writes to get the reads. Some
public reports of live OpenRouter responses describe `cached_tokens` as the reads alone; flip this if a
recorded response shows that."""


@dataclass(frozen=True)
class Block:
    role: str
    """`tool` for a tool definition, `system`, `user`, `assistant`, `tool_result`, or another role."""
    text: str
    """Canonical JSON of the block without its `cache_control`."""
    opens_message: bool
    marker: bool
    tokens: int


@dataclass(frozen=True)
class CacheResult:
    kind: CacheKind
    prompt_tokens: int
    cached_tokens: int
    """Tokens read from the cache."""
    cache_write_tokens: int
    reused_share_of_previous: float | None
    """`cached_tokens` over the previous request's `prompt_tokens`, at most 1.0: how much of what was
    sent last time did not have to be processed again. None for the first request."""
    blocks: int
    markers: int

    @property
    def uncached_tokens(self) -> int:
        return self.prompt_tokens - self.cached_tokens - self.cache_write_tokens

    def usage(self, completion_tokens: int = 0, *, openrouter_style: bool = True) -> dict[str, Any]:
        """A Chat Completions `usage` object: OpenRouter's form (reads and writes) or OpenAI's (reads)."""
        if openrouter_style:
            # See OPENROUTER_CACHED_INCLUDES_WRITES: in OpenRouter's report the writes are inside
            # `cached_tokens` as well as in `cache_write_tokens`.
            cached = self.cached_tokens
            if OPENROUTER_CACHED_INCLUDES_WRITES:
                cached += self.cache_write_tokens
            details = {"cached_tokens": cached, "cache_write_tokens": self.cache_write_tokens}
        else:
            details = {"cached_tokens": self.cached_tokens}
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": self.prompt_tokens + completion_tokens,
            "prompt_tokens_details": details,
        }


def default_count_tokens(text: str) -> int:
    # Imported on first use: loading tiktoken's table costs ~0.3 s, which tests that inject a
    # counter, and modules that only import this one, should not pay.
    from pi_tui.ai.tokens import count

    return count(text)


class PromptCache:
    """One provider's prompt cache for one client: every request served so far shapes the next result."""

    def __init__(
        self,
        kind: CacheKind,
        *,
        min_tokens: int = OPENAI_MIN_TOKENS,
        lookback: int = ANTHROPIC_LOOKBACK,
        round_to: int | None = OPENAI_INCREMENT,
        openrouter_style: bool | None = None,
        count_tokens: Callable[[str], int] | None = None,
    ) -> None:
        """`round_to` applies to the automatic kind only (None: report the shared prefix as is);
        `lookback` to the marker kind only. `openrouter_style` is how the loopback server renders this
        cache's usage (default: OpenRouter's form for markers, OpenAI's for automatic)."""
        if kind not in ("marker", "automatic"):
            raise ValueError(f"unknown cache kind {kind!r}")
        self.kind: CacheKind = kind
        self.min_tokens = min_tokens
        self.lookback = lookback
        self.round_to = round_to
        self.openrouter_style = kind == "marker" if openrouter_style is None else openrouter_style
        self._count = count_tokens or default_count_tokens
        self._token_counts: dict[str, int] = {}
        # Prefixes are known by a hash chained over their blocks, so a prefix is one set lookup.
        self._stored: set[bytes] = set()
        self._previous_prompt: int | None = None

    def reset(self) -> None:
        """Forget every cached prefix, as after the provider's cache expired."""
        self._stored.clear()

    def blocks(self, body: dict[str, Any]) -> list[Block]:
        return list(_blocks(body, self._tokens))

    def serve(self, body: dict[str, Any]) -> CacheResult:
        """Account for one request: what it reads, then what it leaves in the cache."""
        blocks = self.blocks(body)
        ends = [0]
        for block in blocks:
            ends.append(ends[-1] + block.tokens)
        chain = _hash_chain(str(body.get("model", "")), blocks)
        if self.kind == "marker":
            cached, written = self._serve_marked(blocks, ends, chain)
        else:
            cached, written = self._serve_automatic(ends, chain), 0
        prompt = ends[-1]
        share = None
        if self._previous_prompt is not None:
            share = min(1.0, cached / self._previous_prompt) if self._previous_prompt else 0.0
        self._previous_prompt = prompt
        return CacheResult(
            kind=self.kind,
            prompt_tokens=prompt,
            cached_tokens=cached,
            cache_write_tokens=written,
            reused_share_of_previous=share,
            blocks=len(blocks),
            markers=sum(block.marker for block in blocks),
        )

    def _serve_marked(self, blocks: list[Block], ends: list[int], chain: list[bytes]) -> tuple[int, int]:
        marked = [number + 1 for number, block in enumerate(blocks) if block.marker]
        read = 0
        for end in marked:
            for length in range(end, max(read, end - self.lookback - 1, 0), -1):
                if chain[length] in self._stored:
                    read = length
                    break
        longest = 0
        for end in marked:
            # Anthropic silently skips a breakpoint whose prefix is below the model's minimum.
            if ends[end] >= self.min_tokens:
                self._stored.add(chain[end])
                longest = end
        written = max(0, ends[longest] - ends[read])
        return ends[read], written

    def _serve_automatic(self, ends: list[int], chain: list[bytes]) -> int:
        # Every prefix of every request is stored, so the stored prefixes of this one are contiguous.
        shared = 0
        while shared + 1 < len(chain) and chain[shared + 1] in self._stored:
            shared += 1
        self._stored.update(chain[1:])
        tokens = ends[shared]
        if tokens < self.min_tokens or tokens == 0:
            return 0
        if self.round_to:
            tokens = self.min_tokens + (tokens - self.min_tokens) // self.round_to * self.round_to
        return tokens

    def _tokens(self, text: str) -> int:
        tokens = self._token_counts.get(text)
        if tokens is None:
            tokens = self._token_counts[text] = self._count(text)
        return tokens


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _is_marker(item: Any) -> bool:
    if not isinstance(item, dict):
        return False
    control = item.get("cache_control")
    return isinstance(control, dict) and control.get("type") == "ephemeral"


def _without_marker(item: Any) -> Any:
    if isinstance(item, dict) and "cache_control" in item:
        return {key: value for key, value in item.items() if key != "cache_control"}
    return item


def _parts(content: Any) -> list[Any]:
    """Content as a list of parts; an empty string is no part (Anthropic rejects empty text blocks)."""
    if content is None or content == "":
        return []
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return content
    return [content]


def _blocks(body: dict[str, Any], tokens: Callable[[str], int]) -> Iterator[Block]:
    def block(role: str, value: Any, opens: bool, marker: bool) -> Block:
        text = canonical_json(value)
        return Block(role, text, opens, marker, tokens(text))

    for tool in body.get("tools") or []:
        yield block("tool", _without_marker(tool), True, _is_marker(tool))
    for part in _parts(body.get("system")):  # the Messages API's system prompt
        yield block("system", _without_marker(part), False, _is_marker(part))
    messages = [message for message in body.get("messages") or [] if isinstance(message, dict)]
    for message in messages:
        if message.get("role") in ("system", "developer"):
            # Anthropic has one system prompt, a flat list of text blocks: how the parts were split
            # into messages is not part of it.
            for part in _parts(message.get("content")):
                yield block("system", _without_marker(part), False, _is_marker(part))
    for message in messages:
        role = str(message.get("role", ""))
        if role in ("system", "developer"):
            continue
        opens = True
        if role in ("user", "assistant"):
            for part in _parts(message.get("content")):
                yield block(role, _without_marker(part), opens, _is_marker(part))
                opens = False
            if role == "assistant":
                for call in message.get("tool_calls") or []:
                    yield block("assistant", call, opens, False)
                    opens = False
        elif role == "tool":
            parts = _parts(message.get("content"))
            value = {
                "tool_call_id": message.get("tool_call_id"),
                "content": [_without_marker(part) for part in parts],
            }
            marker = _is_marker(message) or any(_is_marker(part) for part in parts)
            yield block("tool_result", value, True, marker)
        else:
            yield block(role, _without_marker(message), True, _is_marker(message))


def _hash_chain(model: str, blocks: list[Block]) -> list[bytes]:
    """`chain[k]` stands for the first k blocks (and the model)."""
    digest = hashlib.blake2b(model.encode(), digest_size=16).digest()
    chain = [digest]
    for block in blocks:
        identity = f"{block.role}\x00{int(block.opens_message)}\x00{block.text}"
        digest = hashlib.blake2b(digest + identity.encode("utf-8", "surrogatepass"), digest_size=16).digest()
        chain.append(digest)
    return chain
