from __future__ import annotations

import asyncio
import re
import shutil
from pathlib import Path

import pytest

from pi_tui.ai.abort import AbortSignal
from pi_tui.tools.output_pipeline import OutputPipeline
from pi_tui.tools.shell_run import ShellStartError, kill_group, resolve_shell, run_shell
from tests.support.process_groups import HAS_PROC, group_alive
from tests.support.waiting import until

needs_proc = pytest.mark.skipif(not HAS_PROC, reason="process groups are read from /proc")


async def test_exit_code_and_output(tmp_path: Path) -> None:
    pipeline = OutputPipeline(spill_dir=tmp_path)
    outcome = await run_shell("echo hi; exit 7", cwd=str(tmp_path), pipeline=pipeline)
    assert (outcome.exit_code, outcome.aborted, outcome.timed_out) == (7, False, False)
    assert pipeline.snapshot().content == "hi\n"


async def test_killed_by_signal_reports_no_exit_code(tmp_path: Path) -> None:
    outcome = await run_shell("kill -9 $$", cwd=str(tmp_path), pipeline=OutputPipeline())
    assert outcome.exit_code is None and not outcome.aborted


@needs_proc
async def test_cancelling_the_task_kills_the_group(tmp_path: Path) -> None:
    """Left alone, the group would live a minute more; the wait for it to be gone gives up at 20 s."""
    pipeline = OutputPipeline()
    task = asyncio.create_task(run_shell("echo $$; sleep 60", cwd=str(tmp_path), pipeline=pipeline))
    await until(lambda: pipeline.snapshot().content.endswith("\n"), what="the shell to print its group")
    group = int(pipeline.snapshot().content)
    assert group_alive(group)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await until(lambda: not group_alive(group), what=f"process group {group} to be gone")


@needs_proc
async def test_daemon_writing_after_exit_is_drained_until_quiet(tmp_path: Path) -> None:
    """The daemon keeps the pipe open for a minute after its ticks: the call returns while it still runs
    (the wait below gives up at 20 s), with every tick, and leaves the quiet daemon running."""
    pipeline = OutputPipeline()
    command = "(for i in 1 2 3; do echo tick $i; sleep 0.05; done; sleep 60) & echo $$"
    outcome = await asyncio.wait_for(run_shell(command, cwd=str(tmp_path), pipeline=pipeline), 20)
    lines = pipeline.snapshot().content.split("\n")
    group = next(int(line) for line in lines if line.isdigit())
    try:
        assert group_alive(group), "the call returned without waiting for the daemon to end"
        assert not outcome.background_stopped
    finally:
        kill_group(group)  # the daemon left behind is in the command's own process group
    assert [line for line in lines if line.startswith("tick")] == ["tick 1", "tick 2", "tick 3"]


def test_resolve_shell() -> None:
    assert resolve_shell() in ("/bin/bash",) or resolve_shell().endswith(("bash", "sh"))
    with pytest.raises(ShellStartError, match="Custom shell path not found: /nope"):
        resolve_shell("/nope")


@needs_proc
async def test_consumer_failure_surfaces_and_stops_the_process(tmp_path: Path) -> None:
    """After its first line the command would sleep a minute: the failure stops its group instead (the
    wait below gives up at 20 s)."""

    class Failing(OutputPipeline):
        def feed(self, data: bytes) -> None:
            raise OSError("disk full")

    group_file = tmp_path / "group"
    command = f"echo $$ > {group_file}; echo first; sleep 60"
    with pytest.raises(OSError, match="disk full"):
        await asyncio.wait_for(run_shell(command, cwd=str(tmp_path), pipeline=Failing()), 20)
    group = int(group_file.read_text())
    await until(lambda: not group_alive(group), what=f"process group {group} to be gone")


@pytest.mark.skipif(shutil.which("setsid") is None, reason="needs util-linux's setsid")
@pytest.mark.parametrize("stop", ["abort", "timeout"])
async def test_abort_and_timeout_end_the_run_though_a_process_left_the_group(
    tmp_path: Path, stop: str
) -> None:
    """A writer in a session of its own survives the group's kill and holds the pipe for ever: the run
    still ends (Esc on such a command left its block running and the agent busy)."""
    pipeline = OutputPipeline()
    signal = AbortSignal()
    escaped = "setsid sh -c 'while :; do echo escaped; sleep 0.05; done' & echo pid $!; sleep 600"
    task = asyncio.create_task(
        run_shell(
            escaped,
            cwd=str(tmp_path),
            pipeline=pipeline,
            signal=signal,
            timeout_seconds=1 if stop == "timeout" else None,
        )
    )

    # The writer may print before the shell echoes its pid: both lines, in either order.
    def pid_line() -> re.Match[str] | None:
        return re.search(r"^pid (\d+)\n", pipeline.snapshot().content, re.MULTILINE)

    await until(
        lambda: "escaped" in pipeline.snapshot().content and pid_line(),
        what="the escaped writer's first line and its pid",
    )
    match = pid_line()
    assert match is not None
    writer = int(match[1])
    try:
        if stop == "abort":
            signal.abort()
        outcome = await asyncio.wait_for(task, 30)  # a bound on a hang, not a speed target
        assert (outcome.aborted, outcome.timed_out) == (stop == "abort", stop == "timeout")
        assert f"pid {writer}\n" in pipeline.snapshot().content  # the output so far is kept
    finally:
        kill_group(writer)
