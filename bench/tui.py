"""The Textual app under load, headless at 120x40 (`App.run_test`): first paint, streaming, a long session.

Each scenario runs in a fresh worker process (so imports, caches and RSS start cold) and reports JSON:
  paint      PiTuiApp created (for the chat: session file opened) -> first frame, for the start page and
             the chat on a new and on a 40-message session (best of 3); "first frame" = the first
             compositor refresh of that screen after its on_mount returned (for the chat: after its
             transcript is mounted, `ConversationView.show_transcript`); also process spawn -> first
             frame
  version    `pi-tui --version` process wall time (median of 5)
  stream     a paced model streams 4,000 tokens at 200 tokens/s (Markdown, 4 chars a token) while the
             user's `!` command prints 200,000 lines in 200 bursts over the same time; the reply ends
             with a bash tool call printing 200,000 lines at once. Frame = one screen update (layout,
             compositor render, and the terminal-sequence encoding a real terminal would be sent, which
             headless mode skips, so the probe does it), wall and CPU time; lag = oversleep of a 5 ms
             ticker on the loop; full GC pauses (generation 2). Checks: the reply's Markdown source equals
             the streamed text, both spill files hold every line, both tool blocks show the last line.
             The app runs as `pi-tui` launches it (GC tuned: `pi_tui.tui.app.tune_gc`); --default-gc
             runs it with Python's default collector for comparison.
  open       a 5,000-message session file (user / assistant with a tool call / tool result /
             assistant answer), opened from disk: SessionStore.open -> chat first frame (the app's
             modules are imported before the clock starts; their time is shown apart); RSS growth
             (VmHWM after minus VmRSS before the imports) and, in a second run, tracemalloc peak

Usage: python bench/tui.py [--quick] [--only paint,version,stream,open] [--profile SCENARIO] [--default-gc]
Targets (issue 8 item 12): first paint < 600 ms; frames p95 < 50 ms while streaming; all content absorbed.
Misses are reported, never an exit failure. Helpers live in bench/tui_support/ (probes, fixtures, the
scenario workers); this file is the driver.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tui_support.fixtures import TOKENS_PER_S, write_session  # noqa: E402  (after the path setup)
from tui_support.probes import SIZE  # noqa: E402
from tui_support.workers import CHAT_MESSAGES, worker  # noqa: E402

PAINT_TARGET_MS = 600.0
FRAME_P95_TARGET_MS = 50.0


# --- driver ----------------------------------------------------------------------------------------


def run_worker(*args: str, profile: bool = False) -> dict[str, Any]:
    command = [sys.executable, __file__, "--worker", *args, *(["--profile"] if profile else [])]
    run = subprocess.run(command, capture_output=True, text=True, check=False)
    if profile:
        print(run.stderr)
    if run.returncode != 0:
        raise SystemExit(f"worker {args[0]} failed:\n{run.stderr[-4000:]}")
    return dict(json.loads(run.stdout.strip().splitlines()[-1]))


def verdict(ok: bool) -> str:
    return "ok" if ok else "MISSED"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="1/5 of the tokens, lines and messages")
    parser.add_argument("--only", default="", help="comma-separated: paint,version,stream,open")
    parser.add_argument("--profile", default="", help="run one scenario under cProfile (paint, stream, open)")
    parser.add_argument(
        "--default-gc",
        action="store_true",
        help="stream with Python's default garbage collector instead of the app's tuning",
    )
    parser.add_argument("--worker", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.worker:
        worker(options.worker)
        return
    scale = 5 if options.quick else 1
    tokens, lines, messages = 4000 // scale, 200_000 // scale, 5000 // scale
    wanted = set(filter(None, options.only.split(","))) or {"paint", "version", "stream", "open"}
    rows: list[tuple[str, str, str, str]] = []
    profile = options.profile
    if "paint" in wanted:
        kinds = (
            ("start", "start page"),
            ("new", "chat, new session"),
            ("chat", f"chat, {CHAT_MESSAGES} messages"),
        )
        for kind, label in kinds:
            best = min(
                (
                    run_worker(
                        "paint",
                        kind,
                        str(time.time()),
                        profile=profile == "paint" and kind == "chat" and not attempt,
                    )
                    for attempt in range(3)
                ),
                key=lambda r: r["paint_ms"],
            )
            rows.append(
                (
                    f"first paint: {label}",
                    f"{best['paint_ms']:.0f} ms (best of 3)",
                    f"< {PAINT_TARGET_MS:.0f} ms",
                    verdict(best["paint_ms"] < PAINT_TARGET_MS),
                )
            )
            rows.append(
                (
                    f"  process spawn -> paint ({label})",
                    f"{best['process_ms']:.0f} ms (imports {best['import_ms']:.0f} ms)",
                    "",
                    "info",
                )
            )
    if "version" in wanted:
        times = []
        for _ in range(5):
            started = time.perf_counter()
            subprocess.run(
                [str(Path(sys.executable).parent / "pi-tui"), "--version"], check=True, capture_output=True
            )
            times.append((time.perf_counter() - started) * 1000)
        rows.append(("pi-tui --version", f"{statistics.median(times):.0f} ms median of 5", "", "info"))
    if "stream" in wanted:
        gc_mode = "default-gc" if options.default_gc else "tune-gc"
        r = run_worker("stream", str(tokens), str(lines), gc_mode, profile=profile == "stream")
        label = f"{r['tokens']} tokens @ {TOKENS_PER_S}/s + 2x{r['lines']:,} lines"
        label += " (default GC)" if options.default_gc else ""
        rows.append(
            (
                f"stream: {label}",
                f"{r['seconds']:.1f} s run, reply streamed in {r['stream_s']:.1f} s",
                "",
                "info",
            )
        )
        rows.append(
            (
                "  frame time p50 / p95 / max",
                f"{r['p50']:.1f} / {r['p95']:.1f} / {r['max']:.1f} ms over {r['frames']} frames"
                f" (CPU p95 {r['cpu_p95']:.1f} ms)",
                f"p95 < {FRAME_P95_TARGET_MS:.0f} ms",
                verdict(r["p95"] < FRAME_P95_TARGET_MS),
            )
        )
        rows.append(("  event-loop lag p99 / max", f"{r['lag_p99']:.1f} / {r['lag_max']:.1f} ms", "", "info"))
        rows.append(("  full GC pauses", f"{r['gc2_count']}, longest {r['gc2_max']:.0f} ms", "", "info"))
        absorbed = (
            r["markdown_ok"]
            and r["tails_ok"]
            and r["user_spill_lines"] == r["lines"]
            and r["tool_spill_lines"] == r["lines"]
        )
        rows.append(
            (
                "  content absorbed",
                f"markdown {'equal' if r['markdown_ok'] else 'DIFFERS'}; spill lines "
                f"{r['user_spill_lines']:,} (!cmd) {r['tool_spill_lines']:,} (tool); tails "
                f"{'end at last line' if r['tails_ok'] else 'WRONG'}",
                "all",
                verdict(absorbed),
            )
        )
        rows.append(("  peak RSS growth", f"{r['rss_growth_mb']:.1f} MB", "", "info"))
    if "open" in wanted:
        with tempfile.TemporaryDirectory(prefix="pi-tui-bench-") as scratch:
            path = write_session(Path(scratch) / "sessions", Path(scratch), messages)
            size_mb = path.stat().st_size / 2**20
            timed = min(
                (run_worker("open", str(path), "time", profile=profile == "open") for _ in range(2)),
                key=lambda r: r["paint_ms"],
            )
            traced = run_worker("open", str(path), "trace")
        rows.append(
            (
                f"open {messages:,}-message session ({size_mb:.1f} MB)",
                f"{timed['paint_ms']:.0f} ms to first paint (best of 2; imports before it"
                f" {timed['import_ms']:.0f} ms)",
                f"< {PAINT_TARGET_MS:.0f} ms",
                verdict(timed["paint_ms"] < PAINT_TARGET_MS),
            )
        )
        rows.append(
            (
                "  memory",
                f"RSS +{timed['rss_growth_mb']:.0f} MB; tracemalloc peak {traced['traced_peak_mb']:.0f} MB",
                "",
                "info",
            )
        )
    width = max(len(row[0]) for row in rows)
    fig = max(len(row[1]) for row in rows)
    print(f"pi-tui TUI benchmark, headless {SIZE[0]}x{SIZE[1]}{' (quick)' if options.quick else ''}")
    for name, figure, target, word in rows:
        print(f"{name:<{width}}  {figure:<{fig}}  {target:<14} {word}")


if __name__ == "__main__":
    main()
