"""Run one shell command into an OutputPipeline: process group, abort, timeout, daemons, as pi's bash tool.

stdout and stderr share one pipe, so their chunks keep arrival order. The command runs in its own
session (process group); abort and timeout send SIGKILL to the whole group, and so does pi-tui's death
(`group_guard`). The command gets pi-tui's environment without the variables holding a configured key,
and every known key it prints is cut out before the output is stored or shown (`key_filter`).

A background process that inherits the pipe and outlives the shell must not hang the caller nor fill the
disk: once the shell has exited, reading stops at end of file, or when the pipe has been quiet for
`DRAIN_QUIET_SECONDS` (a daemon that holds the pipe but is silent is left running), or, at the latest,
after `DRAIN_LIMIT_SECONDS` or `DRAIN_LIMIT_BYTES` more output; then whatever still writes is stopped
with its process group and the outcome says so.
After an abort or a timeout reading stops at once, with what the pipe holds: a process that left the
group (`setsid`) survives the kill and may write forever, and the call would never end.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import shutil
import signal as signals
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pi_tui.ai.abort import AbortSignal
from pi_tui.config.key_secrets import command_secrets
from pi_tui.tools.group_guard import group_guard
from pi_tui.tools.key_filter import KeyFilter
from pi_tui.tools.output_pipeline import OutputPipeline

DRAIN_QUIET_SECONDS = 0.25
DRAIN_LIMIT_SECONDS = 1.0
DRAIN_LIMIT_BYTES = 4 << 20
BACKGROUND_STOPPED = "Background processes still writing after the command exited were stopped"
# A bigger pipe and bigger reads mean fewer wake-ups per megabyte of a flooding command.
PIPE_SIZE = 1 << 20
READ_SIZE = 1 << 20


class ShellStartError(Exception):
    """The command could not be started (missing cwd, missing shell); the message is user-facing."""


@dataclass(frozen=True)
class ShellOutcome:
    """How the process ended. `exit_code` is None when it was killed by a signal (pi: success).
    `background_stopped`: processes still writing after the shell exited were killed."""

    exit_code: int | None
    aborted: bool
    timed_out: bool
    background_stopped: bool = False


def resolve_shell(shell_path: str | None = None) -> str:
    """pi's choice: the configured shell (must exist), else /bin/bash, bash on PATH, sh."""
    if shell_path:
        if not os.path.exists(shell_path):
            raise ShellStartError(f"Custom shell path not found: {shell_path}")
        return shell_path
    if os.path.exists("/bin/bash"):
        return "/bin/bash"
    return shutil.which("bash") or shutil.which("sh") or "sh"


