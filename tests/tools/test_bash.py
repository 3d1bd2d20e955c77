from __future__ import annotations

import asyncio
import contextlib
import hashlib
import itertools
import os
import subprocess
import time
import tracemalloc
from pathlib import Path

import pytest

from pi_tui.agent.tool import ToolResult
from pi_tui.ai.abort import AbortSignal
from pi_tui.tools.bash import BashParams, BashTool
from tests.support.waiting import until


async def run(tool: BashTool, command: str, **kwargs: object) -> ToolResult:
    signal = kwargs.pop("signal", None) or AbortSignal()
    assert isinstance(signal, AbortSignal)
    return await tool.execute("call", BashParams(command=command, **kwargs), signal)  # type: ignore[arg-type]


def process_gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/status") as status:
            return any(line.startswith("State:") and "Z" in line.split()[1] for line in status)
    except FileNotFoundError:
        return True


@pytest.fixture
def tool(tmp_path: Path) -> BashTool:
    return BashTool(str(tmp_path), spill_dir=tmp_path / "spill")


async def test_success_and_no_output(tool: BashTool) -> None:
    result = await run(tool, "echo hello")
    assert not result.is_error and result.text_content == "hello\n" and result.details is None
    assert (await run(tool, "true")).text_content == "(no output)"


async def test_runs_in_cwd_with_stdin_closed(tool: BashTool, tmp_path: Path) -> None:
    result = await run(tool, "pwd; cat; echo end")
    assert result.text_content == f"{tmp_path}\nend\n"


async def test_exit_code_is_an_error_with_output(tool: BashTool) -> None:
    result = await run(tool, "echo out; exit 3")
    assert result.is_error and result.text_content == "out\n\n\nCommand exited with code 3"
    assert result.details == {}
    assert (await run(tool, "exit 2")).text_content == "(no output)\n\nCommand exited with code 2"


async def test_stdout_and_stderr_keep_arrival_order(tool: BashTool) -> None:
    command = "echo out1; echo err1 >&2; echo out2; sleep 0.05; echo err2 >&2; echo out3"
    assert (await run(tool, command)).text_content == "out1\nerr1\nout2\nerr2\nout3\n"


async def test_timeout(tool: BashTool) -> None:
    """The commands would sleep a minute: the timeout kills them (the waits below give up at 20 s)."""
    result = await asyncio.wait_for(run(tool, "echo before; sleep 60", timeout=0.5), 20)
    assert result.is_error and result.text_content == "before\n\n\nCommand timed out after 0.5 seconds"
    result = await asyncio.wait_for(run(tool, "sleep 60", timeout=1), 20)
    assert result.text_content == "Command timed out after 1 seconds"


