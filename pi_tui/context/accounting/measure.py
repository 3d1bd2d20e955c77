"""Measuring what a request actually sent: one token count and one fingerprint per segment.

Segments are, in request order, the system prompt parts (by name), the tool schemas (by tool name) and
the messages (by the id of the session entry they came from). Fingerprints are taken over the wire form
in the model's dialect (`to_openai_messages` / `to_openai_tools` with its `WireDialect`: replayed
reasoning fields, thinking sent as text, tool-result names, `strict`), so equal fingerprints mean equal
bytes on the wire, cache markers aside (`wire_facts` places those); token counts come from
`tokens.count_message` / `tokens.count`.

`MeasureCache` remembers each message object it measured per dialect (by identity, holding a reference
so the identity stays valid), so measuring a request again after one new message costs O(that message).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, NamedTuple, TypeAlias

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
from pi_tui.ai.openai_messages import PLAIN, WireDialect, to_openai_messages, to_openai_tools
from pi_tui.ai.stream import LlmMessage, ToolSpec
from pi_tui.config.model_config import ModelConfig
from pi_tui.context.accounting.fingerprints import fingerprint
from pi_tui.context.accounting.wire_facts import WireShape, replayed_reasoning, wire_shape
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


@dataclass(frozen=True)
class MessageMeasure:
    tokens: int
    fingerprint: str
    wire: WireShape
    reasoning: str | None
    """How its reasoning is replayed when it is sent as it stands (see `wire_facts.replayed_reasoning`)."""


class SentMessage(NamedTuple):
    key: str
    sent: LlmMessage
    """The message as the provider gets it (transformed for the model)."""
    source: LlmMessage | None
    """The message before the transform (None for a synthetic result of an orphaned tool call)."""


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
    return [(sent.key, sent.sent) for sent in sent_messages(messages, entry_ids, model)]


def sent_messages(
    messages: Sequence[AgentMessage], entry_ids: Sequence[str | None], model: ModelConfig | None
) -> list[SentMessage]:
    """`keyed_sent_messages`, each with the message it was transformed from."""
    converted: list[tuple[str, LlmMessage]] = []
    for message, entry_id in zip(messages, entry_ids, strict=True):
        if isinstance(message, UserMessage | AssistantMessage | ToolResultMessage):
            converted.append((message_key(message, entry_id), message))  # convert_to_llm keeps these as-is
        else:
            converted.extend((message_key(message, entry_id), llm) for llm in convert_to_llm([message]))
    if model is None:
        return [SentMessage(key, llm, llm) for key, llm in converted]
    inputs = [(key, llm) for key, llm in converted if not (isinstance(llm, AssistantMessage) and llm.failed)]
    result: list[SentMessage] = []
    position = 0
    for sent in transform_messages([llm for _, llm in converted], model):
        while position < len(inputs) and _dropped_result(inputs[position][1], sent):
            position += 1
        if position < len(inputs) and _same_slot(inputs[position][1], sent):
            result.append(SentMessage(inputs[position][0], sent, inputs[position][1]))
            position += 1
        elif isinstance(sent, ToolResultMessage):
            result.append(SentMessage(ORPHAN_RESULT_PREFIX + sent.tool_call_id, sent, None))
    return result


def _dropped_result(original: LlmMessage, sent: LlmMessage) -> bool:
    """A real tool result the transform did not send (no call asked for it): what it sends next is never
    that result, whereas a synthetic result always comes before a user or assistant message."""
    return isinstance(original, ToolResultMessage) and not _same_slot(original, sent)


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
        self._messages: OrderedDict[tuple[int, int], tuple[LlmMessage, MessageMeasure]] = OrderedDict()
        self._texts: OrderedDict[str, int] = OrderedDict()
        self._dialects: list[WireDialect] = []

    def message(self, message: LlmMessage, dialect: WireDialect = PLAIN) -> tuple[int, str]:
        """(tokens, fingerprint) of one sent message."""
        [measured] = self.messages([message], dialect)
        return measured.tokens, measured.fingerprint

    def messages(self, messages: Sequence[LlmMessage], dialect: WireDialect = PLAIN) -> list[MessageMeasure]:
        """The measure of each sent message, in the wire form of `dialect`."""
        slot = self._dialect_slot(dialect)
        return [self._measure(message, slot, dialect) for message in messages]

    def _dialect_slot(self, dialect: WireDialect) -> int:
        # Dialects are compared once per request, not per message (a `Compat` is not hashable).
        for slot, known in enumerate(self._dialects):
            if known == dialect:
                return slot
        self._dialects.append(dialect)
        return len(self._dialects) - 1

    def _measure(self, message: LlmMessage, slot: int, dialect: WireDialect) -> MessageMeasure:
        key = (id(message), slot)
        hit = self._messages.get(key)
        if hit is not None and hit[0] is message:
            self._messages.move_to_end(key)
            return hit[1]
        wire = to_openai_messages("", [message], dialect)
        shape = wire_shape(wire)
        measured = MessageMeasure(
            tokens.count_message(message),
            fingerprint(js_dumps(wire)),
            shape,
            replayed_reasoning(message, message, shape, dialect),
        )
        self._messages[key] = (message, measured)
        if len(self._messages) > self._limit:
            self._messages.popitem(last=False)
        return measured

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


def tool_segments(
    tools: Sequence[ToolSpec], cache: MeasureCache, dialect: WireDialect = PLAIN
) -> list[Segment]:
    return [
        Segment("tool", tool.name, *cache.text(js_dumps(wire)))
        for tool, wire in zip(tools, to_openai_tools(tools, dialect), strict=True)
    ]


def message_segments(
    keyed: Sequence[tuple[str, LlmMessage]], cache: MeasureCache, dialect: WireDialect = PLAIN
) -> list[Segment]:
    measured = cache.messages([message for _, message in keyed], dialect)
    return [
        Segment("message", key, item.tokens, item.fingerprint)
        for (key, _), item in zip(keyed, measured, strict=True)
    ]
