"""Asked when a session opens on a project whose settings choose how commands run: trust it, or not now.

The project's `.pi-tui/settings.json` came with the repository; its code-running keys (approval, the shell,
the shell's prefix) are ignored until the user trusts the project with that file's exact content
(`pi_tui.config.project_trust`). The dialog shows each ignored key with its value, so the user decides on
what would run. "Not now" (n, Esc) keeps them ignored for this run and asks again next time.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Label, Static

from pi_tui.config.project_trust import UntrustedProject
from pi_tui.session.agent_session import AgentSession
from pi_tui.tui.screens.dialog import Dialog

VALUE_CHARS = 400
"""A value longer than this (a prefix script) is cut in the dialog; the file holds all of it."""


def ignored_lines(untrusted: UntrustedProject) -> list[str]:
    lines = []
    for key, value in untrusted.values:
        text = json.dumps(value, ensure_ascii=False)
        if len(text) > VALUE_CHARS:
            text = text[: VALUE_CHARS - 1] + "…"
        lines.append(f"{key}: {text}")
    return lines


class TrustProjectDialog(Dialog[bool]):
    """Dismissed with True (trust this project's settings as they are now) or False (not now)."""

    DEFAULT_CSS = """
    TrustProjectDialog VerticalScroll { background: $panel; }
    TrustProjectDialog .trust-intro { padding: 0 0 1 0; }
    TrustProjectDialog .dialog-hint { padding: 1 0 0 0; }
    """
    DEFAULT_CLASSES = "-warning"
    BINDINGS = [
        Binding("t", "answer(True)", "Trust"),
        Binding("n", "answer(False)", "Not now"),
        Binding("escape", "answer(False)", "Not now", show=False),
    ]

    def __init__(self, untrusted: UntrustedProject) -> None:
        super().__init__("Trust this project's settings?")
        self.untrusted = untrusted

    def compose_body(self) -> ComposeResult:
        intro = (
            f"{self.untrusted.settings_path} sets how commands run. Anyone who can change this "
            "repository can change the file, so these settings are ignored until you trust it:"
        )
        yield Static(intro, classes="trust-intro", markup=False)
        with VerticalScroll():
            yield Static("\n".join(ignored_lines(self.untrusted)), id="trust-body", markup=False)
        yield Label(
            "t: trust (remembered until the file changes) · n / Esc: not now (ignored this time)",
            classes="dialog-hint",
        )

    def action_answer(self, trust: bool) -> None:
        self.dismiss(trust)


class ProjectTrustQuestion:
    """Asks once per settings content and process, when a session opens (at start or on a switch) on a
    project whose code-running settings were left out. Trusting records it, re-reads the session's
    settings (the shell and approval apply from the next call) and says so."""

    def __init__(self) -> None:
        self._asked: set[str] = set()

    def ask(self, screen: Screen[Any], session: AgentSession, then: Callable[[], Awaitable[None]]) -> bool:
        """Push the question for `session` if it needs one; `then` runs once it is answered. False (and
        `then` is not called) when there is nothing to ask."""
        untrusted = session.resources.untrusted_project
        if untrusted is None or untrusted.digest in self._asked:
            return False
        self._asked.add(untrusted.digest)

        async def answered(trust: bool | None) -> None:
            try:
                if trust:
                    await _trust(screen, session, untrusted)
            finally:
                await then()

        screen.app.push_screen(TrustProjectDialog(untrusted), callback=answered)
        return True


async def _trust(screen: Screen[Any], session: AgentSession, untrusted: UntrustedProject) -> None:
    try:
        await asyncio.to_thread(untrusted.trust)
    except OSError as error:
        screen.notify(f"Cannot record the trust: {error}", severity="error", timeout=10, markup=False)
        return
    await session.reload()
    applied = session.resources.untrusted_project is None
    text = (
        f"Trusted this project: {', '.join(untrusted.keys)} now apply."
        if applied
        else ("The settings file changed while you were asked; it is still not trusted.")
    )
    screen.notify(text, severity="information" if applied else "warning", timeout=8, markup=False)
