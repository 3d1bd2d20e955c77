"""Command line entry point: parse arguments, hand over to a mode.

Inspection subcommands (`pi-tui sessions …`) are dispatched on the first word so that plain
positional messages (`pi-tui "fix the tests"`) keep working alongside them.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from pi_tui import __version__
from pi_tui.ai.thinking_levels import THINKING_LEVELS
from pi_tui.config.api_key_option import ApiKeyFileError, add_api_key_options, command_line_key
from pi_tui.config.approval_mode import APPROVAL_MODES

if TYPE_CHECKING:
    # Imported where a run is set up: with them `--version` and `--help` paid for pydantic and the
    # session store (docs/startup.md).
    from pi_tui.modes.run_options import RunOptions

SUBCOMMAND_HELP = {
    "sessions": "list sessions of this directory (--all: every directory, pi's too; --rename, --delete)",
    "context": "what the model sees at a session's leaf: budget, segments, drift, forecast",
    "compactions": "a session's compactions on every branch (--show ID: summary, diff, loss audit)",
    "compact": "compact a session now (--preview: show the cut without calling the model)",
    "restore": "undo a compaction: continue from the entry just before it, on a new branch",
    "tree": "a session's tree as /tree shows it (--filter MODE; --label ENTRY TEXT labels an entry)",
    "rewind": "restore a session's files, conversation or both to an entry (--dry-run: show the diff)",
    "serve": "pi-tui in a browser on 127.0.0.1, behind a random token (-- ARGS: pi-tui's arguments)",
    "export": "a session's branch as one self-contained HTML page (or .jsonl: a linear session file)",
}


def _subcommands() -> dict[str, Callable[[list[str]], int]]:
    # Imported here so `pi-tui --version` stays instant.
    from pi_tui.modes.compaction_commands import (
        run_compact_command,
        run_compactions_command,
        run_restore_command,
    )
    from pi_tui.modes.context_command import run_context_command
    from pi_tui.modes.export_command import run_export_command
    from pi_tui.modes.rewind_command import run_rewind_command
    from pi_tui.modes.serve_command import run_serve_command
    from pi_tui.modes.sessions_command import run_sessions_command
    from pi_tui.modes.tree_command import run_tree_command

    return {
        "sessions": run_sessions_command,
        "context": run_context_command,
        "compactions": run_compactions_command,
        "compact": run_compact_command,
        "restore": run_restore_command,
        "tree": run_tree_command,
        "rewind": run_rewind_command,
        "serve": run_serve_command,
        "export": run_export_command,
    }


def build_parser() -> argparse.ArgumentParser:
    epilog = "subcommands:\n" + "\n".join(
        f"  pi-tui {name:<12} {text}" for name, text in SUBCOMMAND_HELP.items()
    )
    parser = argparse.ArgumentParser(
        prog="pi-tui",
        description="A terminal coding agent whose context management you can see.",
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("messages", nargs="*", help="messages to send, in order; @path attaches a file")
    parser.add_argument("--version", action="version", version=f"pi-tui {__version__}")
    run = parser.add_argument_group("running headless")
    run.add_argument("-p", "--print", action="store_true", help="send the messages, print the final answer")
    run.add_argument(
        "--demo", action="store_true", help="a scripted model works on a throwaway project, offline"
    )
    run.add_argument(
        "--mode", choices=("text", "json"), default="text", help="json: print every event as one JSON line"
    )
    run.add_argument(
        "--approve", action="store_true", help="at least bash, write and edit ask first (--approval edits)"
    )
    run.add_argument(
        "--approval",
        choices=APPROVAL_MODES,
        help='which tools ask first for this run, as /approval and the "approval" setting: off, edits '
        "(bash, write, edit) or all (every tool but read)",
    )
    run.add_argument(
        "--yes", action="store_true", help="headless with approval on: approve every call instead of denying"
    )
    run.add_argument(
        "--trust-project",
        action="store_true",
        help="trust this project's .pi-tui/settings.json as it is now: its approval, shellPath and "
        "shellCommandPrefix apply (remembered until the file changes)",
    )
    model = parser.add_argument_group("model")
    model.add_argument("--model", metavar="REF", help="provider/id or id (models.json, else zero-config)")
    model.add_argument(
        "--base-url", metavar="URL", help="OpenAI-compatible endpoint, e.g. http://host:8080/v1"
    )
    add_api_key_options(model)
    model.add_argument("--thinking", choices=THINKING_LEVELS, help="reasoning level for reasoning models")
    model.add_argument(
        "--tools",
        metavar="A,B",
        help="active tools (read,bash,edit,write,grep,find,ls); default the first four",
    )
    session = parser.add_argument_group("session")
    session.add_argument(
        "--session", metavar="PATH|ID", help="continue this session (a path or an id prefix)"
    )
    session.add_argument(
        "--fork",
        metavar="PATH|ID",
        help="start a new session here holding a copy of this one (a path or an id prefix)",
    )
    session.add_argument(
        "-c", "--continue", dest="continue_recent", action="store_true", help="continue the latest session"
    )
    session.add_argument(
        "-r", "--resume", action="store_true", help="choose a session of this directory from a list"
    )
    session.add_argument(
        "--here",
        dest="cwd_override",
        action="store_true",
        help="continue a session whose working directory no longer exists in the current directory",
    )
    session.add_argument("--no-session", action="store_true", help="keep nothing on disk")
    session.add_argument(
        "--session-dir",
        metavar="DIR",
        help="folder holding the session folders (default: $PI_TUI_HOME/sessions)",
    )
    return parser


def run_options(namespace: argparse.Namespace) -> RunOptions:
    from pi_tui.modes.run_options import RunOptions
    from pi_tui.session.store_opening import SessionChoice

    tools = [name.strip() for name in namespace.tools.split(",") if name.strip()] if namespace.tools else None
    return RunOptions(
        messages=list(namespace.messages),
        print_mode=namespace.print,
        output=namespace.mode,
        model=namespace.model,
        base_url=namespace.base_url,
        api_key=namespace.api_key,
        thinking=namespace.thinking,
        tools=tools,
        session=SessionChoice(
            session=namespace.session,
            fork=namespace.fork,
            continue_recent=namespace.continue_recent,
            no_session=namespace.no_session,
            session_dir=namespace.session_dir,
        ),
        resume=namespace.resume,
        cwd_override=namespace.cwd_override,
        approve=namespace.approval or namespace.approve,
        yes=namespace.yes,
        trust_project=namespace.trust_project,
    )


def _headless(options: RunOptions, *, read_stdin: bool = True) -> int:
    import asyncio
    import os

    from pi_tui.modes.print_mode import run_print_mode

    _start_up_done()
    stdin_text = None if not read_stdin or sys.stdin is None or sys.stdin.isatty() else _piped_text()
    return asyncio.run(
        run_print_mode(options, cwd=os.getcwd(), stdin_text=stdin_text, stdout=sys.stdout, stderr=sys.stderr)
    )


def _piped_text() -> str:
    """Piped stdin as text: bytes that are not UTF-8 become U+FFFD, as pi reads them, never an error."""
    from pi_tui.ai.valid_text import text_from_bytes, text_from_os

    binary = getattr(sys.stdin, "buffer", None)
    return text_from_bytes(binary.read()) if binary is not None else text_from_os(sys.stdin.read())


def main(argv: Sequence[str] | None = None) -> int:
    """pi-tui's command line. A reader that stops early (`pi-tui context S | head -1`) ends the output
    quietly: no traceback, exit status 0. An operating-system error no mode reported itself is one
    `pi-tui: ` line and exit status 1."""
    _encode_output_safely()
    # Start-up allocates hundreds of thousands of objects that live for the whole run (modules, classes,
    # pydantic schemas); collecting among them found nothing and cost ~50 ms before the first frame. The
    # TUI turns the collector back on once the app is up (`tui.app.tune_gc`), headless runs once their
    # modules are imported; the `finally` covers every other path (and callers of `main` in a test).
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _main(argv)
    except BrokenPipeError:
        _silence_stdout()
        return 0
    except OSError as error:  # a full disk, a folder without permission: one line, never a traceback
        from pi_tui.modes.user_messages import os_error_text, report

        report(sys.stderr, os_error_text(error))
        return 1
    finally:
        if collecting:
            gc.enable()


def _start_up_done() -> None:
    """The modules are imported: keep them out of the collector's scans for good, and collect again."""
    gc.freeze()
    gc.enable()