async def test_abort_kills_the_whole_group(tool: BashTool, tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    command = f"bash -c 'trap \"\" TERM INT; echo $$ > {pid_file}; sleep 60' & sleep 60"
    signal = AbortSignal()
    task = asyncio.create_task(run(tool, command, signal=signal))
    await until(lambda: pid_file.exists() and pid_file.read_text().strip())
    child = int(pid_file.read_text())
    signal.abort()
    result = await asyncio.wait_for(task, 20)  # a minute of sleep without the abort
    assert result.is_error and result.text_content == "Command aborted"
    await until(lambda: process_gone(child))


async def test_already_aborted(tool: BashTool) -> None:
    signal = AbortSignal()
    signal.abort()
    result = await run(tool, "echo never", signal=signal)
    assert result.is_error and result.text_content == "Command aborted"


async def test_daemon_holding_stdout_does_not_hang(tool: BashTool) -> None:
    """The daemon holds the output pipe for a minute: the tool returns while it still runs (the wait below
    gives up at 20 s)."""
    result = await asyncio.wait_for(run(tool, "sleep 60 & echo $!; echo started"), 20)
    pid_text, started_text, _ = result.text_content.split("\n")
    daemon = int(pid_text)
    try:
        assert not process_gone(daemon), "the tool returned without waiting for the daemon to end"
        assert started_text == "started" and not result.is_error
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(daemon, 9)


async def test_missing_cwd(tmp_path: Path) -> None:
    missing = tmp_path / "gone"
    result = await run(BashTool(str(missing)), "ls")
    assert result.is_error
    assert (
        result.text_content == f"Working directory does not exist: {missing}\nCannot execute bash commands."
    )


async def test_missing_custom_shell(tmp_path: Path) -> None:
    result = await run(BashTool(str(tmp_path), shell_path="/no/such/shell"), "ls")
    assert result.is_error and result.text_content == "Custom shell path not found: /no/such/shell"


async def test_invalid_utf8_and_ansi_split_across_chunks(tool: BashTool) -> None:
    command = r"printf '\033[3'; sleep 0.1; printf '1mred\033[0m \377\376ok\n'"
    assert (await run(tool, command)).text_content == "red \ufffd\ufffdok\n"


async def test_carriage_return_progress(tool: BashTool) -> None:
    command = r"for i in 1 2 3; do printf '\r%s%%' $i; sleep 0.02; done; printf '\rdone\n'"
    assert (await run(tool, command)).text_content == "done\n"


async def test_binary_output(tool: BashTool, tmp_path: Path) -> None:
    source = tmp_path / "noise.bin"
    source.write_bytes(os.urandom(200_000))
    result = await run(tool, f"cat {source}")
    assert not result.is_error
    text = result.text_content
    assert all(ch in "\t\n" or ord(ch) >= 0x20 for ch in text.split("\n\n[Showing")[0])
    spill = Path(result.details["fullOutputPath"])
    assert spill.read_bytes() == source.read_bytes()


async def test_truncated_error_keeps_notice_and_details(tool: BashTool) -> None:
    result = await run(tool, "seq 1 5000; exit 1")
    path = result.details["fullOutputPath"]
    assert result.is_error
    assert result.text_content.endswith(
        f"4999\n5000\n\n[Showing lines 3001-5000 of 5000. Full output: {path}]\n\nCommand exited with code 1"
    )
    assert result.details["truncation"]["truncatedBy"] == "lines"


async def test_updates_are_throttled_and_carry_counters(tool: BashTool) -> None:
    updates: list[tuple[float, ToolResult]] = []

    async def on_update(partial: ToolResult) -> None:
        updates.append((time.monotonic(), partial))

    command = "for i in $(seq 1 60); do echo line $i; sleep 0.01; done"
    started = time.monotonic()
    result = await tool.execute("c", BashParams(command=command), AbortSignal(), on_update)
    elapsed = time.monotonic() - started
    assert updates[0][1].content == [] and updates[0][1].details is None
    streamed = updates[1:]
    assert 2 <= len(streamed) <= elapsed * 10 + 2
    gaps = [b[0] - a[0] for a, b in itertools.pairwise(streamed[:-1])]
    assert all(gap >= 0.09 for gap in gaps)
    last = streamed[-1][1]
    assert last.text_content == result.text_content
    assert last.details["progress"]["totalLines"] == 60  # pi 1.6: the final newline starts no line
    assert last.details["progress"]["elapsedMs"] > 0


async def test_an_update_in_flight_when_the_command_ends_is_not_cancelled(
    tool: BashTool, tmp_path: Path
) -> None:
    """The agent awaits every update it was handed; one cancelled under it ended the whole run without a
    result (the block stayed 'running', nothing was recorded). The command ends while the delivery of its
    output is still waiting (the agent's event lock), which the test holds until the command has ended."""
    go = tmp_path / "go"
    delivering = asyncio.Event()
    handed: list[asyncio.Task[None]] = []

    async def deliver(partial: ToolResult) -> None:
        if partial.text_content == "out\n" and not go.exists():
            go.touch()  # the command may end now, while this delivery waits
            await delivering.wait()

    def on_update(partial: ToolResult) -> asyncio.Task[None]:
        handed.append(asyncio.create_task(deliver(partial)))
        return handed[-1]

    command = f"echo out; while [ ! -e {go} ]; do sleep 0.02; done"
    result = await tool.execute("c", BashParams(command=command), AbortSignal(), on_update)
    delivering.set()
    await asyncio.gather(*handed)
    assert result.text_content == "out\n" and not result.is_error
    assert not [task for task in handed if task.cancelled()]


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        while block := file.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def big_output_bytes() -> int:
    return 1 << 30 if os.environ.get("RELIABILITY_FULL") else 60 * 1024 * 1024


async def test_huge_output_bounded_preview_spill_identical_memory_bounded(
    tool: BashTool, tmp_path: Path
) -> None:
    size = big_output_bytes()
    command = f"yes 'the quick brown fox 0123456789' | head -c {size}"
    reference = tmp_path / "reference.out"
    await asyncio.to_thread(subprocess.run, ["bash", "-c", f"{command} > {reference}"], check=True)
    expected = await asyncio.to_thread(sha256_file, reference)
    tracemalloc.start()
    try:
        result = await run(tool, command)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    preview = result.text_content.split("\n\n[Showing")[0]
    assert len(preview.encode()) <= 51200
    assert result.details["truncation"]["totalBytes"] == size
    digest = await asyncio.to_thread(sha256_file, Path(result.details["fullOutputPath"]))
    assert digest == expected
    assert peak < 16 * 1024 * 1024
