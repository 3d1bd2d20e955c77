"""A cancellation signal shared by a run: the provider stream and running tools watch the same one."""

from __future__ import annotations

import asyncio
from collections.abc import Callable


class AbortSignal:
    """Set once; everything holding it stops as soon as it can (pi's AbortSignal)."""

    def __init__(self) -> None:
        self._event = asyncio.Event()
        self._callbacks: list[Callable[[], None]] = []
        self.reason: str | None = None

    @property
    def aborted(self) -> bool:
        return self._event.is_set()

    def abort(self, reason: str = "aborted") -> None:
        if self._event.is_set():
            return
        self.reason = reason
        self._event.set()
        callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback()

    def on_abort(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Run `callback` when aborted (at once if already). Returns a function that unregisters it."""
        if self.aborted:
            callback()
            return lambda: None
        self._callbacks.append(callback)

        def remove() -> None:
            if callback in self._callbacks:
                self._callbacks.remove(callback)

        return remove

    async def wait(self) -> None:
        await self._event.wait()
