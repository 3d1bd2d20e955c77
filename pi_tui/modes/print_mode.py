"""Headless runs, as pi's print mode: `-p` prints the final answer, `--mode json` every event.

Messages are sent one after another, each awaited to the end of its run. The session is persisted
unless `--no-session`. Errors go to stderr with exit code 1, never as a traceback. The run owns the
provider's connection pool (one connection serves every request) and closes it however it ends.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import re
import signal
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TextIO

from pi_tui.ai.http_pool import HttpPool
from pi_tui.ai.js_json import js_dumps
from pi_tui.ai.messages import TextContent
from pi_tui.ai.stream import StreamFunction
from pi_tui.ai.valid_text import text_from_os
from pi_tui.ai.warm_up import warm_up_openai
from pi_tui.config.bounds import reserve_notes
from pi_tui.config.model_config import ModelConfig
from pi_tui.config.models import ModelResolution, resolve_model
from pi_tui.config.project_trust import trust_project_settings
from pi_tui.modes.headless_notices import HeadlessNotices
from pi_tui.modes.run_options import RunOptions
from pi_tui.modes.session_command_support import report_file_problems
from pi_tui.modes.user_messages import os_error_text, report
from pi_tui.session.agent_session import AgentSession, SessionConfig
from pi_tui.session.approval import ApprovalAnswer, Approver, describe_call, headless_denied_text
from pi_tui.session.open_checks import continue_refusal, folder_warnings, missing_tool_note
from pi_tui.session.runtime import recorded_model
from pi_tui.session.services import AgentSessionServices
from pi_tui.session.session_events import AnyEvent
from pi_tui.session.store_opening import SessionOpenError, open_store
from pi_tui.session_file.run_lock import RunLock, SessionBusyError
from pi_tui.session_file.store import SessionStore

EXIT_ERROR = 1
EXIT_SIGNAL = {signal.SIGTERM: 143, signal.SIGHUP: 129, signal.SIGINT: 130}


class InputError(Exception):
    """An argument that cannot become part of a prompt (a missing `@file`)."""


def file_block(path: Path) -> str:
    """pi wraps a text file given as `@path` like this so the model sees its name and exact content."""
    content = path.read_text(encoding="utf-8", errors="replace")
    return f'<file name="{text_from_os(str(path))}">\n{content}\n</file>'


def build_prompts(messages: list[str], stdin_text: str | None, cwd: str) -> list[str]:
    """Piped stdin, then `@file` arguments, then the first message form the first prompt; the other
    messages follow as prompts of their own."""
    files: list[str] = []
    texts: list[str] = []
    for argument in messages:
        if argument.startswith("@") and len(argument) > 1:
            path = Path(argument[1:]).expanduser()
            path = path if path.is_absolute() else Path(cwd) / path
            if not path.is_file():
                raise InputError(f"file not found: {text_from_os(argument[1:])}")
            files.append(file_block(path.resolve()))
        else:
            texts.append(text_from_os(argument))
    first_parts = [part for part in (stdin_text, *files, texts[0] if texts else None) if part]
    prompts = ["\n\n".join(first_parts)] if first_parts else []
    return prompts + texts[1:]


def json_line_for(stdout: TextIO) -> Callable[[Any], str]:
    """pi's JSON lines; on a stdout whose encoding lacks a character (`PYTHONIOENCODING=ascii`) that
    character is written as a `\\u` escape instead, which is the same JSON, rather than as `?`."""
    encoding = getattr(stdout, "encoding", None) or "utf-8"
    try:
        utf8 = codecs.lookup(encoding).name == "utf-8"
    except LookupError:
        utf8 = True

    def line(value: Any) -> str:
        text = js_dumps(value)
        if utf8 or text.isascii():
            return text + "\n"
        try:
            text.encode(encoding)
        except UnicodeEncodeError:
            text = _NON_ASCII.sub(_json_escape, text)
        return text + "\n"

    return line


_NON_ASCII = re.compile("[^\x00-\x7f]")


def _json_escape(match: re.Match[str]) -> str:
    data = match.group(0).encode("utf-16-be", "surrogatepass")
    return "".join(f"\\u{data[index] << 8 | data[index + 1]:04x}" for index in range(0, len(data), 2))


def headless_approver(*, yes: bool, stderr: TextIO) -> Approver:
    """Nobody can be asked headless: `--yes` approves every call; otherwise each is denied, with a note."""

    async def approve(tool_name: str, args: dict[str, Any]) -> ApprovalAnswer:
        if yes:
            return "yes"
        summary = describe_call(tool_name, args)
        stderr.write(f"pi-tui: denied {tool_name} (approval mode; --yes approves): {summary}\n")
        return "no"

    return approve


@contextlib.contextmanager
def _abort_on_signals(session: AgentSession, received: list[signal.Signals]) -> Iterator[None]:
    loop = asyncio.get_running_loop()
    installed: list[signal.Signals] = []

    def on_signal(number: signal.Signals) -> None:
        received.append(number)
        session.abort()

    for number in EXIT_SIGNAL:
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(number, on_signal, number)
            installed.append(number)
    try:
        yield
    finally:
        for number in installed:
            loop.remove_signal_handler(number)


async def run_print_mode(
    options: RunOptions,
    *,
    cwd: str,
    stdin_text: str | None,
    stdout: TextIO,
    stderr: TextIO,
    stream_fn: StreamFunction | None = None,
) -> int:
    if stream_fn is None:
        warm_up_openai()  # nothing is on screen to delay: the SDK loads while the session is set up
    try:
        prompts = build_prompts(options.messages, stdin_text, cwd)
    except (InputError, OSError) as error:
        stderr.write(f"pi-tui: {error}\n")
        return EXIT_ERROR
    if not prompts:
        stderr.write("pi-tui: nothing to send: give a message, an @file or pipe text on stdin\n")
        return EXIT_ERROR

    resolution = resolve_model(options.model, options.base_url, options.api_key)
    try:
        store = open_store(options.session, cwd, cwd_override=options.cwd_override)
    except SessionOpenError as error:
        stderr.write(f"pi-tui: {error}\n")
        return EXIT_ERROR
    if resolution.model is None and options.model is None and options.base_url is None and store.entries:
        # A continued session without models.json models goes on with the model it used when pi-tui
        # knows it (pi's Anthropic catalog), as pi continues it.
        restored = recorded_model(store)
        if restored is not None:
            model, key = restored
            kept = [problem for problem in resolution.diagnostics if problem.severity != "error"]
            resolution = ModelResolution(model, options.api_key or key, "zero-config", kept)
    for diagnostic in resolution.diagnostics:
        stderr.write(f"pi-tui: {diagnostic}\n")
    if resolution.model is None:
        return EXIT_ERROR
    refusal = continue_refusal(store)
    if refusal is not None:
        report(stderr, refusal)
        return EXIT_ERROR
    try:
        lock = RunLock.acquire(store.path) if store.path is not None else None
    except SessionBusyError as error:
        report(stderr, str(error))
        return EXIT_ERROR
    except OSError:
        lock = None  # no lock file possible here (a read-only folder); the append check still guards
    # What happens to the file meanwhile (another writer's entries taken in, a move) is said at once.
    store.on_notice = lambda text: report(stderr, text)
    try:
        model = resolution.model
        return await _run_in(store, model, resolution.api_key, prompts, options, stdout, stderr, stream_fn)
    finally:
        if lock is not None:
            lock.release()


async def _run_in(
    store: SessionStore,
    model: ModelConfig,
    api_key: str | None,
    prompts: list[str],
    options: RunOptions,
    stdout: TextIO,
    stderr: TextIO,
    stream_fn: StreamFunction | None,
) -> int:
    report_file_problems(store, stderr)
    for warning in folder_warnings(store):
        report(stderr, warning)
    if options.trust_project:
        try:
            trust_project_settings(store.cwd)
        except OSError as error:
            report(stderr, f"cannot record the trust in this project: {os_error_text(error)}")
            return EXIT_ERROR
    services = AgentSessionServices.for_cwd(store.cwd)
    for problem in services.resources.problems():
        stderr.write(f"pi-tui: {problem}\n")
    for note in reserve_notes(services.resources.settings, model.context_window, model.ref):
        stderr.write(f"pi-tui: {note}\n")
    http_pool = HttpPool()
    session = AgentSession(
        SessionConfig(
            store=store,
            resources=services.resources,
            model=model,
            api_key=api_key,
            thinking_level=options.thinking,
            tool_names=options.tools,
            stream_fn=stream_fn,
            approve=options.approve,
            http_pool=http_pool,
        )
    )
    tool_note = missing_tool_note(session.missing_tools)
    if tool_note is not None:
        report(stderr, tool_note)
    try:
        return await _send_all(session, prompts, options, stdout, stderr)
    finally:
        await http_pool.aclose()


async def _send_all(
    session: AgentSession, prompts: list[str], options: RunOptions, stdout: TextIO, stderr: TextIO
) -> int:
    session.approval.approver = headless_approver(yes=options.yes, stderr=stderr)
    session.approval.denial_text = headless_denied_text

    if options.output == "json":
        json_line = json_line_for(stdout)
        stdout.write(json_line(session.store.header.to_json_obj()))

        def print_event(event: AnyEvent) -> None:
            stdout.write(json_line(event.to_json()))
            stdout.flush()

        session.subscribe(print_event)

    notices = HeadlessNotices(stderr)
    session.subscribe(notices)
    received: list[signal.Signals] = []
    with _abort_on_signals(session, received):
        for text in prompts:
            notices.start_prompt()
            await session.prompt(text)
            if received:
                break
    if received:
        return EXIT_SIGNAL[received[0]]
    return _final_output(session, options, stdout, stderr, overflowed=notices.overflowed)


def _final_output(
    session: AgentSession, options: RunOptions, stdout: TextIO, stderr: TextIO, *, overflowed: bool
) -> int:
    """The answer on stdout; a failed reply's error on stderr. A request that did not fit fails the
    run even when the provider answered it (the notice is on stderr already; the answer is kept)."""
    last = session.last_assistant_message()
    if last is None:
        return EXIT_ERROR if overflowed else 0
    if last.failed:
        report(stderr, last.error_message or f"Request {last.stop_reason}")
        return EXIT_ERROR
    if options.output == "text":
        for block in last.content:
            if isinstance(block, TextContent):
                stdout.write(block.text + "\n")
    return EXIT_ERROR if overflowed else 0
