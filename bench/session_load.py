"""Opening a big session file: time and peak Python memory, against `json.loads` of every line.

Writes long single-branch sessions with `tests/support/big_session.py` (user → assistant tool call →
tool result → assistant answer, repeated) and measures, for each size:
  json.loads  the baseline: every line parsed into dicts and kept (no validation, no models)
  open        `SessionStore.open`: every entry read, validated and indexed
  open+ctx    the same plus `build_context` at the leaf, i.e. what resuming the session costs
Times are the best of `--repeats` runs without tracing; peaks come from one more run under tracemalloc.
Then the session list of one folder: `list_sessions` over `--listed-files` copies of the largest pi
fixture (90 KB, 46 messages), as the start page and `/resume` read it.

Usage: python bench/session_load.py [--entries 20000 200000] [--repeats 3] [--listed-files 300]
Target (issues 8, 9): 200,000 entries open with bounded memory, several times cheaper than pydantic
objects per entry (7.4 KB and 27 s before). Listing 300 such files: under 3 s.
"""

from __future__ import annotations

import argparse
import gc
import json
import shutil
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from pi_tui.config.paths import cwd_folder_name  # noqa: E402
from pi_tui.session_file.listing import list_sessions  # noqa: E402
from pi_tui.session_file.store import SessionStore  # noqa: E402
from tests.support.big_session import write_big_session  # noqa: E402

MB = 1_000_000
LISTED_FIXTURE = REPO / "tests" / "fixtures" / "pi-sessions" / "c-auto-compaction.jsonl"
LISTED_CWD = "/home/user/project"


def parse_every_line(path: Path) -> list[Any]:
    with path.open("rb") as handle:
        return [json.loads(line) for line in handle]


def open_store(path: Path) -> SessionStore:
    return SessionStore.open(path)


def open_and_rebuild(path: Path) -> SessionStore:
    store = SessionStore.open(path)
    store.build_context()
    return store


def best_seconds(work: Callable[[Path], object], path: Path, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        gc.collect()
        started = time.perf_counter()
        kept = work(path)
        best = min(best, time.perf_counter() - started)
        del kept
    return best


def peak_bytes(work: Callable[[Path], object], path: Path) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        kept = work(path)
        peak = tracemalloc.get_traced_memory()[1]
        del kept
    finally:
        tracemalloc.stop()
    return peak


def row(name: str, seconds: float, peak: int, entries: int) -> str:
    return f"  {name:<10} {seconds:7.2f} s  peak {peak / MB:7.1f} MB ({peak // entries:,} B/entry)"


def measure(entries: int, folder: Path, repeats: int) -> None:
    path = folder / f"big-{entries}.jsonl"
    size = write_big_session(path, entries)
    print(f"{entries:,} entries, {size / MB:.1f} MB")
    base_s = best_seconds(parse_every_line, path, repeats)
    base_peak = peak_bytes(parse_every_line, path)
    print(row("json.loads", base_s, base_peak, entries))
    for name, work in (("open", open_store), ("open+ctx", open_and_rebuild)):
        seconds = best_seconds(work, path, repeats)
        peak = peak_bytes(work, path)
        ratios = f"  = {seconds / base_s:.2f}x time, {peak / base_peak:.2f}x memory of json.loads"
        print(row(name, seconds, peak, entries) + ratios)
    path.unlink()


def measure_listing(files: int, root: Path, repeats: int) -> None:
    folder = root / cwd_folder_name(LISTED_CWD)
    folder.mkdir(parents=True)
    for index in range(files):
        shutil.copyfile(LISTED_FIXTURE, folder / f"{index:04d}.jsonl")
    rows = list_sessions(LISTED_CWD, root)
    assert len(rows) == files, f"listed {len(rows)} of {files} sessions"
    seconds = best_seconds(lambda _: list_sessions(LISTED_CWD, root), folder, repeats)
    size = LISTED_FIXTURE.stat().st_size
    print(f"list_sessions over {files} files of {size / 1000:.0f} KB: {seconds:.2f} s (target < 3 s)")
    shutil.rmtree(folder)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--entries", type=int, nargs="+", default=[20_000, 200_000])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--listed-files", type=int, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pi-tui-bench-") as folder:
        for entries in args.entries:
            measure(entries, Path(folder), args.repeats)
        measure_listing(args.listed_files, Path(folder), args.repeats)


if __name__ == "__main__":
    main()
