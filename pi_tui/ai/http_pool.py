"""One HTTP connection pool per provider and base URL, kept for as long as its owner lives.

Model calls reuse their TCP/TLS connections instead of opening one per request. The pool holds no
credentials: a request makes its own light SDK client with its own key and lends it the shared HTTP
client, and the key travels in that request's headers only. The owner (the session runtime, or a
headless run) closes the pool when it ends; `reset()` (on `/reload`) lets go of the current
connections without cutting a reply that is still streaming: a client in use is closed by its last
request.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, Protocol

from pi_tui.ai.warm_up import sdk_imported


class AsyncHttpClient(Protocol):
    async def aclose(self) -> None: ...


ClientFactory = Callable[[], AsyncHttpClient]


class HttpPoolClosedError(RuntimeError):
    """A request after the owner closed the pool (the process is ending)."""


@dataclass(eq=False)
class _Slot:
    client: AsyncHttpClient
    users: int = 0
    retired: bool = False
    closed: bool = False

    async def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        # A connection that fails to close cleanly is gone either way; it must not fail the caller.
        with contextlib.suppress(Exception):
            await self.client.aclose()


def _sdk_http_client() -> AsyncHttpClient:
    from pi_tui.ai.openai_client import new_http_client

    client: AsyncHttpClient = new_http_client()
    return client


class HttpPool:
    """Shared HTTP clients keyed by (provider, base URL); see the module docstring."""

    def __init__(self, factory: ClientFactory | None = None) -> None:
        self._factory = factory or _sdk_http_client
        self._before_new_client: Callable[[], Awaitable[None]] | None = (
            sdk_imported if factory is None else None
        )
        """The SDK's client is made after its import, which is waited for off the event loop."""
        self._slots: dict[tuple[str, str], _Slot] = {}
        self._draining: set[_Slot] = set()
        """Retired by `reset()` while a request still used them."""
        self._closed = False

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def open_clients(self) -> int:
        """HTTP clients not yet closed, the ones a reset left to their last request included."""
        return len(self._slots) + len(self._draining)

    @asynccontextmanager
    async def lease(self, provider: str, base_url: str) -> AsyncIterator[Any]:
        """The shared client for one request; hold it until the response is closed."""
        if self._closed:
            raise HttpPoolClosedError("the HTTP connection pool is closed")
        key = (provider, base_url)
        if key not in self._slots and self._before_new_client is not None:
            await self._before_new_client()
        slot = self._slots.get(key)
        if slot is None:
            slot = self._slots[key] = _Slot(self._factory())
        slot.users += 1
        try:
            yield slot.client
        finally:
            slot.users -= 1
            if slot.retired and slot.users == 0:
                self._draining.discard(slot)
                await slot.close()

    async def reset(self) -> None:
        """Drop every connection: idle clients close now, busy ones when their request ends; later
        requests get new clients."""
        slots = list(self._slots.values())
        self._slots = {}
        idle: list[_Slot] = []
        for slot in slots:
            slot.retired = True
            if slot.users:
                self._draining.add(slot)
            else:
                idle.append(slot)
        await asyncio.gather(*(slot.close() for slot in idle))

    async def aclose(self) -> None:
        """Close every client, busy or not (the owner is ending); later leases raise."""
        self._closed = True
        slots = [*self._slots.values(), *self._draining]
        self._slots, self._draining = {}, set()
        for slot in slots:
            slot.retired = True
        await asyncio.gather(*(slot.close() for slot in slots))
