"""Live output of a running command, delivered at most ten times a second.

Both the bash tool (updates to the agent) and the user's `!` commands (previews in the chat) stream a
command's tail this way. A delivery in progress when the command ends is finished, never cancelled: the
agent awaits every update it handed out, and a cancellation under it ended the whole run.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

UPDATE_INTERVAL_SECONDS = 0.1


class OutputTicker:
    """Calls `deliver` every `interval` seconds when output arrived since the last call."""

    def __init__(
        self, deliver: Callable[[], Awaitable[None]], *, interval: float = UPDATE_INTERVAL_SECONDS
    ) -> None:
        self._deliver = deliver
        self._interval = interval
        self._dirty = False
        self._task: asyncio.Task[None] | None = None

    def mark_dirty(self) -> None:
        self._dirty = True

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._loop())

    async def stop(self) -> None:
        """End the ticks; a delivery under way goes on to its end on its own."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _loop(self) -> None:
        while True:
            await asyncio.sleep(self._interval)
            if self._dirty:
                self._dirty = False
                await asyncio.shield(self._deliver())
