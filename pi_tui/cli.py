"""Command line entry point: parse arguments, hand over to a mode.

Inspection subcommands (`pi-tui sessions …`) are dispatched on the first word so that plain
positional messages (`pi-tui "fix the tests"`) keep working alongside them.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from pi_tui import __version__

SUBCOMMAND_HELP = {
    "sessions": "list sessions of this directory (--all: every directory, pi's too)",
}


def _subcommands() -> dict[str, Callable[[list[str]], int]]:
    # Imported here so `pi-tui --version` stays instant.
    from pi_tui.modes.sessions_command import run_sessions_command

    return {"sessions": run_sessions_command}


def build_parser() -> argparse.ArgumentParser:
    epilog = "subcommands:\n" + "\n".join(
        f"  pi-tui {name:<10} {text}" for name, text in SUBCOMMAND_HELP.items()
    )
    parser = argparse.ArgumentParser(
        prog="pi-tui",
        description="A terminal coding agent whose context management you can see.",
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"pi-tui {__version__}")
    parser.add_argument(
        "--session-dir",
        metavar="DIR",
        help="folder holding the session folders (default: $PI_TUI_HOME/sessions)",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in SUBCOMMAND_HELP:
        return _subcommands()[args[0]](args[1:])
    options = build_parser().parse_args(args)
    from pi_tui.tui.launch import run_interactive

    return run_interactive(session_dir=options.session_dir)


if __name__ == "__main__":
    raise SystemExit(main())
