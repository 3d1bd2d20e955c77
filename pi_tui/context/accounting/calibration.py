"""Calibration: token estimates corrected by what the provider reported for the last request.

Estimates are tiktoken counts, which are not the model's tokenizer, and a server may send the model less
than it was given (tool schemas a model without tool support never sees) or more (its chat template).
The newest turn record with a reported prompt anchors the correction, per segment kind where the records
allow it: when an earlier record sent the same prefix (system prompt parts and tool schemas, compared by
fingerprint) with a different amount of messages, the change in the reported prompt over the change in
the estimated messages is the messages' ratio, and what the last reported prompt leaves is the prefix's.
So a server dropping 600 tokens of tools lowers the prefix figure, not every message. With a single
record both kinds share its ratio. Either way the calibrated estimate of the last request equals the
prompt it reported; ratios outside `RATIO_RANGE` are taken for a server's bad arithmetic, not ignored
schemas, and leave the estimates as they are.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, TypeAlias

from pi_tui.context.accounting.record import RequestRecord

RATIO_RANGE = (0.25, 4.0)
"""Message ratios (and whole-request ratios) believed; a prefix ratio may also fall to 0."""
MIN_MESSAGE_SPREAD = 32
"""Estimated message tokens two records must differ by for their difference to give a ratio."""
LOOKBACK = 8
"""How many older records are searched for one that sent the same prefix."""

CalibrationBasis: TypeAlias = Literal["none", "request", "per-kind"]


@dataclass(frozen=True)
class Calibration:
    prefix_ratio: float = 1.0
    message_ratio: float = 1.0
    basis: CalibrationBasis = "none"
    """`none`: no usable reported prompt; `request`: one ratio from the last request; `per-kind`: the
    prefix and the messages each have their own."""

    def prefix(self, tokens: int) -> int:
        return round(tokens * self.prefix_ratio)

    def messages(self, tokens: int) -> int:
        return round(tokens * self.message_ratio)

    def request(self, prefix_tokens: int, message_tokens: int) -> int:
        """A whole request (rounded once, so the last request comes out exactly as reported)."""
        return round(prefix_tokens * self.prefix_ratio + message_tokens * self.message_ratio)


UNCALIBRATED = Calibration()


def reported_prompt(record: RequestRecord) -> int:
    """The prompt the provider reported for `record` (0: none reported)."""
    usage = record.usage
    return usage.input + usage.cache_read + usage.cache_write if usage is not None else 0


def prefix_tokens(record: RequestRecord) -> int:
    return record.system.total() + record.tools.total()


def _believable(ratio: float, low: float = RATIO_RANGE[0]) -> bool:
    return low <= ratio <= RATIO_RANGE[1]


def _same_prefix(a: RequestRecord, b: RequestRecord) -> bool:
    return (
        a.same_model(b)
        and a.system.fingerprints == b.system.fingerprints
        and a.tools.fingerprints == b.tools.fingerprints
    )


def _per_kind(last: RequestRecord, earlier: Sequence[RequestRecord]) -> Calibration | None:
    reported = reported_prompt(last)
    messages = last.messages.total()
    prefix = prefix_tokens(last)
    if prefix <= 0:
        return None
    for other in reversed(earlier[-LOOKBACK:]):
        spread = messages - other.messages.total()
        if not _same_prefix(last, other) or reported_prompt(other) <= 0 or abs(spread) < MIN_MESSAGE_SPREAD:
            continue
        message_ratio = (reported - reported_prompt(other)) / spread
        prefix_ratio = (reported - message_ratio * messages) / prefix
        if _believable(message_ratio) and _believable(prefix_ratio, 0.0):
            return Calibration(prefix_ratio, message_ratio, "per-kind")
        return None
    return None


def calibrate(records: Sequence[RequestRecord]) -> Calibration:
    """The calibration the turn `records` of a branch (oldest first) give; see the module docstring."""
    for index in range(len(records) - 1, -1, -1):
        last = records[index]
        reported = reported_prompt(last)
        estimated = last.total_tokens()
        if reported <= 0 or estimated <= 0:
            continue
        per_kind = _per_kind(last, records[:index])
        if per_kind is not None:
            return per_kind
        ratio = reported / estimated
        return Calibration(ratio, ratio, "request") if _believable(ratio) else UNCALIBRATED
    return UNCALIBRATED
