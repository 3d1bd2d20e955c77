"""Where the file tools' blocking work runs: a daemon thread the run can walk away from.

`asyncio.to_thread` uses the loop's default executor, whose threads `asyncio.run` joins before the
process may exit: one read stuck in the kernel (a file system that hangs, a scan of a huge file) would
hold off Esc, SIGINT and SIGTERM for as long as it lasts. Here the caller stops waiting the moment the
run is aborted, and a process that is told to end does not wait for the thread at all.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from typing import TypeVar

from pi_tui.ai.abort import AbortSignal

T = TypeVar("T")


class FileWorkAborted(Exception):
    """The run was aborted before the file work finished (the thread is left to end on its own)."""


def _settle(future: asyncio.Future[T], result: T | None, error: BaseException | None) -> None:
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)  # type: ignore[arg-type]


async def run_file_work(signal: AbortSignal, function: Callable[[], T]) -> T:
    """`function()` in a daemon thread; `FileWorkAborted` as soon as `signal` is aborted."""
    if signal.aborted:
        raise FileWorkAborted
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def work() -> None:
        result: T | None = None
        error: BaseException | None = None
        try:
            result = function()
        except BaseException as raised:  # handed to the awaiting task, which re-raises it
            error = raised
        with contextlib.suppress(RuntimeError):  # the loop has closed: nobody is waiting any more
            loop.call_soon_threadsafe(_settle, future, result, error)

    threading.Thread(target=work, name="pi-tui file work", daemon=True).start()
    aborted: asyncio.Future[None] = asyncio.ensure_future(signal.wait())
    try:
        await asyncio.wait((future, aborted), return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        future.cancel()
        raise
    finally:
        aborted.cancel()
    if not future.done():
        future.cancel()
        raise FileWorkAborted
    return future.result()
