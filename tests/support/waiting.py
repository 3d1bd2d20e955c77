"""Waiting for a condition in tests: poll until it holds, raise with a description when it never does.

A loop that falls through silently when its condition never comes makes a test pass or fail by luck on a
busy machine; these raise instead. The timeouts are generous on purpose: they bound a hang, they do not
measure speed."""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Callable
from typing import Any, Protocol

DEFAULT_TIMEOUT = 20.0
POLL_SECONDS = 0.02


class Pausing(Protocol):
    """Textual's Pilot: its pause also lets the screen process the updates the wait allowed."""

    async def pause(self, delay: float | None = None) -> Any: ...


class WaitTimeout(AssertionError):
    """The condition never held within the timeout."""


def _describe(condition: Callable[[], object], what: str | None) -> str:
    if what:
        return what
    try:
        return inspect.getsource(condition).strip()
    except (OSError, TypeError):
        return repr(condition)


async def until(
    condition: Callable[[], object],
    timeout: float = DEFAULT_TIMEOUT,  # noqa: ASYNC109 (a poll deadline, not a cancellation scope)
    *,
    what: str | None = None,
    interval: float = POLL_SECONDS,
    pilot: Pausing | None = None,
) -> None:
    """Yield to the event loop until `condition()` is truthy; raise `WaitTimeout` after `timeout` s.
    With a `pilot`, each poll waits through `pilot.pause` so screen updates are processed between polls."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() >= deadline:
            raise WaitTimeout(f"waited {timeout:g} s for: {_describe(condition, what)}")
        if pilot is None:
            await asyncio.sleep(interval)
        else:
            await pilot.pause(interval)


def until_sync(
    condition: Callable[[], object],
    timeout: float = DEFAULT_TIMEOUT,
    *,
    what: str | None = None,
    interval: float = POLL_SECONDS,
) -> None:
    """`until` for code outside an event loop (subprocesses, terminals, threads)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() >= deadline:
            raise WaitTimeout(f"waited {timeout:g} s for: {_describe(condition, what)}")
        time.sleep(interval)
