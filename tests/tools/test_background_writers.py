"""A background process that keeps writing after its command exited neither hangs the bash tool or `!cmd`
nor fills the disk: it is read for a bounded while, then stopped with its process group, and the result
says so. Real shells; the writers are real (`yes` writes as fast as the pipe takes it)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from pi_tui.ai.abort import AbortSignal
from pi_tui.session.user_bash import UserBashOptions, execute_user_bash
from pi_tui.tools.bash import BashParams, BashTool
from pi_tui.tools.shell_run import BACKGROUND_STOPPED
from tests.support.process_groups import HAS_PROC, group_alive
from tests.support.waiting import until

pytestmark = pytest.mark.skipif(not HAS_PROC, reason="process groups are read from /proc")

# `$$` first: the command's process group, to check that nothing of it is left running.
WRITERS = {
    "slow-writer": "echo $$; (while true; do echo bg; sleep 0.1; done) & echo done",
    "flood": "echo $$; yes & echo done",
}
HANG_GUARD_SECONDS = 60
"""Bounds the run so that a hang fails the test instead of stalling the suite; not a speed target."""


async def assert_group_stopped(output: str) -> None:
    group = int(output.split("\n", 1)[0])
    await until(lambda: not group_alive(group), what=f"process group {group} to be gone")


def full_output(shown: str, spill_path: str | None) -> str:
    """All the output: the spill file holds it when a flood pushed the start out of the tail."""
    return shown if spill_path is None else Path(spill_path).read_text()


@pytest.mark.parametrize("writer", list(WRITERS))
async def test_bash_tool_stops_background_writers_and_says_so(writer: str, tmp_path: Path) -> None:
    tool = BashTool(str(tmp_path), spill_dir=tmp_path / "spill")
    run = tool.execute("call", BashParams(command=WRITERS[writer]), AbortSignal())
    result = await asyncio.wait_for(run, HANG_GUARD_SECONDS)
    assert not result.is_error
    assert result.text_content.endswith(f"\n\n{BACKGROUND_STOPPED}.")
    details = result.details if isinstance(result.details, dict) else {}
    output = full_output(result.text_content, details.get("fullOutputPath"))
    assert "\ndone\n" in output
    await assert_group_stopped(output)
    if details:
        # Reading stopped with the writer: the spill file holds what was counted, and nothing follows.
        assert len(output) == details["truncation"]["totalBytes"]


@pytest.mark.parametrize("writer", list(WRITERS))
async def test_user_bash_stops_background_writers_and_says_so(writer: str, tmp_path: Path) -> None:
    options = UserBashOptions(cwd=str(tmp_path), spill_dir=tmp_path / "spill")
    message = await asyncio.wait_for(execute_user_bash(WRITERS[writer], options), HANG_GUARD_SECONDS)
    assert message.output.endswith(f"\n\n[{BACKGROUND_STOPPED}]")
    assert message.exit_code == 0 and not message.cancelled
    output = full_output(message.output, message.full_output_path)
    assert "\ndone\n" in output
    await assert_group_stopped(output)
