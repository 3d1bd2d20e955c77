"""Aborting a provider's reply at its first text, as Esc does while a reply streams."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass

from pi_tui.ai.abort import AbortSignal
from pi_tui.ai.messages import AssistantMessage
from pi_tui.ai.stream import StreamEvent

ENDS_WITHIN_SECONDS = 20.0


@dataclass
class AbortedReply:
    message: AssistantMessage
    aborted_at: float
    """`time.monotonic()` when the signal fired: the server's `client_closed_at` must not come before it."""
    event_types: list[str]


async def abort_at_first_text(events: AsyncIterator[StreamEvent], signal: AbortSignal) -> AbortedReply:
    """Read `events`, fire `signal` at the first text delta, return the terminal message.

    Gives up after `ENDS_WITHIN_SECONDS`: callers stall the reply for longer than that (their client
    timeout is longer still), so only the abort can end it in time."""

    async def read() -> AbortedReply:
        aborted_at: float | None = None
        seen: list[str] = []
        async for event in events:
            seen.append(event.type)
            if event.type == "text_delta" and aborted_at is None:
                aborted_at = time.monotonic()
                signal.abort()
            if event.message is not None:
                assert aborted_at is not None, "the reply ended before any text"
                return AbortedReply(event.message, aborted_at, seen)
        raise AssertionError("no terminal event")

    return await asyncio.wait_for(read(), ENDS_WITHIN_SECONDS)
