"""The scenarios of bench/tui.py, each run in a fresh process: paint, stream, open."""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tui_support.fixtures import TOKENS_PER_S, PacedModel, make_app, reply_text, write_session
from tui_support.probes import (
    SIZE,
    FrameProbe,
    GcProbe,
    LagProbe,
    count_lines,
    first_paint,
    mark_returned,
    proc_status,
    reset_peak_rss,
)

BURSTS = 200
CHAT_MESSAGES = 40


async def paint_worker(kind: str, spawned_at: float) -> dict[str, Any]:
    imported = time.perf_counter()
    from pi_tui.session_file.store import SessionStore
    from pi_tui.tui.app import PiTuiApp
    from pi_tui.tui.widgets.conversation import ConversationView

    import_ms = (time.perf_counter() - imported) * 1000
    probe = FrameProbe()
    marks: dict[str, float] = {}
    mark_returned(PiTuiApp, marks, "app")
    mark_returned(ConversationView, marks, "chat", "show_transcript")
    with tempfile.TemporaryDirectory(prefix="pi-tui-bench-") as scratch:
        home = Path(scratch)
        (home / "project").mkdir()
        if kind == "start":
            started = time.perf_counter()
            app = PiTuiApp(
                cwd=home / "project",
                session_root=home / "sessions",
                pi_session_root=home / "pi",
                setup_notice="No model configured.",
            )
            painted = await first_paint(app, probe, lambda: marks.get("app"))
        else:
            messages = 0 if kind == "new" else CHAT_MESSAGES
            path = write_session(home / "sessions", home / "project", messages)
            started = time.perf_counter()
            app = make_app(SessionStore.open(path), PacedModel("", "true"), home)
            painted = await first_paint(app, probe, lambda: marks.get("chat"))
    return {
        "import_ms": import_ms,
        "paint_ms": (painted - started) * 1000,
        "process_ms": (time.time() - spawned_at) * 1000 - (time.perf_counter() - painted) * 1000,
    }


async def stream_worker(tokens: int, lines: int, tune_gc: bool = True) -> dict[str, Any]:
    from textual.widgets import Static

    from pi_tui.session_file.store import SessionStore
    from pi_tui.tui.widgets.conversation import ConversationView
    from pi_tui.tui.widgets.message_blocks import AssistantBlock
    from pi_tui.tui.widgets.parked_markdown import markdown_source
    from pi_tui.tui.widgets.prompt_area import PromptArea
    from pi_tui.tui.widgets.tool_call_block import ToolCallBlock

    probe = FrameProbe()
    text = reply_text(tokens)
    per_burst = lines // BURSTS
    pause = tokens / TOKENS_PER_S / BURSTS * 0.9
    user_command = (
        f"for i in $(seq 0 {BURSTS - 1}); do seq $((i*{per_burst}+1)) $((i*{per_burst}+{per_burst}));"
        f" sleep {pause:.3f}; done"
    )
    model = PacedModel(text, f"seq 1 {lines}")
    with tempfile.TemporaryDirectory(prefix="pi-tui-bench-") as scratch:
        home = Path(scratch)
        (home / "project").mkdir()
        store = SessionStore.create(str(home / "project"), home / "sessions")
        app = make_app(store, model, home, tune_gc=tune_gc)
        ends: dict[str, Any] = {}
        app.runtime.subscribe(
            lambda event: (
                ends.setdefault(event.type, event)
                if event.type in ("bash_end", "tool_execution_end")
                else None
            )
        )
        rss_before = reset_peak_rss()
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            prompt = app.screen.query_one(PromptArea)
            lag, full_gcs = LagProbe(), GcProbe()
            started = time.perf_counter()
            prompt.text = "Explain the plan, then run the build."
            await pilot.press("enter")
            prompt.text = "!" + user_command
            await pilot.press("enter")
            await asyncio.sleep(0.5)  # both workers (the turn, the command) have started
            await app.workers.wait_for_complete()
            await pilot.pause(0.3)
            finished = time.perf_counter()
            lags = {**lag.stop(), **full_gcs.stop()}
            conversation = app.screen.query_one(ConversationView)
            blocks = list(conversation.query(AssistantBlock))
            # A long streamed reply is split into Markdown segments, some parked: its text joins them.
            sources = [markdown_source(block) for block in blocks]
            tails = [str(block.query(Static)[1].render()) for block in conversation.query(ToolCallBlock)]
        rss_growth = proc_status("VmHWM") - rss_before
        spills = {}
        for kind in ("bash_end", "tool_execution_end"):
            event = ends.get(kind)
            spill = (
                (
                    event.message.full_output_path
                    if kind == "bash_end"
                    else (event.result.details or {}).get("fullOutputPath")
                )
                if event
                else None
            )
            spills[kind] = count_lines(spill) if spill else 0
    return {
        **probe.stats(started, finished),
        **lags,
        "seconds": finished - started,
        "stream_s": model.stream_seconds,
        "tokens": tokens,
        "lines": lines,
        "markdown_ok": text in sources,
        "user_spill_lines": spills["bash_end"],
        "tool_spill_lines": spills["tool_execution_end"],
        "tails_ok": len(tails) == 2 and all(tail.rstrip().endswith(str(lines)) for tail in tails),
        "rss_growth_mb": rss_growth / 2**20,
    }


async def open_worker(path: str, trace: bool) -> dict[str, Any]:
    import tracemalloc

    rss_before = reset_peak_rss()
    imported = time.perf_counter()
    from pi_tui.session.runtime import AgentSessionRuntime  # noqa: F401  (imports timed apart)
    from pi_tui.session_file.store import SessionStore
    from pi_tui.tui.app import PiTuiApp  # noqa: F401
    from pi_tui.tui.widgets.conversation import ConversationView

    probe = FrameProbe()
    marks: dict[str, float] = {}
    mark_returned(ConversationView, marks, "chat", "show_transcript")
    with tempfile.TemporaryDirectory(prefix="pi-tui-bench-") as scratch:
        if trace:
            tracemalloc.start()
        started = time.perf_counter()
        store = SessionStore.open(Path(path))
        app = make_app(store, PacedModel("", "true"), Path(scratch))
        painted = await first_paint(app, probe, lambda: marks.get("chat"))
        peak = tracemalloc.get_traced_memory()[1] if trace else 0
        rss_growth = proc_status("VmHWM") - rss_before
    return {
        "paint_ms": (painted - started) * 1000,
        "import_ms": (started - imported) * 1000,
        "entries": len(store.entries),
        "rss_growth_mb": rss_growth / 2**20,
        "traced_peak_mb": peak / 2**20,
    }


def worker(args: list[str]) -> None:
    name, rest = args[0], args[1:]
    profile = rest and rest[-1] == "--profile"
    if profile:
        rest = rest[:-1]
    runs = {
        "paint": lambda: paint_worker(rest[0], float(rest[1])),
        "stream": lambda: stream_worker(int(rest[0]), int(rest[1]), rest[2] != "default-gc"),
        "open": lambda: open_worker(rest[0], rest[1] == "trace"),
    }
    if profile:
        import cProfile
        import pstats

        profiler = cProfile.Profile()
        result = profiler.runcall(asyncio.run, runs[name]())
        pstats.Stats(profiler, stream=sys.stderr).sort_stats("tottime").print_stats(30)
    else:
        result = asyncio.run(runs[name]())
    print(json.dumps(result))
