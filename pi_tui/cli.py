"""Command line entry point: parse arguments, pick a mode."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    del args
    return 0
