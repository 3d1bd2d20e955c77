"""Worker-side probes of bench/tui.py: frame times, full GC pauses, loop lag, first paint, RSS."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

SIZE = (120, 40)
TICK_S = 0.005


def proc_status(field: str) -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return 0


def reset_peak_rss() -> int:
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")
    return proc_status("VmRSS")


def count_lines(path: str) -> int:
    with open(path, "rb") as file:
        return sum(1 for _ in file)


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else 0.0


# --- probes (worker side) -------------------------------------------------------------------------


class FrameProbe:
    """Times every screen update and notes each screen's refreshes; patched in at class level."""

    def __init__(self) -> None:
        from textual._compositor import CompositorUpdate
        from textual.app import App
        from textual.screen import Screen

        self.frames: list[tuple[float, float, float]] = []  # (start, wall, CPU of this thread)
        self.paints: list[tuple[float, Any]] = []  # (time, screen)
        self.painted = asyncio.Event()
        self.wanted: Callable[[Any], bool] = lambda screen: False
        self._depth = 0
        probe = self

        def timed(original: Callable[..., Any]) -> Callable[..., Any]:
            def wrapper(*args: Any, **kwargs: Any) -> Any:
                probe._depth += 1
                started, cpu = time.perf_counter(), time.thread_time()
                try:
                    return original(*args, **kwargs)
                finally:
                    probe._depth -= 1
                    if probe._depth == 0:
                        wall = time.perf_counter() - started
                        probe.frames.append((started, wall, time.thread_time() - cpu))

            return wrapper

        refresh = Screen._compositor_refresh

        def compositor_refresh(screen: Screen[Any]) -> None:
            refresh(screen)
            probe.paints.append((time.perf_counter(), screen))
            if probe.wanted(screen):
                probe.painted.set()

        display = App._display

        def encode(app: App[Any], screen: Screen[Any], renderable: Any) -> None:
            display(app, screen, renderable)
            if app.is_headless and isinstance(renderable, CompositorUpdate):
                renderable.render_segments(app.console)

        Screen._on_timer_update = timed(Screen._on_timer_update)  # type: ignore[method-assign]
        Screen._refresh_layout = timed(Screen._refresh_layout)  # type: ignore[method-assign]
        Screen._compositor_refresh = compositor_refresh  # type: ignore[method-assign]
        App._display = encode  # type: ignore[method-assign]

    def stats(self, since: float, until: float) -> dict[str, float]:
        walls = [wall * 1000 for start, wall, _ in self.frames if since <= start <= until]
        cpus = [cpu * 1000 for start, _, cpu in self.frames if since <= start <= until]
        return {
            "frames": len(walls),
            "p50": percentile(walls, 0.5),
            "p95": percentile(walls, 0.95),
            "max": max(walls, default=0.0),
            "cpu_p50": percentile(cpus, 0.5),
            "cpu_p95": percentile(cpus, 0.95),
        }


class GcProbe:
    """Pauses of full (generation 2) garbage collections, which stop everything, frames included."""

    def __init__(self) -> None:
        self.pauses: list[float] = []
        self._started = 0.0
        gc.callbacks.append(self._callback)

    def _callback(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        elif info["generation"] == 2:
            self.pauses.append((time.perf_counter() - self._started) * 1000)

    def stop(self) -> dict[str, float]:
        gc.callbacks.remove(self._callback)
        return {"gc2_count": len(self.pauses), "gc2_max": max(self.pauses, default=0.0)}


class LagProbe:
    """Oversleep of a short ticker on the app's loop: how long the loop was busy with something else."""

    def __init__(self) -> None:
        self.lags: list[float] = []
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        while True:
            started = time.perf_counter()
            await asyncio.sleep(TICK_S)
            self.lags.append((time.perf_counter() - started - TICK_S) * 1000)

    def stop(self) -> dict[str, float]:
        self._task.cancel()
        return {"lag_p99": percentile(self.lags, 0.99), "lag_max": max(self.lags, default=0.0)}


def mark_returned(cls: type, marks: dict[str, float], key: str, method: str = "on_mount") -> None:
    """Record when `cls.<method>` first returns (the app's or a screen's on_mount; the chat's transcript
    shown, which is what a user waits for)."""
    original = getattr(cls, method)

    @functools.wraps(original)  # Textual passes the event only to handlers whose signature asks for it
    async def marked(self: Any, *args: Any, **kwargs: Any) -> None:
        result = original(self, *args, **kwargs)
        if asyncio.iscoroutine(result):
            await result
        marks.setdefault(key, time.perf_counter())

    setattr(cls, method, marked)


async def first_paint(app: Any, probe: FrameProbe, ready: Callable[[], float | None]) -> float:
    """Run `app` until a frame of its current screen after `ready`; that frame's perf_counter time."""

    def wanted(screen: Any) -> bool:
        at = ready()
        return at is not None and screen is app.screen and time.perf_counter() >= at

    probe.wanted = wanted
    async with app.run_test(size=SIZE):
        await asyncio.wait_for(probe.painted.wait(), 120)
        painted = next(t for t, screen in reversed(probe.paints) if wanted(screen))
    return painted
