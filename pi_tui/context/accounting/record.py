"""The request record: what one model call sent, measured, stored as a `pi-tui.request` entry.

A record holds, per segment (system prompt parts, tool schemas, messages), a key, a token count and a
fingerprint, plus the rolling prefix chain over all segments in request order, the provider's usage and
the timings. It never holds payload text or keys: the text is reconstructable from the session.

On disk a record may be a delta: `base` names the custom entry of an earlier record and `baseKeep` how
many of its leading message segments this request repeated, so an append-only turn stores only its new
messages. `expand_record` turns the delta back into a full record.

`wire` (absent from records written before it existed, which still load) keeps what a provider's cache
keys on besides the segments' bytes: the API, the `prompt_cache_key`, where the cache markers sat and how
each reply's reasoning was replayed (see `wire_facts`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic.alias_generators import to_camel

from pi_tui.ai.chat_request import wire_dialect
from pi_tui.ai.messages import AgentMessage, AssistantMessage
from pi_tui.ai.openai_messages import PLAIN, WireDialect
from pi_tui.ai.stream import ToolSpec
from pi_tui.config.model_config import ModelConfig
from pi_tui.context.accounting.fingerprints import common_prefix_length, extend_chain
from pi_tui.context.accounting.measure import (
    MeasureCache,
    MessageMeasure,
    Segment,
    SentMessage,
    sent_messages,
    system_segments,
    tool_segments,
)
from pi_tui.context.accounting.wire_facts import Marker, marker_positions, replayed_reasoning
from pi_tui.context.system_prompt import SystemPrompt

REQUEST_CUSTOM_TYPE = "pi-tui.request"
RECORD_VERSION = 1
RequestKind: TypeAlias = Literal["turn", "summary", "branch-summary"]

DEFAULT_CACHE = MeasureCache()
"""Shared by every caller that does not bring its own cache."""


class _Model(BaseModel):
    model_config = ConfigDict(
        defer_build=True,
        alias_generator=to_camel,
        populate_by_name=True,
        serialize_by_alias=True,
        extra="ignore",
    )


class SegmentTable(_Model):
    """Parallel columns (compact on disk): key, token count and fingerprint of each segment."""

    keys: list[str] = Field(default_factory=list)
    tokens: list[int] = Field(default_factory=list)
    fingerprints: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _same_lengths(self) -> SegmentTable:
        if not len(self.keys) == len(self.tokens) == len(self.fingerprints):
            raise ValueError("segment columns differ in length")
        return self

    @classmethod
    def of(cls, segments: Sequence[Segment]) -> SegmentTable:
        return cls(
            keys=[s.key for s in segments],
            tokens=[s.tokens for s in segments],
            fingerprints=[s.fingerprint for s in segments],
        )

    def __len__(self) -> int:
        return len(self.keys)

    def total(self) -> int:
        return sum(self.tokens)

    def sliced(self, start: int, stop: int | None = None) -> SegmentTable:
        return SegmentTable(
            keys=self.keys[start:stop],
            tokens=self.tokens[start:stop],
            fingerprints=self.fingerprints[start:stop],
        )


class RecordUsage(_Model):
    """The provider-reported usage of the reply (pi's convention: `input` excludes `cacheRead`)."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0


PROVIDER_CACHE_MISS = "anthropic_cache_miss"
"""The reply diagnostic holding Anthropic's `cache_miss_reason` (`anthropic_events`)."""


class ProviderMiss(_Model):
    """Why the provider itself says the request missed its cache (Anthropic's `cache_miss_reason`, asked
    for with `compat.sendCacheMissDiagnostics`): `messages_changed`, `system_changed`, `tools_changed`,
    `model_changed`, `previous_message_not_found` or `unavailable`, with the tokens it could not read."""

    reason: str
    missed_tokens: int | None = None


def provider_miss(response: AssistantMessage) -> ProviderMiss | None:
    for diagnostic in response.diagnostics or []:
        details = diagnostic.get("details") if isinstance(diagnostic, dict) else None
        if diagnostic.get("type") != PROVIDER_CACHE_MISS or not isinstance(details, dict):
            continue
        reason = details.get("reason")
        missed = details.get("missedTokens")
        if isinstance(reason, str) and reason:
            count = missed if isinstance(missed, int) and not isinstance(missed, bool) else None
            return ProviderMiss(reason=reason, missed_tokens=count)
    return None


class WireFacts(_Model):
    """What the provider's cache keys on besides the segments' bytes."""

    api: str
    cache_key: str | None = None
    """The `prompt_cache_key` sent (None: none was)."""
    markers: list[Marker] = Field(default_factory=list)
    """(segment index, block end) of each Anthropic cache marker, in block order; empty where the dialect
    sends none."""
    reasoning: list[tuple[str, str]] = Field(default_factory=list)
    """(message key, how that reply's reasoning was replayed: `wire_facts.replayed_reasoning`), in request
    order; replies without reasoning are left out. Pairs, not a mapping: entry ids are no JSON keys in
    pi's camelCase files."""

    def replayed(self, key: str) -> str | None:
        return next((how for message, how in self.reasoning if message == key), None)


class RequestRecord(_Model):
    version: int = RECORD_VERSION
    kind: RequestKind = "turn"
    provider: str
    model: str
    time: int
    """Milliseconds since the epoch when the request was sent."""
    system: SegmentTable = Field(default_factory=SegmentTable)
    tools: SegmentTable = Field(default_factory=SegmentTable)
    messages: SegmentTable = Field(default_factory=SegmentTable)
    chain: list[str] = Field(default_factory=list)
    """Rolling fingerprint over system, tools, messages in that order (one link per segment)."""
    usage: RecordUsage | None = None
    stop_reason: str | None = None
    ttft_ms: float | None = None
    duration_ms: float | None = None
    base: str | None = None
    base_keep: int = 0
    wire: WireFacts | None = None
    """None in records written before it was kept: their dialect facts are unknown."""
    provider_miss: ProviderMiss | None = None
    """The provider's own account of a cache miss, when it gave one."""

    @property
    def prefix_length(self) -> int:
        """Segments before the first message (system parts + tool schemas)."""
        return len(self.system) + len(self.tools)

    def fingerprints(self) -> list[str]:
        return [*self.system.fingerprints, *self.tools.fingerprints, *self.messages.fingerprints]

    def token_columns(self) -> list[int]:
        return [*self.system.tokens, *self.tools.tokens, *self.messages.tokens]

    def total_tokens(self) -> int:
        return self.system.total() + self.tools.total() + self.messages.total()

    def same_model(self, other: RequestRecord) -> bool:
        return self.provider == other.provider and self.model == other.model


def build_request_record(
    *,
    model: ModelConfig,
    system_prompt: SystemPrompt | str,
    tools: Sequence[ToolSpec],
    messages: Sequence[AgentMessage],
    entry_ids: Sequence[str | None],
    kind: RequestKind = "turn",
    response: AssistantMessage | None = None,
    ttft_ms: float | None = None,
    duration_ms: float | None = None,
    time_ms: int | None = None,
    previous: RequestRecord | None = None,
    cache: MeasureCache | None = None,
    cache_key: str | None = None,
) -> RequestRecord:
    """Measure one request from what was sent: the prompt segments, the tool specs, and the agent
    messages with their entry ids (converted and transformed for `model` exactly as the provider does,
    in its dialect), and the `prompt_cache_key` it carried.

    `previous` (a full record of the same session) lets the chain reuse its shared links; `response`
    supplies usage and stop reason once the reply is complete.
    """
    measure = cache or DEFAULT_CACHE
    dialect = wire_dialect(model)
    system = system_segments(system_prompt, measure)
    tool_list = tool_segments(tools, measure, dialect)
    outgoing = sent_messages(messages, entry_ids, model)
    measured = measure.messages([message.sent for message in outgoing], dialect)
    sent = [
        Segment("message", message.key, item.tokens, item.fingerprint)
        for message, item in zip(outgoing, measured, strict=True)
    ]
    prompt_text = system_prompt if isinstance(system_prompt, str) else system_prompt.text
    wire = _wire_facts(
        model,
        dialect,
        cache_key,
        outgoing,
        measured,
        has_system_text=bool(prompt_text),
        system_count=len(system),
        tool_count=len(tool_list),
    )
    fingerprints = [segment.fingerprint for segment in (*system, *tool_list, *sent)]
    shared: list[str] = []
    if previous is not None and previous.base is None:
        same = _leading_equal(previous.fingerprints(), fingerprints)
        shared = previous.chain[:same]
    usage = None
    if response is not None:
        raw = response.usage
        usage = RecordUsage(
            input=raw.input, output=raw.output, cache_read=raw.cache_read, cache_write=raw.cache_write
        )
    return RequestRecord(
        kind=kind,
        provider=model.provider,
        model=model.id,
        time=time_ms if time_ms is not None else int(time.time() * 1000),
        system=SegmentTable.of(system),
        tools=SegmentTable.of(tool_list),
        messages=SegmentTable.of(sent),
        chain=extend_chain(shared, fingerprints),
        usage=usage,
        stop_reason=response.stop_reason if response is not None else None,
        provider_miss=provider_miss(response) if response is not None else None,
        ttft_ms=ttft_ms,
        duration_ms=duration_ms,
        wire=wire,
    )


def prefix_size(
    model: ModelConfig | None,
    system_prompt: SystemPrompt | str,
    tools: Sequence[ToolSpec],
    cache: MeasureCache | None = None,
) -> int:
    """What a request's system prompt parts and tool schemas count, as its record would measure them."""
    measure = cache or DEFAULT_CACHE
    dialect = wire_dialect(model) if model is not None else PLAIN
    segments = (*system_segments(system_prompt, measure), *tool_segments(tools, measure, dialect))
    return sum(segment.tokens for segment in segments)


def messages_size(
    model: ModelConfig | None,
    messages: Sequence[AgentMessage],
    entry_ids: Sequence[str | None],
    cache: MeasureCache | None = None,
) -> int:
    """What a request's messages count, as its record would measure them (converted and transformed for
    `model`, failed replies left out)."""
    measure = cache or DEFAULT_CACHE
    dialect = wire_dialect(model) if model is not None else PLAIN
    outgoing = sent_messages(messages, entry_ids, model)
    return sum(item.tokens for item in measure.messages([message.sent for message in outgoing], dialect))


def _wire_facts(
    model: ModelConfig,
    dialect: WireDialect,
    cache_key: str | None,
    outgoing: Sequence[SentMessage],
    measured: Sequence[MessageMeasure],
    *,
    has_system_text: bool,
    system_count: int,
    tool_count: int,
) -> WireFacts:
    markers: list[Marker] = []
    if dialect.compat.cache_control_format == "anthropic" and model.api == "openai-completions":
        markers = marker_positions(
            system_segments=system_count,
            has_system_text=has_system_text,
            tool_count=tool_count,
            messages=[item.wire for item in measured],
        )
    reasoning: list[tuple[str, str]] = []
    for message, item in zip(outgoing, measured, strict=True):
        replayed = item.reasoning
        if message.source is not message.sent and message.source is not None:
            # Transformed for this model (another model's reply): its thinking went as text or nowhere.
            replayed = replayed_reasoning(message.source, message.sent, item.wire, dialect)
        if replayed is not None:
            reasoning.append((message.key, replayed))
    return WireFacts(api=model.api, cache_key=cache_key, markers=markers, reasoning=reasoning)


def _leading_equal(a: Sequence[str], b: Sequence[str]) -> int:
    count = 0
    for left, right in zip(a, b, strict=False):
        if left != right:
            break
        count += 1
    return count


# --- persistence ----------------------------------------------------------------------------------


def record_entry_data(record: RequestRecord, base: tuple[str, RequestRecord] | None = None) -> dict[str, Any]:
    """The `data` of the custom entry. With `base` (entry id, full record) the repeated leading
    messages are stored as a reference when the system prompt and tool schemas are unchanged."""
    stored = record
    if base is not None and base[1].base is None:
        base_id, base_record = base
        prefix = record.prefix_length
        common = common_prefix_length(base_record.chain, record.chain)
        if base_record.prefix_length == prefix and common > prefix:
            keep = _leading_equal(base_record.messages.keys[: common - prefix], record.messages.keys)
            if keep > 0:
                stored = record.model_copy(
                    update={
                        "messages": record.messages.sliced(keep),
                        "chain": record.chain[prefix + keep :],
                        "base": base_id,
                        "base_keep": keep,
                        "wire": _new_messages_wire(record.wire, record.messages.keys[keep:]),
                    }
                )
    return stored.model_dump(mode="json", by_alias=True, exclude_none=True)


def parse_request_record(data: Any) -> RequestRecord | None:
    """A stored record, or None if `data` is not one this version understands."""
    if not isinstance(data, dict):
        return None
    try:
        record = RequestRecord.model_validate(data)
    except ValidationError:
        return None
    return record if record.version == RECORD_VERSION else None


def expand_record(record: RequestRecord, base: RequestRecord | None) -> RequestRecord | None:
    """The full record of a stored delta (None if its base is missing or itself unresolved)."""
    if record.base is None:
        return record
    if base is None or base.base is not None or record.base_keep > len(base.messages):
        return None
    keep = record.base_keep
    prefix = record.prefix_length
    head = base.messages.sliced(0, keep)
    messages = SegmentTable(
        keys=head.keys + record.messages.keys,
        tokens=head.tokens + record.messages.tokens,
        fingerprints=head.fingerprints + record.messages.fingerprints,
    )
    chain = base.chain[: prefix + keep] + record.chain
    wire = None
    if record.wire is not None and base.wire is not None:  # else the kept messages' reasoning is unknown
        reasoning = _reasoning_of(base.wire, head.keys) + record.wire.reasoning
        wire = record.wire.model_copy(update={"reasoning": reasoning})
    update = {"messages": messages, "chain": chain, "base": None, "base_keep": 0, "wire": wire}
    return record.model_copy(update=update)


def _new_messages_wire(wire: WireFacts | None, keys: Sequence[str]) -> WireFacts | None:
    """A delta's wire facts: the reasoning of its own new messages only (the base holds the rest)."""
    return wire.model_copy(update={"reasoning": _reasoning_of(wire, keys)}) if wire is not None else None


def _reasoning_of(wire: WireFacts, keys: Sequence[str]) -> list[tuple[str, str]]:
    wanted = set(keys)
    return [(key, how) for key, how in wire.reasoning if key in wanted]
