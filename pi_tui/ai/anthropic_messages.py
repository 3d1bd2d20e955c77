"""LLM messages on Anthropic's Messages wire: `messages` and `tools`, shaped exactly as pi 1.6 sends them.

A user message is a list of `text` / `image` blocks (whitespace-only texts dropped; a plain string stays a
string). A reply goes back in stream order: `thinking` with its signature, `redacted_thinking` with its
opaque data, `text`, `tool_use`; signatures and redacted data are replayed verbatim (Anthropic checks
them). A same-model thinking block without a signature cannot be replayed as thinking: it is sent as text
(or, with `compat.allowEmptySignature`, as thinking with an empty signature), and `unsigned_thinking`
tells the caller so it can say once why the cache may miss. Consecutive tool results form one user
message of `tool_result` blocks whose content is the result's text (a list of blocks when it holds
images).

Thinking of another model is never replayed (pi 1.6 drops it): `without_foreign_thinking` removes it
before the shared `transform_messages` would turn it into text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pi_tui.ai.messages import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserBlock,
)
from pi_tui.ai.stream import LlmMessage, ToolSpec
from pi_tui.ai.strict_schema import prefers_strict, sends_strict, strict_schema
from pi_tui.config.model_config import ModelConfig

WireMessage = dict[str, Any]
TOOL_USE_ID_MAX_CHARS = 64
IMAGE_ONLY_TEXT = "(see attached image)"
_UNSAFE_ID_CHARS = re.compile(r"[^a-zA-Z0-9_-]")
_MARKABLE_BLOCKS = frozenset({"text", "image", "tool_result"})


def tool_use_id(call_id: str) -> str:
    """pi's `normalizeToolCallId` for Anthropic: `[A-Za-z0-9_-]`, at most 64 characters."""
    return _UNSAFE_ID_CHARS.sub("_", call_id)[:TOOL_USE_ID_MAX_CHARS]


def is_same_model(message: AssistantMessage, model: ModelConfig) -> bool:
    return message.provider == model.provider and message.api == model.api and message.model == model.id


def without_foreign_thinking(messages: Sequence[LlmMessage], model: ModelConfig) -> list[LlmMessage]:
    """The messages with the thinking blocks of other models' replies removed."""
    result: list[LlmMessage] = []
    for message in messages:
        foreign = isinstance(message, AssistantMessage) and not is_same_model(message, model)
        if foreign and any(isinstance(block, ThinkingContent) for block in message.content):
            kept = [block for block in message.content if not isinstance(block, ThinkingContent)]
            message = message.model_copy(update={"content": kept})
        result.append(message)
    return result


def image_block(block: ImageContent) -> dict[str, Any]:
    return {"type": "image", "source": {"type": "base64", "media_type": block.mime_type, "data": block.data}}


def _result_content(content: Sequence[UserBlock]) -> str | list[dict[str, Any]]:
    if not any(isinstance(block, ImageContent) for block in content):
        return "\n".join(block.text for block in content if isinstance(block, TextContent))
    blocks = [
        {"type": "text", "text": block.text} if isinstance(block, TextContent) else image_block(block)
        for block in content
    ]
    if not any(block["type"] == "text" for block in blocks):
        blocks.insert(0, {"type": "text", "text": IMAGE_ONLY_TEXT})
    return blocks


@dataclass
class ConvertedMessages:
    messages: list[WireMessage] = field(default_factory=list)
    unsigned_thinking: int = 0
    """Same-model thinking blocks sent without their signature (the provider's cache may miss)."""


def _assistant_blocks(
    message: AssistantMessage, allow_empty_signature: bool, out: ConvertedMessages
) -> list[Any]:
    blocks: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, TextContent):
            if block.text.strip():
                blocks.append({"type": "text", "text": block.text})
        elif isinstance(block, ThinkingContent):
            signature = block.thinking_signature or ""
            if block.redacted:
                blocks.append({"type": "redacted_thinking", "data": signature})
            elif signature.strip():
                blocks.append({"type": "thinking", "thinking": block.thinking, "signature": signature})
            elif block.thinking.strip():
                out.unsigned_thinking += 1
                if allow_empty_signature:
                    blocks.append({"type": "thinking", "thinking": block.thinking, "signature": ""})
                else:
                    blocks.append({"type": "text", "text": block.thinking})
        elif isinstance(block, ToolCall):
            blocks.append(
                {
                    "type": "tool_use",
                    "id": tool_use_id(block.id),
                    "name": block.name,
                    "input": block.arguments,
                }
            )
    return blocks


