"""How the command line tells the user something went wrong: one line on stderr, prefixed `pi-tui: `."""

from __future__ import annotations

from typing import TextIO

PREFIX = "pi-tui: "


def report(stream: TextIO, message: str) -> None:
    """Write `message` as one `pi-tui: ` line (a message that already carries the prefix keeps one)."""
    stream.write(f"{message if message.startswith(PREFIX) else PREFIX + message}\n")


def os_error_text(error: OSError) -> str:
    """An operating-system error in words: what failed and on which file, without Python's `[Errno N]`."""
    if type(error).__str__ is not OSError.__str__ or error.strerror is None:
        return str(error)  # a message of pi-tui's own (it names the file itself)
    where = f": {error.filename}" if error.filename is not None else ""
    return f"{error.strerror}{where}"
