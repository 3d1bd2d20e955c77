"""Measuring what a request actually sent: one token count and one fingerprint per segment.

Segments are, in request order, the system prompt parts (by name), the tool schemas (by tool name) and
the messages (by the id of the session entry they came from). Fingerprints are taken over the wire form
(`to_openai_messages` / `to_openai_tools`), so equal fingerprints mean equal bytes on the wire; token
counts come from `tokens.count_message` / `tokens.count`.

`MeasureCache` remembers each message object it measured (by identity, holding a reference so the
identity stays valid), so measuring a request again after one new message costs O(that message).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, TypeAlias

from pi_tui.ai import tokens
from pi_tui.ai.convert import convert_to_llm, transform_messages
from pi_tui.ai.js_json import js_dumps
from pi_tui.ai.messages import (
    AgentMessage,
    AssistantMessage,
    CompactionSummaryMessage,
    ToolResultMessage,
    UserMessage,
)
from pi_tui.ai.openai_messages import to_openai_messages, to_openai_tools
from pi_tui.ai.stream import LlmMessage, ToolSpec
from pi_tui.config.model_config import ModelConfig
from pi_tui.context.accounting.fingerprints import fingerprint
from pi_tui.context.system_prompt import SystemPrompt

Section: TypeAlias = Literal["system", "tool", "message"]

COMPACTION_SUMMARY_KEY = "compaction-summary"
"""Key of the synthetic summary message a compacted context starts with (it has no entry of its own)."""
ORPHAN_RESULT_PREFIX = "orphan:"
"""Key prefix (+ tool call id) of the "No result provided" results added for unanswered tool calls."""
UNSAVED_PREFIX = "unsaved:"
"""Key prefix (+ content fingerprint) of a message sent before it had a session entry."""
SINGLE_SYSTEM_SEGMENT = "system"
"""Segment name used when the system prompt is given as plain text (e.g. a summarisation call)."""
DEFAULT_CACHE_LIMIT = 65_536


@dataclass(frozen=True)
class Segment:
    section: Section
    key: str
    tokens: int
    fingerprint: str


def message_key(message: AgentMessage, entry_id: str | None) -> str:
    """The stable key of a message: its entry id, or a synthetic key for messages without an entry."""
    if entry_id is not None:
        return entry_id
    if isinstance(message, CompactionSummaryMessage):
        return COMPACTION_SUMMARY_KEY
    return UNSAVED_PREFIX + fingerprint(js_dumps(message.to_json_obj()))


def keyed_sent_messages(
    messages: Sequence[AgentMessage], entry_ids: Sequence[str | None], model: ModelConfig | None
) -> list[tuple[str, LlmMessage]]:
    """The messages a provider sends for `messages` (convert, then transform for `model` when given),
    each with its key. Failed replies vanish; synthetic results for orphaned calls get `orphan:<id>`."""
    converted: list[tuple[str, LlmMessage]] = []
    for message, entry_id in zip(messages, entry_ids, strict=True):
        if isinstance(message, UserMessage | AssistantMessage | ToolResultMessage):
            converted.append((message_key(message, entry_id), message))  # convert_to_llm keeps these as-is
        else:
            converted.extend((message_key(message, entry_id), llm) for llm in convert_to_llm([message]))
    if model is None:
        return converted
    inputs = [(key, llm) for key, llm in converted if not (isinstance(llm, AssistantMessage) and llm.failed)]
    result: list[tuple[str, LlmMessage]] = []
    position = 0
    for sent in transform_messages([llm for _, llm in converted], model):
        if position < len(inputs) and _same_slot(inputs[position][1], sent):
            result.append((inputs[position][0], sent))
            position += 1
        elif isinstance(sent, ToolResultMessage):
            result.append((ORPHAN_RESULT_PREFIX + sent.tool_call_id, sent))
    return result


def _same_slot(original: LlmMessage, sent: LlmMessage) -> bool:
    """Whether `sent` is `original` as transformed (synthetic results never match a real one)."""
    if original is sent:
        return True
    if original.role != sent.role:
        return False
    if isinstance(original, ToolResultMessage) and isinstance(sent, ToolResultMessage):
        return original.tool_call_id == sent.tool_call_id
    return True


class MeasureCache:
    """Token counts and fingerprints of messages, tool schemas and prompt texts, computed once each."""

    def __init__(self, limit: int = DEFAULT_CACHE_LIMIT) -> None:
        self._limit = limit
        self._messages: OrderedDict[int, tuple[LlmMessage, int, str]] = OrderedDict()
        self._texts: OrderedDict[str, int] = OrderedDict()

    def message(self, message: LlmMessage) -> tuple[int, str]:
        """(tokens, fingerprint) of one sent message."""
        hit = self._messages.get(id(message))
        if hit is not None and hit[0] is message:
            self._messages.move_to_end(id(message))
            return hit[1], hit[2]
        count = tokens.count_message(message)
        value = fingerprint(js_dumps(to_openai_messages("", [message])))
        self._messages[id(message)] = (message, count, value)
        if len(self._messages) > self._limit:
            self._messages.popitem(last=False)
        return count, value

    def text(self, text: str) -> tuple[int, str]:
        """(tokens, fingerprint) of a text (a prompt segment, a tool schema's JSON)."""
        value = fingerprint(text)
        count = self._texts.get(value)
        if count is None:
            count = tokens.count(text)
            self._texts[value] = count
            if len(self._texts) > self._limit:
                self._texts.popitem(last=False)
        return count, value


def system_segments(prompt: SystemPrompt | str, cache: MeasureCache) -> list[Segment]:
    if isinstance(prompt, str):
        parts = [(SINGLE_SYSTEM_SEGMENT, prompt)] if prompt else []
    else:
        parts = [(segment.name, segment.text) for segment in prompt.segments]
    return [Segment("system", name, *cache.text(text)) for name, text in parts]


def tool_segments(tools: Sequence[ToolSpec], cache: MeasureCache) -> list[Segment]:
    return [
        Segment("tool", tool.name, *cache.text(js_dumps(wire)))
        for tool, wire in zip(tools, to_openai_tools(tools), strict=True)
    ]


def message_segments(keyed: Sequence[tuple[str, LlmMessage]], cache: MeasureCache) -> list[Segment]:
    return [Segment("message", key, *cache.message(message)) for key, message in keyed]
