"""Waiting helpers for Pilot tests: never sleep, wait for the app's own work to finish."""

from __future__ import annotations

import asyncio
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


async def submit(pilot: Pilot[Any], text: str) -> None:
    """Send `text` from the chat editor and wait until the session is idle again."""
    from pi_tui.tui.widgets.prompt_area import PromptArea

    # Long texts are put in the editor directly: typing them key by key would take minutes.
    pilot.app.screen.query_one(PromptArea).text = text
    await pilot.press("enter")
    await asyncio.sleep(0.05)
    await pilot.app.runtime.session.wait_for_idle()  # type: ignore[attr-defined]
    await settle(pilot)
