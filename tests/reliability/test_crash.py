"""Crash safety of the session file: `kill -9` at random points loses at most the entry being
written, every complete line is the entry that was meant, and the next open (and compaction) works.

A real headless session (`tests/support/crash_driver.py`: scripted model, real tools, real store and
writer) prints an ack for every line once it is on disk. The killed run's file is compared with a
complete reference run, entry by entry, ids and timings aside. Kill points come from seeded RNGs;
`RELIABILITY_FULL=1` runs 100 kills of each kind instead of 5.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pi_tui.ai.scripted import ScriptedProvider, ScriptedReply
from pi_tui.context.compaction.inline_prompts import TURN_CONTEXT_DIVIDER
from pi_tui.session_file.entries import CompactionEntry
from pi_tui.session_file.loader import LoadedSession, load_session_text, read_session_file
from pi_tui.session_file.store import SessionStore
from tests.support import crash_driver
from tests.support.conversation import roles

FULL = os.environ.get("RELIABILITY_FULL") == "1"
KILLS = 100 if FULL else 5
PROMPTS = 24
COMPACT_BASE_PROMPTS = 8
SUMMARY_DELAY_S = 0.004
DRIVER = Path(crash_driver.__file__)
# Keys whose values legitimately differ between two runs of the same script.
VOLATILE = {"timestamp", "durationMs", "usage", "summaryUsage", "tokensBefore", "tokensAfter"}
TORN = "incomplete last line (interrupted write), skipped"


@dataclass
class Run:
    acked: list[str]
    finished: bool
    saw_summary_start: bool
    stderr: str


def _start(session: Path, cwd: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(DRIVER), str(session), str(cwd), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _collect(process: subprocess.Popen[str], lines: list[str]) -> Run:
    assert process.stdout is not None
    lines.extend(process.stdout.read().splitlines())
    _, stderr = process.communicate()
    acked = [line.split()[1] for line in lines if line.startswith("ack ")]
    return Run(acked, "done" in lines, "summary-start" in lines, stderr)


def run_to_end(session: Path, cwd: Path, *args: str) -> Run:
    process = _start(session, cwd, *args)
    run = _collect(process, [])
    assert process.returncode == 0 and run.finished, run.stderr
    return run


def run_and_kill(session: Path, cwd: Path, rng: random.Random, after_acks: int, *args: str) -> Run:
    """Kill -9 once `after_acks` lines are acked (plus a random few milliseconds)."""
    process = _start(session, cwd, *args)
    assert process.stdout is not None
    seen: list[str] = []
    acks = 0
    while acks < after_acks and (line := process.stdout.readline()):
        seen.append(line.rstrip("\n"))
        acks += line.startswith("ack ")
    time.sleep(rng.uniform(0, 0.004))
    process.send_signal(signal.SIGKILL)
    return _collect(process, seen)


def run_and_kill_in_summary(session: Path, cwd: Path, rng: random.Random, window_s: float) -> Run:
    """Kill -9 at a random moment after the summary request went out."""
    process = _start(session, cwd, "--compact", "--summary-delay", str(SUMMARY_DELAY_S))
    assert process.stdout is not None
    seen: list[str] = []
    while line := process.stdout.readline():
        seen.append(line.rstrip("\n"))
        if line.startswith("summary-start"):
            break
    time.sleep(rng.uniform(0, window_s))
    process.send_signal(signal.SIGKILL)
    return _collect(process, seen)


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _strip(item) for key, item in value.items() if key not in VOLATILE}
    if isinstance(value, list):
        return [_strip(item) for item in value]
    return value


def shapes(objects: list[dict[str, Any]]) -> list[Any]:
    """Each line with ids replaced by line positions and run-dependent values removed."""
    position = {obj["id"]: index for index, obj in enumerate(objects)}
    result: list[Any] = []
    for obj in objects:
        shape = _strip({key: value for key, value in obj.items() if key != "id"})
        if obj["type"] == "session":
            shape = {"type": "session"}
        shape["parentId"] = position.get(obj.get("parentId"))
        if obj["type"] == "custom":
            shape["data"] = None  # request records: timings, hashes and entry ids
        if obj["type"] == "compaction":
            shape["firstKeptEntryId"] = position[obj["firstKeptEntryId"]]
        result.append(shape)
    return result


def complete_lines(path: Path) -> tuple[list[dict[str, Any]], bytes]:
    """Every `\\n`-terminated line parsed (each must be a JSON object) and the unterminated tail."""
    *lines, tail = path.read_bytes().split(b"\n")
    objects = [json.loads(line) for line in lines if line.strip()]
    assert all(isinstance(obj, dict) for obj in objects)
    return objects, tail


def check_after_crash(path: Path, reference: list[Any], run: Run) -> LoadedSession:
    """The killed run's file: loads, is a prefix of the reference, and holds every acked line."""
    objects, tail = complete_lines(path)
    loaded = read_session_file(path)
    assert loaded.writable and loaded.header is not None
    messages = [diagnostic.message for diagnostic in loaded.diagnostics]
    # A torn tail is reported, never raised; an intact (even unterminated) last line is kept.
    assert messages in ([], [TORN]), messages
    if messages:
        assert tail and loaded.diagnostics[0].line_number == len(objects) + 1
    loaded_ids = [loaded.header.id, *(entry.id for entry in loaded.entries)]
    assert loaded_ids[: len(objects)] == [obj["id"] for obj in objects]
    if tail and not messages:
        objects.append(json.loads(tail))
    assert shapes(objects) == reference[: len(objects)]
    assert set(run.acked) <= set(loaded_ids), "an acknowledged line was lost"
    return loaded


