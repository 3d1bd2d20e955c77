"""The request record (R8.1): what one model call sent, measured, stored as a `pi-tui.request` entry.

A record holds, per segment (system prompt parts, tool schemas, messages), a key, a token count and a
fingerprint, plus the rolling prefix chain over all segments in request order, the provider's usage and
the timings. It never holds payload text or keys: the text is reconstructable from the session.

On disk a record may be a delta: `base` names the custom entry of an earlier record and `baseKeep` how
many of its leading message segments this request repeated, so an append-only turn stores only its new
messages. `expand_record` turns the delta back into a full record.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic.alias_generators import to_camel

from pi_tui.ai.messages import AgentMessage, AssistantMessage
from pi_tui.ai.stream import ToolSpec
from pi_tui.config.model_config import ModelConfig
from pi_tui.context.accounting.fingerprints import common_prefix_length, extend_chain
from pi_tui.context.accounting.measure import (
    MeasureCache,
    Segment,
    keyed_sent_messages,
    message_segments,
    system_segments,
    tool_segments,
)
from pi_tui.context.system_prompt import SystemPrompt

REQUEST_CUSTOM_TYPE = "pi-tui.request"
RECORD_VERSION = 1
RequestKind: TypeAlias = Literal["turn", "summary", "branch-summary"]

DEFAULT_CACHE = MeasureCache()
"""Shared by every caller that does not bring its own cache."""


class _Model(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, serialize_by_alias=True, extra="ignore"
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
) -> RequestRecord:
    """Measure one request from what was sent: the prompt segments, the tool specs, and the agent
    messages with their entry ids (converted and transformed for `model` exactly as the provider does).

    `previous` (a full record of the same session) lets the chain reuse its shared links; `response`
    supplies usage and stop reason once the reply is complete.
    """
    measure = cache or DEFAULT_CACHE
    system = system_segments(system_prompt, measure)
    tool_list = tool_segments(tools, measure)
    sent = message_segments(keyed_sent_messages(messages, entry_ids, model), measure)
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
        ttft_ms=ttft_ms,
        duration_ms=duration_ms,
    )


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
    return record.model_copy(update={"messages": messages, "chain": chain, "base": None, "base_keep": 0})
