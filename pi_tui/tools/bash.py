"""The `bash` tool: run a command, stream a bounded tail, spill the rest."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from pydantic import Field

from pi_tui.agent.maybe_await import maybe_await
from pi_tui.agent.tool import STRICT_WHERE_SUPPORTED, AgentTool, ToolResult, UpdateCallback
from pi_tui.ai.abort import AbortSignal
from pi_tui.ai.js_json import js_number
from pi_tui.ai.messages import TextContent
from pi_tui.tools.output_pipeline import OutputPipeline
from pi_tui.tools.output_ticker import OutputTicker
from pi_tui.tools.params import ToolParams
from pi_tui.tools.shell_run import BACKGROUND_STOPPED, ShellStartError, resolve_shell, run_shell
from pi_tui.tools.truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES


class BashParams(ToolParams):
    command: str = Field(description="Bash command to execute")
    timeout: float | None = Field(
        default=None, description="Timeout in seconds (optional, no default timeout)"
    )


class BashTool(AgentTool[BashParams]):
    name: ClassVar[str] = "bash"
    label: ClassVar[str] = "bash"
    description: ClassVar[str] = (
        "Execute a bash command in the current working directory. Returns stdout and stderr. Output is "
        f"truncated to last {DEFAULT_MAX_LINES} lines or {DEFAULT_MAX_BYTES // 1024}KB (whichever is hit "
        "first). If truncated, full output is saved to a temp file. Optionally provide a timeout in seconds."
    )
    parameters: ClassVar[type[ToolParams]] = BashParams
    constrained_sampling: ClassVar[dict[str, Any] | None] = STRICT_WHERE_SUPPORTED
    prompt_snippet: ClassVar[str | None] = "Execute bash commands (ls, grep, find, etc.)"

    def __init__(
        self,
        cwd: str,
        *,
        max_lines: int = DEFAULT_MAX_LINES,
        max_bytes: int = DEFAULT_MAX_BYTES,
        spill_dir: Path | None = None,
        shell_path: str | None = None,
        command_prefix: str | None = None,
    ) -> None:
        self.cwd = cwd
        self.max_lines = max_lines
        self.max_bytes = max_bytes
        self.spill_dir = spill_dir
        self.shell_path = shell_path
        self.command_prefix = command_prefix

    async def execute(
        self,
        tool_call_id: str,
        params: BashParams,
        signal: AbortSignal,
        on_update: UpdateCallback | None = None,
    ) -> ToolResult:
        command = f"{self.command_prefix}\n{params.command}" if self.command_prefix else params.command
        pipeline = OutputPipeline(
            max_lines=self.max_lines, max_bytes=self.max_bytes, spill_dir=self.spill_dir
        )
        updates = _ThrottledUpdates(pipeline, on_update)
        await updates.emit_initial()
        try:
            try:
                outcome = await run_shell(
                    command,
                    cwd=self.cwd,
                    pipeline=pipeline,
                    signal=signal,
                    timeout_seconds=params.timeout,
                    shell=resolve_shell(self.shell_path),
                    on_data=updates.mark_dirty,
                )
            except ShellStartError as error:
                return ToolResult.error(str(error))
            finally:
                await updates.stop()
            snapshot = pipeline.snapshot()
            await updates.emit_final()
        finally:
            pipeline.close()
        details = snapshot.details()
        # pi's failures are thrown errors, whose results carry `details: {}`; the spill path is kept here
        # (pi ignores extra detail keys) so the output viewer can still open it.
        error_details = details or {}
        if outcome.aborted:
            text = _with_status(snapshot.text(""), "Command aborted")
            return ToolResult.text(text, details=error_details, is_error=True)
        if outcome.timed_out:
            status = f"Command timed out after {js_number(params.timeout or 0)} seconds"
            text = _with_status(snapshot.text(""), status)
            return ToolResult.text(text, details=error_details, is_error=True)
        text = snapshot.text()
        if outcome.background_stopped:
            text = _with_status(text, f"{BACKGROUND_STOPPED}.")
        if outcome.exit_code not in (0, None):
            status = f"Command exited with code {outcome.exit_code}"
            return ToolResult.text(_with_status(text, status), details=error_details, is_error=True)
        return ToolResult.text(text, details=details)


def _with_status(text: str, status: str) -> str:
    return f"{text}\n\n{status}" if text else status


class _ThrottledUpdates:
    """Streams the tail snapshot through `on_update`, at most ten times a second."""

    def __init__(self, pipeline: OutputPipeline, on_update: UpdateCallback | None) -> None:
        self._pipeline = pipeline
        self._on_update = on_update
        self._ticker = OutputTicker(self._send_current)

    def mark_dirty(self) -> None:
        self._ticker.mark_dirty()

    async def emit_initial(self) -> None:
        if self._on_update is None:
            return
        await self._send(ToolResult(content=[], details=None))
        self._ticker.start()

    async def emit_final(self) -> None:
        if self._on_update is not None:
            await self._send(self._current())

    async def stop(self) -> None:
        await self._ticker.stop()

    async def _send_current(self) -> None:
        await self._send(self._current())

    def _current(self) -> ToolResult:
        snapshot = self._pipeline.snapshot()
        details: dict[str, Any] = {"progress": self._pipeline.progress()}
        if snapshot.truncation.truncated:
            details["truncation"] = snapshot.truncation.to_json_obj()
        if snapshot.full_output_path is not None:
            details["fullOutputPath"] = snapshot.full_output_path
        return ToolResult(content=[TextContent(text=snapshot.content)], details=details)

    async def _send(self, result: ToolResult) -> None:
        assert self._on_update is not None
        await maybe_await(self._on_update(result))