def check_next_open(path: Path, loaded: LoadedSession) -> None:
    """Reopening appends cleanly after a torn tail; the fragment becomes one skipped line."""
    store = SessionStore.open(path)
    assert store.writable
    marker = store.append_custom("crash-test", {"after": "kill"})
    reloaded = read_session_file(path)
    assert [entry.id for entry in reloaded.entries] == [*(entry.id for entry in loaded.entries), marker.id]
    assert reloaded.entries[-1].parent_id == (loaded.entries[-1].id if loaded.entries else None)
    assert len(reloaded.diagnostics) == len(loaded.diagnostics)
    assert all("skipped" in diagnostic.message for diagnostic in reloaded.diagnostics)


def report(seed: int, kind: str, run: Run, loaded: LoadedSession) -> None:
    """One line per kill for docs/reliability.md (`pytest -s`)."""
    lines, torn = len(loaded.entries) + 1, bool(loaded.diagnostics)
    print(f"\n[reliability] kill {kind} seed={seed}: acked={len(run.acked)} lines={lines} torn={torn}")


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("crash")


@pytest.fixture(scope="module")
def reference(workspace: Path) -> tuple[list[Any], int]:
    """The complete run: its shapes and how many lines it acked."""
    session = workspace / "reference" / "session.jsonl"
    run = run_to_end(session, workspace / "project", "--prompts", str(PROMPTS))
    objects, tail = complete_lines(session)
    assert tail == b"" and len(run.acked) == len(objects)
    return shapes(objects), len(run.acked)


@pytest.fixture(scope="module")
def compaction_reference(workspace: Path) -> tuple[Path, list[Any]]:
    """A small session (kept as the base for compaction kills) and the shapes after its compaction."""
    base = workspace / "compact-base" / "session.jsonl"
    run_to_end(base, workspace / "project", "--prompts", str(COMPACT_BASE_PROMPTS))
    compacted = workspace / "compact-reference" / "session.jsonl"
    compacted.parent.mkdir()
    shutil.copy(base, compacted)
    run = run_to_end(compacted, workspace / "project", "--compact", "--summary-delay", "0")
    assert any(line for line in run.acked)
    objects, _ = complete_lines(compacted)
    assert objects[-1]["type"] == "compaction"
    return base, shapes(objects)


@pytest.mark.parametrize("seed", range(KILLS))
def test_kill_during_a_run_loses_at_most_the_entry_being_written(
    seed: int, workspace: Path, reference: tuple[list[Any], int]
) -> None:
    shapes_expected, total_acks = reference
    rng = random.Random(seed)
    session = workspace / f"kill-{seed}" / "session.jsonl"
    after = rng.randint(1, total_acks - 1)
    run = run_and_kill(session, workspace / "project", rng, after, "--prompts", str(PROMPTS))

    loaded = check_after_crash(session, shapes_expected, run)
    assert len(loaded.entries) + 1 >= after
    report(seed, "run", run, loaded)
    check_next_open(session, loaded)


