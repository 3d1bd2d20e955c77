"""What a provider's cache sees of a request besides its segments' bytes: Anthropic content blocks, where
the cache markers sit, and how each reply's reasoning was replayed.

Segment fingerprints are taken without `cache_control` (the newest-message marker moves every turn, and a
marker must not make its message look changed), so the markers are placed here, separately, by the same
`add_cache_markers` the request uses, run over stand-ins that keep only each wire message's role and the
kind of its content (all the placement looks at). Positions are kept as (segment index, block end): the
last segment the marked prefix holds whole, and how many Anthropic content blocks it holds up to and
including the marked one, counted in the order Anthropic renders a prompt (tool definitions, then the
system prompt, then the turns), because the provider looks back a number of *blocks* from each marker
for a prefix it wrote earlier.

Blocks are counted as Anthropic's cache through OpenRouter counts them (and as the tests' cache emulator
models it): a content part (string content is one part, an empty string none), an assistant tool call, a
tool result, a tool definition, each one block; reasoning fields are not blocks. A bridging assistant
message (servers that refuse a user message right after tool results) is not counted: no marker dialect
asks for one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

from pi_tui.ai.chat_request import add_cache_markers
from pi_tui.ai.js_json import js_dumps
from pi_tui.ai.messages import AssistantMessage, ThinkingContent
from pi_tui.ai.openai_messages import WireDialect, WireMessage
from pi_tui.ai.stream import LlmMessage
from pi_tui.context.accounting.fingerprints import fingerprint

ContentShape: TypeAlias = str | tuple[str, ...] | None
"""A wire message's content as the marker placement sees it: None, "" (empty), "text" (a non-empty
string) or the types of its parts."""
Marker: TypeAlias = tuple[int, int]
"""(last segment the marked prefix holds whole, Anthropic blocks up to and including the marked block)."""
WIRE_FIELDS = frozenset({"role", "content", "tool_calls"})
"""Assistant fields that are not reasoning; any other field carries replayed reasoning."""
AS_TEXT = "text"
DROPPED = "dropped"
_MARK = {"type": "ephemeral"}


@dataclass(frozen=True)
class WireShape:
    """The facts of one sent message's wire form that the cache blame needs."""

    shapes: tuple[tuple[str, ContentShape, int], ...]
    """(role, content shape, blocks) of each wire message it became (a tool result with images becomes
    two)."""
    blocks: int
    reasoning_fields: str | None
    """An assistant reply's reasoning fields as `name:fingerprint`, comma-separated (None: none)."""


def wire_shape(wire: Sequence[WireMessage]) -> WireShape:
    shapes = tuple(
        (str(message.get("role", "")), _content_shape(message.get("content")), _blocks(message))
        for message in wire
    )
    fields: str | None = None
    if len(wire) == 1 and wire[0].get("role") == "assistant":
        names = sorted(key for key in wire[0] if key not in WIRE_FIELDS)
        fields = ",".join(f"{name}:{fingerprint(js_dumps(wire[0][name]))}" for name in names) or None
    return WireShape(shapes, sum(blocks for _, _, blocks in shapes), fields)


def _parts(content: Any) -> int:
    if content is None or content == "":
        return 0
    return len(content) if isinstance(content, list) else 1


def _blocks(message: WireMessage) -> int:
    role = message.get("role")
    if role == "tool":
        return 1
    if role == "assistant":
        return _parts(message.get("content")) + len(message.get("tool_calls") or ())
    return _parts(message.get("content"))


def _content_shape(content: Any) -> ContentShape:
    if content is None:
        return None
    if isinstance(content, str):
        return "text" if content else ""
    if isinstance(content, list):
        return tuple(str(part.get("type", "")) if isinstance(part, dict) else "" for part in content)
    return "other"


def _stand_in(role: str, shape: ContentShape) -> WireMessage:
    content: Any = [{"type": kind} for kind in shape] if isinstance(shape, tuple) else shape
    return {"role": role, "content": content}


def _marked_part(content: Any) -> int | None:
    if not isinstance(content, list):
        return None
    return next((index for index, part in enumerate(content) if "cache_control" in part), None)


def marker_positions(
    *, system_segments: int, has_system_text: bool, tool_count: int, messages: Sequence[WireShape]
) -> list[Marker]:
    """Where `add_cache_markers` puts its markers in a request of these segments, in block order.

    A marker ends the prefix at the block it sits on; a reply's marker sits on its text, before its tool
    calls, so such a prefix holds only the segments before the reply whole, and names the last of them.
    """
    stand_ins: list[WireMessage] = []
    # Per stand-in: its segment, the blocks before it and the blocks up to its segment's end.
    segments: list[int] = []
    starts: list[int] = []
    segment_ends: list[int] = []
    blocks = tool_count
    if has_system_text:
        stand_ins.append({"role": "system", "content": "text"})
        segments.append(system_segments - 1)
        starts.append(blocks)
        blocks += 1  # the system prompt is one text part, marked or not
        segment_ends.append(blocks)
    prefix = system_segments + tool_count
    for position, message in enumerate(messages):
        segment_end = blocks + message.blocks
        for role, shape, count in message.shapes:
            stand_ins.append(_stand_in(role, shape))
            segments.append(prefix + position)
            starts.append(blocks)
            segment_ends.append(segment_end)
            blocks += count
    unmarked = [stand_in["content"] for stand_in in stand_ins]
    tools: list[dict[str, Any]] = [{} for _ in range(tool_count)]
    add_cache_markers(stand_ins, tools, _MARK)
    markers: list[Marker] = []
    for index, stand_in in enumerate(stand_ins):
        if stand_in["content"] is unmarked[index]:
            continue  # marking gives a message new content
        part = _marked_part(stand_in["content"])
        if part is not None:
            end = starts[index] + part + 1
            markers.append((segments[index] if end == segment_ends[index] else segments[index] - 1, end))
    if tools and "cache_control" in tools[-1]:
        markers.append((prefix - 1, tool_count))
    return sorted(set(markers), key=lambda marker: marker[1])


def replayed_reasoning(
    source: LlmMessage | None, sent: LlmMessage, shape: WireShape, dialect: WireDialect
) -> str | None:
    """How a reply's reasoning went back to the provider: its fields (`name:fingerprint`), `text:<fp>`
    (as text parts, or turned into text for another model), `dropped`, or None when it had none."""
    if not isinstance(sent, AssistantMessage):
        return None
    if shape.reasoning_fields is not None:
        return shape.reasoning_fields
    original = source if isinstance(source, AssistantMessage) else sent
    thinking = [block for block in original.content if isinstance(block, ThinkingContent)]
    if not any(block.thinking.strip() for block in thinking):
        return None
    sent_thinking = [block for block in sent.content if isinstance(block, ThinkingContent)]
    if sent_thinking:
        if dialect.compat.requires_thinking_as_text:
            return _as_text([block.thinking for block in sent_thinking])
        return DROPPED  # no signature to replay it under
    # Another model's reply: its readable thinking became text blocks (see `convert._foreign_block`).
    readable = [block.thinking for block in thinking if not block.redacted and block.thinking.strip()]
    return _as_text(readable) if readable else DROPPED


def _as_text(texts: Sequence[str]) -> str:
    joined = "\n".join(texts)
    return f"{AS_TEXT}:{fingerprint(joined)}"
