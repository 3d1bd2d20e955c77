"""LLM messages on the Chat Completions wire: the request body's `messages` and `tools`, per dialect.

The mapping is pi's, switch by switch (docs/providers.md): the system prompt is the first message (role
`developer` for a reasoning model whose server knows that role); user content is a list of `text` /
`image_url` parts (a string stays a string); an assistant reply is its text joined into one string plus
`tool_calls` whose arguments are JSON text written as JavaScript would (byte-stable from request to
request). A reply's thinking goes back the way it came: under the delta field it streamed in (its
signature: `reasoning_content`, `reasoning`, `reasoning_text`), or as text parts before the answer for
servers that only take text. Tool results are `tool` messages; images in them (not expressible there)
follow as one user message.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pi_tui.ai.js_json import js_dumps
from pi_tui.ai.messages import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolResultMessage,
    UserBlock,
)
from pi_tui.ai.stream import LlmMessage, ToolSpec
from pi_tui.config.compat import Compat

TOOL_IMAGES_INTRO = "Attached image(s) from tool result:"
TOOL_IMAGE_ONLY_TEXT = "(see attached image)"
BRIDGE_AFTER_TOOL_RESULTS = "I have processed the tool results."
"""What pi puts between tool results and a user message for servers that refuse that order."""
REASONING_CONTENT = "reasoning_content"

WireMessage = dict[str, Any]


@dataclass(frozen=True)
class WireDialect:
    """What shapes the messages: the resolved switches and whether the model reasons."""

    compat: Compat = field(default_factory=Compat)
    reasoning_model: bool = False


PLAIN = WireDialect()


def _image_part(block: ImageContent) -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": f"data:{block.mime_type};base64,{block.data}"}}


def _parts(blocks: Sequence[UserBlock]) -> list[dict[str, Any]]:
    return [
        {"type": "text", "text": block.text} if isinstance(block, TextContent) else _image_part(block)
        for block in blocks
    ]


def _assistant(message: AssistantMessage, dialect: WireDialect) -> WireMessage | None:
    """None for a reply with nothing to replay (e.g. an empty one)."""
    compat = dialect.compat
    text = message.text
    calls = message.tool_calls
    thinking = [block for block in message.content if isinstance(block, ThinkingContent)]
    refuses_null = compat.requires_assistant_after_tool_result or compat.requires_non_null_assistant_content
    empty = "" if refuses_null else None
    content: str | list[dict[str, Any]] | None = text or empty
    reasoning: tuple[str, str] | None = None
    if thinking and compat.requires_thinking_as_text:
        parts = [{"type": "text", "text": block.thinking} for block in thinking]
        parts += [
            {"type": "text", "text": block.text}
            for block in message.content
            if isinstance(block, TextContent)
        ]
        content = parts
    elif thinking and thinking[0].thinking_signature:
        reasoning = (thinking[0].thinking_signature, "\n".join(block.thinking for block in thinking))
    if not content and not calls:
        return None
    wire: WireMessage = {"role": "assistant", "content": content}
    if reasoning is not None:
        wire[reasoning[0]] = reasoning[1]
    if (
        compat.requires_reasoning_content_on_assistant_messages
        and dialect.reasoning_model
        and REASONING_CONTENT not in wire
    ):
        wire[REASONING_CONTENT] = ""
    if calls:
        wire["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": js_dumps(call.arguments)},
            }
            for call in calls
        ]
    return wire


def _tool(message: ToolResultMessage, dialect: WireDialect) -> WireMessage:
    text = message.text
    if not text and any(isinstance(block, ImageContent) for block in message.content):
        text = TOOL_IMAGE_ONLY_TEXT
    wire: WireMessage = {"role": "tool", "content": text, "tool_call_id": message.tool_call_id}
    if dialect.compat.requires_tool_result_name:
        wire["name"] = message.tool_name
    return wire


def system_role(dialect: WireDialect) -> str:
    return "developer" if dialect.reasoning_model and dialect.compat.supports_developer_role else "system"


def to_openai_messages(
    system_prompt: str, messages: Sequence[LlmMessage], dialect: WireDialect = PLAIN
) -> list[WireMessage]:
    """The `messages` array of a request; `messages` must already be transformed for the model."""
    wire: list[WireMessage] = []
    if system_prompt:
        wire.append({"role": system_role(dialect), "content": system_prompt})
    pending_images: list[ImageContent] = []
    previous: LlmMessage | None = None
    bridge = dialect.compat.requires_assistant_after_tool_result
    for message in messages:
        if pending_images and not isinstance(message, ToolResultMessage):
            wire.append(_tool_images_message(pending_images))
            pending_images = []
        if isinstance(message, ToolResultMessage):
            wire.append(_tool(message, dialect))
            pending_images.extend(block for block in message.content if isinstance(block, ImageContent))
        elif isinstance(message, AssistantMessage):
            if (assistant := _assistant(message, dialect)) is not None:
                wire.append(assistant)
        else:
            if bridge and isinstance(previous, ToolResultMessage):
                wire.append({"role": "assistant", "content": BRIDGE_AFTER_TOOL_RESULTS})
            if isinstance(message.content, str):
                wire.append({"role": "user", "content": message.content})
            else:
                wire.append({"role": "user", "content": _parts(message.content)})
        previous = message
    if pending_images:
        wire.append(_tool_images_message(pending_images))
    return wire


def _tool_images_message(images: list[ImageContent]) -> WireMessage:
    return {
        "role": "user",
        "content": [{"type": "text", "text": TOOL_IMAGES_INTRO}, *map(_image_part, images)],
    }


def to_openai_tools(tools: Sequence[ToolSpec], dialect: WireDialect = PLAIN) -> list[dict[str, Any]]:
    """The `tools` array: one `function` entry per tool, in the given (stable) order; `strict: false`
    only where a model's compat says `supportsStrictMode: true` (pi 1.6 leaves the field out otherwise)."""
    strict = dialect.compat.supports_strict_mode
    wire: list[dict[str, Any]] = []
    for tool in tools:
        function: dict[str, Any] = {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
        }
        if strict:
            function["strict"] = False
        wire.append({"type": "function", "function": function})
    return wire
