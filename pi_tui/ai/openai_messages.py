"""LLM messages on the Chat Completions wire: the request body's `messages` and `tools`.

Mapping (R1.3, native roles only): the system prompt is the first `system` message; user content is a
string or a list of `text` / `image_url` parts; an assistant reply is its joined text plus `tool_calls`
whose arguments are JSON text written as JavaScript would (byte-stable from request to request); tool
results are `tool` messages. Thinking blocks are not sent back: Chat Completions has no field for
them and servers differ on what they accept, so the reply's text and tool calls stand for it.
Images in tool results (not expressible in a `tool` message) follow the tool messages as one user
message, as pi does for this API.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pi_tui.ai.js_json import js_dumps
from pi_tui.ai.messages import AssistantMessage, ImageContent, TextContent, ToolResultMessage, UserBlock
from pi_tui.ai.stream import LlmMessage, ToolSpec

TOOL_IMAGES_INTRO = "Attached image(s) from tool result:"
TOOL_IMAGE_ONLY_TEXT = "(see attached image)"

WireMessage = dict[str, Any]


def _image_part(block: ImageContent) -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": f"data:{block.mime_type};base64,{block.data}"}}


def _parts(blocks: Sequence[UserBlock]) -> list[dict[str, Any]]:
    return [
        {"type": "text", "text": block.text} if isinstance(block, TextContent) else _image_part(block)
        for block in blocks
    ]


def _assistant(message: AssistantMessage) -> WireMessage | None:
    """None for a reply with nothing replayable (e.g. thinking only)."""
    text = message.text
    calls = message.tool_calls
    if not text and not calls:
        return None
    wire: WireMessage = {"role": "assistant", "content": text or None}
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


def _tool(message: ToolResultMessage) -> WireMessage:
    text = message.text
    if not text and any(isinstance(block, ImageContent) for block in message.content):
        text = TOOL_IMAGE_ONLY_TEXT
    return {"role": "tool", "tool_call_id": message.tool_call_id, "content": text}


def to_openai_messages(system_prompt: str, messages: Sequence[LlmMessage]) -> list[WireMessage]:
    """The `messages` array of a request; `messages` must already be transformed for the model."""
    wire: list[WireMessage] = []
    if system_prompt:
        wire.append({"role": "system", "content": system_prompt})
    pending_images: list[ImageContent] = []
    for message in messages:
        if pending_images and not isinstance(message, ToolResultMessage):
            wire.append(_tool_images_message(pending_images))
            pending_images = []
        if isinstance(message, ToolResultMessage):
            wire.append(_tool(message))
            pending_images.extend(block for block in message.content if isinstance(block, ImageContent))
        elif isinstance(message, AssistantMessage):
            if (assistant := _assistant(message)) is not None:
                wire.append(assistant)
        elif isinstance(message.content, str):
            wire.append({"role": "user", "content": message.content})
        else:
            wire.append({"role": "user", "content": _parts(message.content)})
    if pending_images:
        wire.append(_tool_images_message(pending_images))
    return wire


def _tool_images_message(images: list[ImageContent]) -> WireMessage:
    return {
        "role": "user",
        "content": [{"type": "text", "text": TOOL_IMAGES_INTRO}, *map(_image_part, images)],
    }


def to_openai_tools(tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    """The `tools` array: one `function` entry per tool, in the given (stable) order."""
    return [
        {
            "type": "function",
            "function": {"name": tool.name, "description": tool.description, "parameters": tool.parameters},
        }
        for tool in tools
    ]