@pytest.mark.parametrize("seed", range(KILLS))
async def test_kill_during_compaction_leaves_no_half_compaction_and_the_next_one_works(
    seed: int, workspace: Path, compaction_reference: tuple[Path, list[Any]]
) -> None:
    base, expected = compaction_reference
    rng = random.Random(1000 + seed)
    session = workspace / f"compact-kill-{seed}" / "session.jsonl"
    session.parent.mkdir()
    shutil.copy(base, session)
    # The summary streams for about SUMMARY chars / 16 chunks x the delay: kill inside it or after.
    window = len(crash_driver.SUMMARY) / 16 * SUMMARY_DELAY_S * 3
    run = run_and_kill_in_summary(session, workspace / "project", rng, window)
    assert run.saw_summary_start

    loaded = check_after_crash(session, expected, run)
    compactions = [entry for entry in loaded.entries if isinstance(entry, CompactionEntry)]
    assert len(compactions) <= 1
    report(seed, f"compaction (written: {bool(compactions)})", run, loaded)
    check_next_open(session, loaded)

    replies = [ScriptedReply(text="after the crash " * 200) for _ in range(2)]
    # One inline call when the cut splits a turn: both summaries in one reply, divided as asked.
    recovered = f"## Goal\nRecovered.\n\n{TURN_CONTEXT_DIVIDER}\n\n## Original Request\nContinue."
    summaries = [ScriptedReply(text=recovered) for _ in range(2)]
    session_object = crash_driver.make_session(
        session, workspace / "project", ScriptedProvider([*replies, *summaries])
    )
    await session_object.prompt("continue " * 200)
    await session_object.prompt("and again " * 200)
    outcome = await session_object.compact()
    assert outcome.error is None and outcome.entry_id is not None
    final = read_session_file(session)
    assert isinstance(final.entries[-1], CompactionEntry) and final.entries[-1].id == outcome.entry_id
    assert final.entries[-1].summary.startswith("## Goal\nRecovered.")
    rebuilt = SessionStore.open(session).build_context().messages
    assert roles(rebuilt)[0] == "compactionSummary"


def test_a_line_torn_anywhere_is_skipped_and_never_taken_as_an_entry(
    compaction_reference: tuple[Path, list[Any]], workspace: Path
) -> None:
    """A crash can also leave any prefix of the last write on disk (power loss): cut the compacted file
    at every byte of its compaction line and at random offsets elsewhere."""
    base, expected = compaction_reference
    data = (workspace / "compact-reference" / "session.jsonl").read_bytes()
    compaction_start = data.rstrip(b"\n").rfind(b"\n") + 1
    rng = random.Random(7)
    step = 1 if FULL else 97
    offsets = [*range(compaction_start + 1, len(data) - 1, step), *rng.sample(range(1, len(data)), 40)]
    for cut in offsets:
        text = data[:cut].decode("utf-8", errors="replace")
        loaded = load_session_text(base, text)
        complete = text.count("\n")
        torn = not text.endswith("\n")
        assert loaded.header is not None and len(loaded.entries) + 1 in (complete, complete + 1)
        kept = len(loaded.entries) + 1
        if kept == complete + 1:  # the cut fell just before the final newline: the line is whole
            assert text.endswith("}")
        else:
            assert [d.message for d in loaded.diagnostics] == ([TORN] if torn else [])
        entries = [entry.to_json_obj() for entry in loaded.entries]
        header = json.loads(data.split(b"\n", 1)[0])
        assert shapes([header, *entries]) == expected[:kept]


def test_appends_from_parallel_threads_write_each_entry_once(tmp_path: Path) -> None:
    """Parallel summary calls record their requests from two worker threads at once."""
    store = SessionStore.open(tmp_path / "session.jsonl", cwd=str(tmp_path))
    store.append_custom("first", None)
    store._write_pending(force=True)
    barrier = threading.Barrier(4)

    def append_many(worker: int) -> None:
        barrier.wait()
        for number in range(50):
            store.append_custom("parallel", {"worker": worker, "number": number})

    threads = [threading.Thread(target=append_many, args=(worker,)) for worker in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    objects, tail = complete_lines(tmp_path / "session.jsonl")
    ids = [obj["id"] for obj in objects]
    assert tail == b"" and len(ids) == len(set(ids)) == 1 + 1 + 4 * 50
    parents = [obj["parentId"] for obj in objects[2:]]
    assert parents == ids[1:-1], "every entry is the child of the one written before it"
    assert read_session_file(tmp_path / "session.jsonl").diagnostics == []