def kill_group(pid: int) -> None:
    """SIGKILL the process group led by `pid` (ignores an already-gone group)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signals.SIGKILL)


class _PipeReader:
    """Reads the pipe on the event loop in large gulps (up to READ_SIZE per wake-up)."""

    def __init__(self, fd: int, on_data: Callable[[bytes], None]) -> None:
        self._fd = fd
        self._on_data = on_data
        self._loop = asyncio.get_running_loop()
        self.closed: asyncio.Future[None] = self._loop.create_future()
        self.received = 0
        self.limit: int | None = None
        """Stop reading (and set `over_limit`) once `received` reaches this."""
        self.over_limit = False
        self.error: BaseException | None = None
        os.set_blocking(fd, False)
        self._loop.add_reader(fd, self._ready)

    def _ready(self) -> None:
        try:
            data = os.read(self._fd, READ_SIZE)
        except BlockingIOError:
            return
        except OSError as error:
            self.error = error
            self.close()
            return
        if not data:
            self.close()
            return
        self.received += len(data)
        try:
            self._on_data(data)
        except Exception as error:  # a failing consumer must not leave the process blocked on a full pipe
            self.error = error
            self.close()
            return
        if self.limit is not None and self.received >= self.limit:
            self.over_limit = True
            self.close()

    def read_buffered(self) -> None:
        """Take what the pipe holds now (a read as large as the pipe) without waiting for more."""
        if self._fd >= 0:
            self._ready()

    def close(self) -> None:
        if self._fd >= 0:
            self._loop.remove_reader(self._fd)
            os.close(self._fd)
            self._fd = -1
        if not self.closed.done():
            self.closed.set_result(None)


async def run_shell(
    command: str,
    *,
    cwd: str,
    pipeline: OutputPipeline,
    signal: AbortSignal | None = None,
    timeout_seconds: float | None = None,
    shell: str | None = None,
    on_data: Callable[[], None] | None = None,
) -> ShellOutcome:
    """Run `command` with `<shell> -c`, feeding every chunk (keys cut out) to `pipeline` as it arrives.

    Raises ShellStartError before starting anything if cwd or the shell is missing. Cancelling the
    calling task kills the process group. The pipeline is finished but not closed on return.
    """
    if not await asyncio.to_thread(os.path.exists, cwd):
        raise ShellStartError(f"Working directory does not exist: {cwd}\nCannot execute bash commands.")
    shell_program = shell or resolve_shell()
    if signal is not None and signal.aborted:
        pipeline.finish()
        return ShellOutcome(None, True, False)
    environment, keys = await asyncio.to_thread(command_secrets)
    keys_out = KeyFilter(keys)

    loop = asyncio.get_running_loop()
    read_fd, write_fd = os.pipe()
    with contextlib.suppress(OSError):
        fcntl.fcntl(write_fd, fcntl.F_SETPIPE_SZ, PIPE_SIZE)
    try:
        process = await asyncio.create_subprocess_exec(
            shell_program,
            "-c",
            command,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=write_fd,
            stderr=write_fd,
            cwd=cwd,
            env=environment,
            start_new_session=True,
        )
    except OSError as error:
        os.close(read_fd)
        raise ShellStartError(str(error)) from error
    finally:
        os.close(write_fd)
    group_guard.watch(process.pid)

    def feed(data: bytes) -> None:
        pipeline.feed(keys_out.feed(data))
        if on_data is not None:
            on_data()

    reader = _PipeReader(read_fd, feed)
    state = {"aborted": False, "timed_out": False, "background_stopped": False}
    stopped = asyncio.Event()

    def kill(reason: str) -> None:
        state[reason] = True
        stopped.set()
        kill_group(process.pid)

    unregister = signal.on_abort(lambda: kill("aborted")) if signal is not None else None
    timer = None
    if timeout_seconds is not None and timeout_seconds > 0:
        timer = loop.call_later(timeout_seconds, kill, "timed_out")
    try:
        exit_task = asyncio.ensure_future(process.wait())
        waiting: set[asyncio.Future[Any]] = {exit_task, reader.closed}
        await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
        if reader.error is not None:
            kill_group(process.pid)
        returncode = await exit_task
        if await _drain(reader, stopped):
            kill("background_stopped")
        elif reader.error is not None:  # the consumer failed while the rest was drained
            kill_group(process.pid)
    except BaseException:
        kill_group(process.pid)
        raise
    finally:
        if timer is not None:
            timer.cancel()
        if unregister is not None:
            unregister()
        reader.close()
        group_guard.release(process.pid)
    held = keys_out.finish()
    if held and reader.error is None:
        pipeline.feed(held)
    pipeline.finish()
    if reader.error is not None:
        raise reader.error
    exit_code = returncode if returncode >= 0 else None
    return ShellOutcome(exit_code, state["aborted"], state["timed_out"], state["background_stopped"])


async def _drain(reader: _PipeReader, stopped: asyncio.Event) -> bool:
    """After the shell exited: read until EOF, or stop once the pipe has gone quiet (a daemon holds it),
    or at once when the run was aborted or timed out (see the module docstring). True when something was
    still writing at the time or byte limit: the caller stops it."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + DRAIN_LIMIT_SECONDS
    reader.limit = reader.received + DRAIN_LIMIT_BYTES
    stop: asyncio.Future[Any] = asyncio.ensure_future(stopped.wait())
    try:
        while not reader.closed.done() and not stopped.is_set():
            before = reader.received
            left = deadline - loop.time()
            if left <= 0:
                return True
            await asyncio.wait({reader.closed, stop}, timeout=min(DRAIN_QUIET_SECONDS, left))
            if reader.received == before and not reader.closed.done() and not stopped.is_set():
                return False
    finally:
        stop.cancel()
    if stopped.is_set():
        reader.read_buffered()
        return False
    return reader.over_limit
