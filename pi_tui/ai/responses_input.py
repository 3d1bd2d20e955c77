"""LLM messages on the Responses wire: the request's `input` items and `tools`, shaped as pi sends them.

The system prompt is the first item (`developer` for a reasoning model, else `system`). A user message is
a list of `input_text` / `input_image` parts. A reply goes back as the items it arrived as: its reasoning
item verbatim (kept whole, `encrypted_content` included, as the thinking block's signature), a `message`
item per text block under the id its signature names, and a `function_call` per tool call (pi-tui, like
pi, stores a call's id as `call_id|item_id`). Tool results are `function_call_output` items; images in
them follow as a user message.

A same-model thinking block without a signature (the provider sent no reasoning item) is skipped, and
so are the item ids of the calls after it: OpenAI refuses a `fc_` item whose reasoning item is missing.
Messages must already be transformed for the model (`transform_messages`), so foreign replies arrive with
thinking as text, no text signatures and call ids without an item part.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from pi_tui.ai.js_json import js_dumps
from pi_tui.ai.messages import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserBlock,
)
from pi_tui.ai.openai_messages import TOOL_IMAGE_ONLY_TEXT, TOOL_IMAGES_INTRO
from pi_tui.ai.stream import LlmMessage, ToolSpec
from pi_tui.config.model_config import ModelConfig

InputItem = dict[str, Any]
MAX_ITEM_ID_CHARS = 64
"""OpenAI's limit for an item id; a longer one is replaced by a short hash of it."""
TEXT_SIGNATURE_VERSION = 1
_PHASES = ("commentary", "final_answer")


def encode_text_signature(item_id: str, phase: str | None = None) -> str:
    """A text block's signature: the id (and phase) of the `message` item it came from, as pi writes it."""
    payload: dict[str, Any] = {"v": TEXT_SIGNATURE_VERSION, "id": item_id}
    if phase in _PHASES:
        payload["phase"] = phase
    return js_dumps(payload)


def decode_text_signature(signature: str | None) -> tuple[str, str | None] | None:
    """`(item id, phase)` from a text signature; an older plain-string signature is the id itself."""
    if not signature:
        return None
    if signature.startswith("{"):
        try:
            parsed = json.loads(signature)
        except (ValueError, RecursionError):
            parsed = None
        if (
            isinstance(parsed, dict)
            and parsed.get("v") == TEXT_SIGNATURE_VERSION
            and isinstance(parsed.get("id"), str)
        ):
            phase = parsed.get("phase")
            return parsed["id"], phase if phase in _PHASES else None
    return signature, None


def _reasoning_item(block: ThinkingContent) -> InputItem | None:
    """The reasoning item stored as the block's signature; None if there is none (or it is unreadable)."""
    if not block.thinking_signature:
        return None
    try:
        item = json.loads(block.thinking_signature)
    except (ValueError, RecursionError):
        return None
    return item if isinstance(item, dict) and item.get("type") == "reasoning" else None


def _item_id(raw: str) -> str:
    if len(raw) <= MAX_ITEM_ID_CHARS:
        return raw
    return "msg_" + hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()[:24]


def _image_part(block: ImageContent) -> dict[str, Any]:
    return {
        "type": "input_image",
        "detail": "auto",
        "image_url": f"data:{block.mime_type};base64,{block.data}",
    }


def _user_parts(content: str | Sequence[UserBlock]) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "input_text", "text": content}]
    return [
        {"type": "input_text", "text": block.text} if isinstance(block, TextContent) else _image_part(block)
        for block in content
    ]


def _assistant_items(message: AssistantMessage, position: int) -> list[InputItem]:
    items: list[InputItem] = []
    skipped_reasoning = False
    unsigned_texts = 0
    for block in message.content:
        if isinstance(block, ThinkingContent):
            reasoning = _reasoning_item(block)
            if reasoning is None:
                skipped_reasoning = True
            else:
                items.append(reasoning)
        elif isinstance(block, TextContent):
            decoded = decode_text_signature(block.text_signature)
            if decoded is None:
                # pi names every unsigned text `msg_<position>`; a second one would repeat that id.
                suffix = f"_{unsigned_texts}" if unsigned_texts else ""
                decoded = (f"msg_{position}{suffix}", None)
                unsigned_texts += 1
            item: InputItem = {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": block.text, "annotations": []}],
                "status": "completed",
                "id": _item_id(decoded[0]),
            }
            if decoded[1] is not None:
                item["phase"] = decoded[1]
            items.append(item)
        elif isinstance(block, ToolCall):
            items.append(_function_call(block, skipped_reasoning))
    return items


def _function_call(call: ToolCall, skipped_reasoning: bool) -> InputItem:
    call_id, _, item_id = call.id.partition("|")
    item: InputItem = {"type": "function_call"}
    if item_id and not (skipped_reasoning and item_id.startswith("fc_")):
        item["id"] = item_id
    item.update(call_id=call_id, name=call.name, arguments=js_dumps(call.arguments))
    return item


def _tool_result_items(message: ToolResultMessage, model: ModelConfig) -> list[InputItem]:
    text = "\n".join(block.text for block in message.content if isinstance(block, TextContent))
    images = [block for block in message.content if isinstance(block, ImageContent)]
    items: list[InputItem] = [
        {
            "type": "function_call_output",
            "call_id": message.tool_call_id.split("|", 1)[0],
            "output": text or (TOOL_IMAGE_ONLY_TEXT if images else ""),
        }
    ]
    if images and "image" in model.input:
        parts = [{"type": "input_text", "text": TOOL_IMAGES_INTRO}, *map(_image_part, images)]
        items.append({"role": "user", "content": parts})
    return items


def system_role(model: ModelConfig) -> str:
    return "developer" if model.reasoning else "system"


def to_responses_input(
    system_prompt: str, messages: Sequence[LlmMessage], model: ModelConfig
) -> list[InputItem]:
    """The `input` array of a request; `messages` must already be transformed for `model`."""
    items: list[InputItem] = []
    if system_prompt:
        items.append({"role": system_role(model), "content": system_prompt})
    position = 0  # pi's message index: messages that add nothing do not count
    for message in messages:
        if isinstance(message, ToolResultMessage):
            added = _tool_result_items(message, model)
        elif isinstance(message, AssistantMessage):
            added = _assistant_items(message, position)
        else:
            parts = _user_parts(message.content)
            if "image" not in model.input:
                parts = [part for part in parts if part["type"] != "input_image"]
            added = [{"role": "user", "content": parts}] if parts else []
        if not added:
            continue
        items.extend(added)
        position += 1
    return items


def to_responses_tools(tools: Sequence[ToolSpec], *, strict: bool = False) -> list[dict[str, Any]]:
    """The `tools` array: flat `function` entries; `strict: false` only with `supportsStrictMode: true` in
    the model's compat (pi 1.6 leaves the field out otherwise; pi never wrote strict schemas)."""
    wire: list[dict[str, Any]] = []
    for tool in tools:
        entry: dict[str, Any] = {
            "type": "function",
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
        }
        if strict:
            entry["strict"] = False
        wire.append(entry)
    return wire
