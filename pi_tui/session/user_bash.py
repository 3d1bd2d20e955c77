"""User shell commands `!cmd` / `!!cmd`, run through the bash tool's output pipeline.

The command runs exactly as the bash tool runs it (`run_shell`: same shell, prefix, cwd, process group,
kill on abort) and its output goes through the same `OutputPipeline`, so the user sees the sanitised
text, memory stays bounded and a large output is spilled, in full, to the session's spill folder. The
outcome is a `bashExecution` message; recording it (now, or after the running turn) is the session's job.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from pi_tui.agent.maybe_await import maybe_await
from pi_tui.ai.abort import AbortSignal
from pi_tui.ai.messages import BashExecutionMessage
from pi_tui.tools.output_pipeline import OutputPipeline
from pi_tui.tools.output_ticker import OutputTicker
from pi_tui.tools.shell_run import BACKGROUND_STOPPED, ShellStartError, resolve_shell, run_shell
from pi_tui.tools.truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES

OutputCallback = Callable[[str], Awaitable[None] | None]


@dataclass(frozen=True)
class UserBashOptions:
    """Where and how user commands run: the session's cwd, its spill folder and the shell settings."""

    cwd: str
    spill_dir: Path | None = None
    max_lines: int = DEFAULT_MAX_LINES
    max_bytes: int = DEFAULT_MAX_BYTES
    shell_path: str | None = None
    command_prefix: str | None = None


async def execute_user_bash(
    command: str,
    options: UserBashOptions,
    *,
    exclude_from_context: bool = False,
    signal: AbortSignal | None = None,
    on_output: OutputCallback | None = None,
) -> BashExecutionMessage:
    """Run `command` and describe the run as pi's `bashExecution` message.

    `output` is the whole sanitised text, or its tail when it exceeds the limits (then `truncated` and
    `fullOutputPath` name the spill file). A cancelled run has no exit code. A command that cannot be
    started (missing cwd or shell) yields a message whose output is the reason.
    """
    script = f"{options.command_prefix}\n{command}" if options.command_prefix else command
    pipeline = OutputPipeline(
        max_lines=options.max_lines, max_bytes=options.max_bytes, spill_dir=options.spill_dir
    )
    previews = _Previews(pipeline, on_output)
    try:
        try:
            outcome = await run_shell(
                script,
                cwd=options.cwd,
                pipeline=pipeline,
                signal=signal,
                shell=resolve_shell(options.shell_path),
                on_data=previews.mark_dirty,
            )
        except ShellStartError as error:
            return BashExecutionMessage(
                command=command,
                output=str(error),
                timestamp=_now_ms(),
                exclude_from_context=exclude_from_context,
            )
        finally:
            await previews.stop()
        snapshot = pipeline.snapshot()
        await previews.emit(snapshot.content)
    finally:
        pipeline.close()
    cancelled = outcome.aborted or outcome.timed_out
    truncated = snapshot.truncation.truncated
    output = snapshot.content
    if truncated and snapshot.spill_failure is not None:
        output = f"{output}\n\n[{snapshot.spill_failure}]"
    if outcome.background_stopped:
        output = f"{output}\n\n[{BACKGROUND_STOPPED}]" if output else f"[{BACKGROUND_STOPPED}]"
    return BashExecutionMessage(
        command=command,
        output=output,
        exit_code=None if cancelled else (outcome.exit_code if outcome.exit_code is not None else 0),
        cancelled=cancelled,
        truncated=truncated,
        full_output_path=snapshot.full_output_path if truncated else None,
        timestamp=_now_ms(),
        exclude_from_context=exclude_from_context,
    )


def _now_ms() -> int:
    return int(time.time() * 1000)


class _Previews:
    """Sends the current tail preview to `on_output` whenever output arrived, at most ten times a second."""

    def __init__(self, pipeline: OutputPipeline, on_output: OutputCallback | None) -> None:
        self._pipeline = pipeline
        self._on_output = on_output
        self._ticker = OutputTicker(self._send_current)
        if on_output is not None:
            self._ticker.start()

    def mark_dirty(self) -> None:
        self._ticker.mark_dirty()

    async def emit(self, text: str) -> None:
        if self._on_output is not None:
            await maybe_await(self._on_output(text))

    async def stop(self) -> None:
        await self._ticker.stop()

    async def _send_current(self) -> None:
        await self.emit(self._pipeline.snapshot(persist_if_truncated=False).content)
