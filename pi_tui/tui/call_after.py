"""A one-shot delay that may run late but is never skipped.

Textual's `set_timer` is a timer that skips the ticks it missed. When the process is held up between such
a timer's start and its first look at the clock (pre-empted on a busy machine, another thread holding the
GIL), its only tick counts as missed and the callback never runs. Code that arms one delay at a time and
waits for its callback before arming the next then waits for ever: parking stopped for the rest of the
session, a command's live output stopped redrawing. asyncio's `call_later` runs its callback late instead.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from textual.message_pump import MessagePump


def call_after(node: MessagePump, seconds: float, callback: Callable[[], object]) -> asyncio.TimerHandle:
    """Run `callback` in `node`'s message loop once `seconds` have passed (nothing if `node` has closed
    by then); the handle's `cancel()` stops it."""
    return asyncio.get_running_loop().call_later(seconds, node.call_next, callback)
