"""Per-file serialisation of edit and write (pi's mutation queue keyed by realpath)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

_locks: dict[str, tuple[asyncio.Lock, int]] = {}


@asynccontextmanager
async def file_mutation_lock(path: str) -> AsyncIterator[None]:
    """Hold the lock for `path` (symlinks resolved), so concurrent edits of one file run in turn."""
    key = await asyncio.to_thread(os.path.realpath, path)
    lock, users = _locks.get(key, (asyncio.Lock(), 0))
    _locks[key] = (lock, users + 1)
    try:
        async with lock:
            yield
    finally:
        lock, users = _locks[key]
        if users <= 1:
            del _locks[key]
        else:
            _locks[key] = (lock, users - 1)
