"""Waiting helpers for Pilot tests: never sleep, wait for the app's own work to finish."""

from __future__ import annotations

from typing import Any

from textual._xterm_parser import XTermParser
from textual.app import App
from textual.pilot import Pilot
from textual.worker import WorkerCancelled

from tests.support.waiting import until

MAX_ROUNDS = 10


async def settle(pilot: Pilot[Any]) -> None:
    """Wait until every session event is on screen and every worker ended (an exclusive worker replaced
    by a newer one counts as done)."""
    await until(
        lambda: all(getattr(screen, "caught_up", True) for screen in pilot.app.screen_stack),
        pilot=pilot,
        what="the chat screen to apply every session event",
    )
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
    await settle(pilot)  # the prompt runs in a worker: it has ended here
    await pilot.app.runtime.session.wait_for_idle()  # type: ignore[attr-defined]
    await settle(pilot)


def shown_notices(app: App[Any]) -> list[str]:
    """The notifications on screen, as the user reads them (title and message). Textual shows none in
    tests unless the app runs with `run_test(notifications=True)`; each shows a moment after it is sent."""
    return [str(toast.render()) for toast in app.screen.query("Toast")]


def terminal_input(pilot: Pilot[Any], data: str) -> None:
    """Hand the app `data` as a terminal does with one read of a fast burst (quick typing, a paste, tmux
    `send-keys`): Textual's own parser turns the bytes into events, and every event is queued at once,
    none waiting for the one before it to be handled (`Pilot.press` waits after every key). `\r` is
    Enter, `\x1b` Esc, `\x1b[200~…\x1b[201~` a bracketed paste."""
    parser = XTermParser(debug=False)
    for event in [*parser.feed(data), *parser.feed("")]:
        event.set_sender(pilot.app)
        pilot.app.post_message(event)
