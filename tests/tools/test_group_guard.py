"""A command's whole process group dies with pi-tui, even when pi-tui is killed with SIGKILL: a driver
process runs the real bash tool, is SIGKILLed mid-command, and nothing of the command may survive."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pi_tui.tools.group_guard import GroupGuard
from tests.support.process_groups import HAS_PROC, group_alive, group_members, process_ended
from tests.support.waiting import until_sync

pytestmark = pytest.mark.skipif(not HAS_PROC, reason="process groups are read from /proc")

DRIVER = """
import asyncio, pathlib, sys
from pi_tui.ai.abort import AbortSignal
from pi_tui.tools.bash import BashParams, BashTool
from pi_tui.tools.group_guard import group_guard

watch = group_guard.watch

def watch_and_say(group):
    watch(group)
    told = pathlib.Path(sys.argv[3])
    told.with_suffix(".tmp").write_text(str(group))
    told.with_suffix(".tmp").replace(told)

group_guard.watch = watch_and_say
asyncio.run(BashTool(sys.argv[1]).execute("call", BashParams(command=sys.argv[2]), AbortSignal()))
"""
"""The real bash tool; it says (in a file) once the guard was told of the command's group, since a kill
before that moment (microseconds after the spawn, but a loaded machine may stop the driver right there)
is the one the guard cannot cover."""
COMMANDS = {
    # bash runs a lone command in its own process: the shell's pid is the sleep's.
    "lone-command": "exec sleep 1000",
    # The sleep is the shell's child: a parent-death signal on the shell would leave it running.
    "child-of-the-shell": "sleep 1000; true",
    "background-children": "sleep 1000 & sleep 1000 & wait",
}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_sigkill_of_pi_tui_kills_the_running_command_group(command: str, tmp_path: Path) -> None:
    group_file = tmp_path / "group"
    script = f"echo $$ > {group_file}.tmp; mv {group_file}.tmp {group_file}; {COMMANDS[command]}"
    watched = tmp_path / "watched"
    driver = subprocess.Popen([sys.executable, "-c", DRIVER, str(tmp_path), script, str(watched)])
    try:
        until_sync(group_file.exists, what="the command to start")
        group = int(group_file.read_text())
        until_sync(lambda: "sleep" in dict(group_members(group)).values(), what="the sleep to start")
        until_sync(watched.exists, what="the guard to be told of the group")
        assert int(watched.read_text()) == group
    finally:
        driver.kill()
        driver.wait()
    try:
        until_sync(lambda: not group_alive(group), what=f"the command's group {group} to die")
    finally:
        _kill_group(group)


@pytest.fixture
def sleepers() -> Iterator[list[subprocess.Popen[bytes]]]:
    """Two commands in process groups of their own, as the bash tool starts them."""
    started = [subprocess.Popen(["sleep", "1000"], start_new_session=True) for _ in range(2)]
    yield started
    for process in started:
        process.kill()
        process.wait()


def test_the_guard_kills_listed_groups_at_its_end_and_spares_withdrawn_ones(
    sleepers: list[subprocess.Popen[bytes]],
) -> None:
    listed, withdrawn = sleepers
    guard = GroupGuard()
    guard.watch(listed.pid)
    guard.watch(withdrawn.pid)
    guard.release(withdrawn.pid)
    guard.close()  # what pi-tui's death does: end of input; close() also waits for the guard to finish
    until_sync(lambda: listed.poll() is not None, what="the listed group to be killed")
    assert listed.returncode == -signal.SIGKILL
    assert withdrawn.poll() is None


def test_a_killed_guard_is_replaced_with_the_whole_list(sleepers: list[subprocess.Popen[bytes]]) -> None:
    first, second = sleepers
    guard = GroupGuard()
    guard.watch(first.pid)
    old_guard = guard.pid
    assert old_guard is not None
    os.kill(old_guard, signal.SIGKILL)
    until_sync(lambda: process_ended(old_guard), what="the guard to die")
    guard.watch(second.pid)
    assert guard.pid not in (None, old_guard)
    guard.close()
    until_sync(lambda: first.poll() is not None and second.poll() is not None, what="both groups killed")


def _kill_group(group: int) -> None:
    """Clean up after a failure: the sleeps must not outlive the test."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(group, signal.SIGKILL)
