"""The key given on the command line: `--api-key-file PATH` (preferred) or `--api-key KEY`.

A key in the arguments can be read by every process of the machine (`ps`, `/proc/<pid>/cmdline`) for as
long as pi-tui runs, so `--api-key` is still accepted but earns a warning; a file (or the environment,
or models.json) keeps it out of sight.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TextIO

API_KEY_VISIBLE_WARNING = (
    "pi-tui: warning: --api-key is visible to other processes (ps, /proc/<pid>/cmdline); "
    "prefer --api-key-file PATH or the OPENAI_API_KEY variable"
)


class ApiKeyFileError(Exception):
    """`--api-key-file` cannot give a key; the message is one line for the user."""


def read_api_key_file(path: str) -> str:
    """The key in `path`, without the surrounding whitespace an editor or `echo` leaves."""
    try:
        text = Path(path).expanduser().read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        raise ApiKeyFileError(f"cannot read --api-key-file {path}: {reason}") from None
    key = text.strip()
    if not key:
        raise ApiKeyFileError(f"--api-key-file {path} is empty")
    if any(character.isspace() for character in key):
        raise ApiKeyFileError(f"--api-key-file {path} holds more than one word; put only the key in it")
    return key


def add_api_key_options(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """`--api-key-file PATH` and `--api-key KEY`, one or the other."""
    choice = parser.add_mutually_exclusive_group()
    choice.add_argument(
        "--api-key-file",
        metavar="PATH",
        help="read the API key from this file (default: models.json or OPENAI_API_KEY)",
    )
    choice.add_argument(
        "--api-key", metavar="KEY", help="API key; visible to other processes, prefer --api-key-file"
    )


def command_line_key(options: argparse.Namespace, stderr: TextIO) -> str | None:
    """The key `add_api_key_options` parsed (None: none given); `--api-key` earns the warning on
    `stderr`. Raises ApiKeyFileError when the file gives no key."""
    if options.api_key is not None:
        stderr.write(f"{API_KEY_VISIBLE_WARNING}\n")
        return str(options.api_key)
    if options.api_key_file is not None:
        return read_api_key_file(str(options.api_key_file))
    return None