def missing_working_directory() -> str | None:
    """What to say when the directory pi-tui was started in has been removed (every mode starts from
    it), naming it: the kernel still knows the path (`/proc/self/cwd`), the shell's `$PWD` else."""
    try:
        os.getcwd()
    except FileNotFoundError:
        pass
    else:
        return None
    where = None
    with contextlib.suppress(OSError):
        where = os.readlink("/proc/self/cwd").removesuffix(" (deleted)")
    where = where or os.environ.get("PWD")
    named = f" ({where})" if where else ""
    return f"the current directory{named} no longer exists: change to a directory that exists and run again"


def _encode_output_safely() -> None:
    """A character the terminal's encoding lacks (`“` under `PYTHONIOENCODING=ascii`) prints as `?`, and
    a lone surrogate as `?`, instead of ending the run with a traceback after the reply was saved."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None and getattr(stream, "errors", "strict") == "strict":
            with contextlib.suppress(ValueError, OSError):
                reconfigure(errors="replace")


def _silence_stdout() -> None:
    """Point stdout at /dev/null: the interpreter flushes it again at exit and would fail the same way."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def _main(argv: Sequence[str] | None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in SUBCOMMAND_HELP:
        missing = missing_working_directory()
        if missing is not None:
            sys.stderr.write(f"pi-tui: {missing}\n")
            return 1
        command = _subcommands()[args[0]]
        _start_up_done()
        return command(args[1:])
    parser = build_parser()
    namespace = parser.parse_args(args)
    missing = missing_working_directory()
    if missing is not None:
        sys.stderr.write(f"pi-tui: {missing}\n")
        return 1
    namespace_demo = bool(namespace.demo)
    try:
        namespace.api_key = command_line_key(namespace, sys.stderr)
    except ApiKeyFileError as error:
        sys.stderr.write(f"pi-tui: {error}\n")
        return 2
    options = run_options(namespace)
    combined = [
        flag
        for flag, given in (
            ("--session", namespace.session),
            ("--continue", namespace.continue_recent),
            ("--resume", namespace.resume),
            ("--no-session", namespace.no_session),
        )
        if given
    ]
    if namespace.fork and combined:
        parser.error(f"--fork cannot be combined with {', '.join(combined)}")
    if options.tools is not None:
        from pi_tui.tools.registry import ALL_TOOL_NAMES

        unknown = sorted(set(options.tools) - set(ALL_TOOL_NAMES))
        if unknown:
            parser.error(f"unknown tool(s): {', '.join(unknown)} (known: {', '.join(ALL_TOOL_NAMES)})")
    from pi_tui.modes.serve_command import served_in_browser

    # Under `pi-tui serve` stdin and stdout are pipes to the browser: a terminal, not a piped prompt.
    served = served_in_browser()
    piped = sys.stdin is not None and not sys.stdin.isatty() and not served
    interactive = not (options.print_mode or options.output == "json" or piped)
    if options.resume and not (interactive and (served or sys.stdout.isatty())):
        return _resume(options)
    if options.print_mode or options.output == "json" or piped:
        return _headless(options)
    from pi_tui.session.factory import ModelChoice
    from pi_tui.tui.launch import run_demo, run_interactive

    if namespace_demo:
        return run_demo()

    from pi_tui.ai.valid_text import text_from_os

    return run_interactive(
        model=ModelChoice(options.model, options.base_url, options.api_key),
        choice=options.session,
        thinking=options.thinking,
        tools=options.tools,
        messages=[text_from_os(message) for message in options.messages],
        cwd_override=options.cwd_override,
        open_resume=options.resume,
        approve=options.approve,
        trust_project=options.trust_project,
    )


def _resume(options: RunOptions) -> int:
    """`-r`: pick a session from a numbered list (stdin is the answer, so it is no prompt text), then
    run the messages in it as `--session` would; without messages, print the chosen path."""
    import dataclasses
    import os

    from pi_tui.config.paths import sessions_root
    from pi_tui.modes.resume_picker import PickerError, pick_session

    if sys.stdin is None:
        sys.stderr.write("pi-tui: -r needs a terminal or a number on stdin\n")
        return 1
    root = sessions_root(options.session.session_dir)
    picked = pick_session(os.getcwd(), stdin=sys.stdin, stderr=sys.stderr, root=root)
    if isinstance(picked, PickerError):
        sys.stderr.write(f"pi-tui: {picked.message}\n")
        return 1
    chosen = dataclasses.replace(
        options, resume=False, session=dataclasses.replace(options.session, session=str(picked))
    )
    if not chosen.messages:
        sys.stdout.write(f"{picked}\n")
        return 0
    return _headless(chosen, read_stdin=False)


if __name__ == "__main__":
    raise SystemExit(main())
