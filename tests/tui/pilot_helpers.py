"""Waiting helpers for Pilot tests: never sleep, wait for the app's own work to finish."""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot
from textual.worker import WorkerCancelled

MAX_ROUNDS = 10


async def settle(pilot: Pilot[Any]) -> None:
    """Wait for every worker; an exclusive worker replaced by a newer one counts as done."""
    for _ in range(MAX_ROUNDS):
        try:
            await pilot.app.workers.wait_for_complete()
            break
        except WorkerCancelled:
            continue
    await pilot.pause()