def to_anthropic_messages(
    messages: Sequence[LlmMessage], *, allow_empty_signature: bool = False
) -> ConvertedMessages:
    """The `messages` array; `messages` must already be transformed for the model."""
    out = ConvertedMessages()
    index = 0
    while index < len(messages):
        message = messages[index]
        if isinstance(message, ToolResultMessage):
            results: list[dict[str, Any]] = []
            while index < len(messages) and isinstance(result := messages[index], ToolResultMessage):
                results.append(
                    {
                        "type": "tool_result",
                        "tool_use_id": tool_use_id(result.tool_call_id),
                        "content": _result_content(result.content),
                        "is_error": result.is_error,
                    }
                )
                index += 1
            out.messages.append({"role": "user", "content": results})
            continue
        index += 1
        if isinstance(message, AssistantMessage):
            blocks = _assistant_blocks(message, allow_empty_signature, out)
            if blocks:
                out.messages.append({"role": "assistant", "content": blocks})
        elif isinstance(message.content, str):
            if message.content.strip():
                out.messages.append({"role": "user", "content": message.content})
        else:
            user_blocks = [
                {"type": "text", "text": block.text} if isinstance(block, TextContent) else image_block(block)
                for block in message.content
                if not isinstance(block, TextContent) or block.text.strip()
            ]
            if user_blocks:
                out.messages.append({"role": "user", "content": user_blocks})
    return out


def mark_last_message(messages: list[WireMessage], marker: dict[str, str]) -> None:
    """pi's third cache marker: the last block of the last message, when that message is the user's."""
    if not messages or messages[-1]["role"] != "user":
        return
    content = messages[-1]["content"]
    if isinstance(content, str):
        messages[-1]["content"] = [{"type": "text", "text": content, "cache_control": marker}]
    elif content and content[-1].get("type") in _MARKABLE_BLOCKS:
        content[-1] = {**content[-1], "cache_control": marker}


# Keywords Anthropic's strict tool use refuses (a 400 for the whole request), pi 1.6's list.
_STRICT_UNSUPPORTED_KEYWORDS = frozenset(
    {
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "maxItems",
        "uniqueItems",
        "minContains",
        "maxContains",
        "minProperties",
        "maxProperties",
    }
)
_STRICT_STRING_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"}
)


def strict_unsupported(key: str, value: Any) -> bool:
    """Whether Anthropic's strict mode refuses `key: value` in a schema."""
    if key in _STRICT_UNSUPPORTED_KEYWORDS:
        return True
    if key == "minItems":
        return value not in (0, 1) or isinstance(value, bool)
    if key == "format":
        return not isinstance(value, str) or value not in _STRICT_STRING_FORMATS
    return False


def to_anthropic_tools(
    tools: Sequence[ToolSpec],
    *,
    eager_input_streaming: bool,
    marker: dict[str, str] | None,
    strict_tools: bool = False,
    strict_preferred: bool = True,
) -> list[dict[str, Any]]:
    """The `tools` array: pi's legacy input schema (object, properties, required, and the schema's own
    `additionalProperties` / `$defs` / `definitions`), the last tool carrying the cache marker. With
    `strict_tools` (`compat.supportsStrictTools`, pi's catalog models), a tool that asks for it goes with
    `strict: true` and its strict schema (`strict_schema`); `strict_preferred=False` sends the tools that
    only prefer it without (after the server refused the strict set as too large)."""
    converted: list[dict[str, Any]] = []
    for position, tool in enumerate(tools):
        strict = (strict_preferred or not prefers_strict(tool)) and sends_strict(
            tool, strict_tools, strict_unsupported
        )
        schema = strict_schema(tool.parameters) if strict else tool.parameters
        legacy: dict[str, Any] = {
            "type": "object",
            "properties": schema.get("properties", {}),
            "required": schema.get("required", []),
        }
        for key in ("additionalProperties", "$defs", "definitions"):
            if key in schema:
                legacy[key] = schema[key]
        # pi spreads the legacy keys over the strict schema: the schema's other keys stay, in its order.
        input_schema = {**schema, **legacy} if strict else legacy
        entry: dict[str, Any] = {"name": tool.name, "description": tool.description}
        if eager_input_streaming:
            entry["eager_input_streaming"] = True
        if strict:
            entry["strict"] = True
        entry["input_schema"] = input_schema
        if marker is not None and position == len(tools) - 1:
            entry["cache_control"] = marker
        converted.append(entry)
    return converted
