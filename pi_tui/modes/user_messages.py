"""How the command line tells the user something went wrong: one line on stderr, prefixed `pi-tui: `."""

from __future__ import annotations

from typing import TextIO

PREFIX = "pi-tui: "


def report(stream: TextIO, message: str) -> None:
    """Write `message` as one `pi-tui: ` line (a message that already carries the prefix keeps one)."""
    stream.write(f"{message if message.startswith(PREFIX) else PREFIX + message}\n")
