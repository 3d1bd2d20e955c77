"""One huge session entry: peak memory (RSS) of `pi-tui context` on a session whose one tool result is
hundreds of MB on a single line, against a session of the same shape with a small result.

For each kind of text, a session (user → tool call → tool result → answer, `tests/support/big_session.py`)
is written to a temporary folder and `python -m pi_tui context <file>` runs in a subprocess with its own
pi-tui and pi homes there; its peak RSS is the child's `ru_maxrss` from `os.wait4`, the per-child form
of `getrusage(RUSAGE_CHILDREN)` (which keeps the largest child so far, hiding every later one). Kinds:
  words      prose without a newline (spaces between words)
  nospace    base64-like letters and digits, no whitespace at all
  letter     one letter repeated: a single pre-token for the tokenizer, the worst case

Usage: python bench/big_entry.py [--mb 200] [--kinds words nospace letter]
Target (issue 17): below 500 MB for a 200 MB entry (454 MB for each kind; a 200 MB letter run reached
9.6 GB, words 1.80 GB, nospace 3.20 GB before counting went by bounded pieces and the count cache hashed
texts in slices).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tests.support.big_session import write_one_big_result  # noqa: E402

MB = 1_000_000
UNITS = {
    "words": "lorem ipsum dolor sit amet, consectetur 12345 adipiscing elit; ",
    "nospace": "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo0123456789abcdefghijklmnopqrs",
    "letter": "a" * 64,
}


def text_of(kind: str, chars: int) -> str:
    unit = UNITS[kind]
    return (unit * (chars // len(unit) + 1))[:chars]


def run_context(session: Path, folder: Path) -> tuple[int, float, int, str]:
    """Exit code, seconds, peak RSS in bytes and the report's total line of one `pi-tui context` run."""
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "PI_TUI_HOME": str(folder / "pi-tui-home"),
        "PI_CODING_AGENT_DIR": str(folder / "pi-agent"),
    }
    report = folder / "report.txt"
    started = time.perf_counter()
    with report.open("wb") as out:
        child = subprocess.Popen(
            [sys.executable, "-m", "pi_tui", "context", str(session)], stdout=out, env=env, cwd=folder
        )
        _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    total = next(
        (" ".join(line.split()) for line in report.read_text().splitlines() if "in context" in line), ""
    )
    # ru_maxrss is in KiB on Linux.
    return child.returncode, seconds, usage.ru_maxrss * 1024, total


def measure(name: str, text: str, folder: Path) -> int:
    session = folder / f"{name}.jsonl"
    size = write_one_big_result(session, text, cwd=str(folder))
    code, seconds, peak, total = run_context(session, folder)
    session.unlink()
    print(
        f"  {name:<16} file {size / MB:7.1f} MB  peak RSS {peak / MB:7.1f} MB  {seconds:6.1f} s"
        f"  exit {code}  {total}"
    )
    return peak


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--mb", type=int, default=200, help="size of the big tool result in MB")
    parser.add_argument("--kinds", nargs="+", choices=sorted(UNITS), default=list(UNITS))
    args = parser.parse_args()
    print(f"pi-tui context on one {args.mb} MB tool result (RSS: resident set of the child process)")
    with tempfile.TemporaryDirectory(prefix="pi-tui-bench-") as name:
        folder = Path(name)
        baseline = measure("baseline (1 KB)", text_of("words", 1000), folder)
        for kind in args.kinds:
            peak = measure(kind, text_of(kind, args.mb * MB), folder)
            print(f"  {'':<16} {(peak - baseline) / MB:,.1f} MB above the baseline")


if __name__ == "__main__":
    main()
