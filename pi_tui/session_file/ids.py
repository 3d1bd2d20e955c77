"""Identifiers and timestamps in the exact shapes pi writes."""

from __future__ import annotations

import os
import re
import time
import uuid
from collections.abc import Container
from datetime import UTC, datetime, timedelta

ENTRY_ID_LENGTH = 8
SESSION_ID_SHAPE = re.compile(r"[0-9A-Za-z][0-9A-Za-z_-]{0,127}")
"""pi's session ids are UUIDs; what is accepted is the alphabet of ids written by hand or by older tools
that can only ever be one plain folder name: letters, digits, `-` and `_`, starting with a letter or digit,
at most 128 characters (a UUID always is). pi-tui builds the spill and checkpoint paths from the id, so
`/tmp/x`, `../../x` or `.` there would put files wherever a shared session file says."""
ENTRY_ID_ATTEMPTS = 100
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def uuid7(now_ms: int | None = None) -> str:
    """A UUIDv7 string (RFC 9562): 48-bit Unix ms, version 7, 74 random bits; sorts by creation time."""
    ms = int(time.time() * 1000) if now_ms is None else now_ms
    rand = int.from_bytes(os.urandom(10), "big")
    rand_a = rand >> 68  # 12 bits
    rand_b = rand & ((1 << 62) - 1)
    value = (ms & ((1 << 48) - 1)) << 80 | 0x7 << 76 | rand_a << 64 | 0b10 << 62 | rand_b
    return str(uuid.UUID(int=value))


def is_session_id(text: str) -> bool:
    """`text` has the shape of pi's session ids, so it is safe as one path component."""
    return SESSION_ID_SHAPE.fullmatch(text) is not None


def new_entry_id(taken: Container[str]) -> str:
    """pi's `generateId`: 8 hex chars of a random UUID, re-drawn on collision, a full UUID after 100 tries."""
    for _ in range(ENTRY_ID_ATTEMPTS):
        candidate = uuid.uuid4().hex[:ENTRY_ID_LENGTH]
        if candidate not in taken:
            return candidate
    return str(uuid.uuid4())


def iso_timestamp(moment: datetime | None = None) -> str:
    """JavaScript's `new Date().toISOString()`: UTC, milliseconds, `Z` (`2026-11-29T23:04:35.750Z`)."""
    value = (moment or datetime.now(UTC)).astimezone(UTC)
    return value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"


def now_ms() -> int:
    """Unix milliseconds, the unit of every message timestamp."""
    return time.time_ns() // 1_000_000


def iso_to_ms(text: str) -> int | None:
    """`new Date(text).getTime()` for the ISO strings pi writes; None where JavaScript would give NaN."""
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return (parsed - _EPOCH) // timedelta(milliseconds=1)


def file_timestamp(iso: str) -> str:
    """The timestamp part of a session file name: `:` and `.` become `-`."""
    return iso.replace(":", "-").replace(".", "-")
