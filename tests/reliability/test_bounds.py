"""Resource bounds: a 10 MB pasted prompt, a 100 MB single-line tool output and a session of
many entries are each handled with bounded memory (tracemalloc peaks), and the UI stays responsive on
the big session. The quick default opens 20,000 entries; `RELIABILITY_FULL=1` the full 200,000.

Measured figures are printed (`pytest -s`) for docs/reliability.md.
"""

from __future__ import annotations

import asyncio
import os
import time
import tracemalloc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from pi_tui.agent.tool import ToolResult
from pi_tui.ai.abort import AbortSignal
from pi_tui.ai.messages import TextContent, UserMessage
from pi_tui.ai.scripted import ScriptedProvider, ScriptedReply
from pi_tui.config.model_config import ModelConfig
from pi_tui.config.settings import CompactionSettings, RetrySettings, Settings
from pi_tui.context.resources import load_resources
from pi_tui.session.agent_session import AgentSession, SessionConfig
from pi_tui.session.runtime import AgentSessionRuntime, RuntimeOptions
from pi_tui.session.services import AgentSessionServices
from pi_tui.session_file.entries import MessageEntry
from pi_tui.session_file.loader import read_session_file
from pi_tui.session_file.store import SessionStore
from pi_tui.tools.bash import BashParams, BashTool
from pi_tui.tools.truncate import DEFAULT_MAX_BYTES
from pi_tui.tui.app import PiTuiApp
from pi_tui.tui.widgets.prompt_area import PromptArea
from tests.support.big_session import write_big_session
from tests.tui.pilot_helpers import settle

FULL = os.environ.get("RELIABILITY_FULL") == "1"
MB = 1_000_000
PROMPT_CHARS = 10 * MB
OUTPUT_BYTES = 100 * MB
BIG_SESSION_ENTRIES = 200_000 if FULL else 20_000
HUGE_WINDOW = ModelConfig(id="m", provider="scripted", context_window=50_000_000)


@dataclass
class Measured:
    peak: int = 0
    seconds: float = 0.0


@contextmanager
def measured() -> Iterator[Measured]:
    """Peak Python heap (tracemalloc) and wall time of the block."""
    result = Measured()
    tracemalloc.start()
    started = time.perf_counter()
    try:
        yield result
    finally:
        result.seconds = time.perf_counter() - started
        result.peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()


def only_letter_a(path: Path) -> bool:
    with path.open("rb") as handle:
        while block := handle.read(8 * MB):
            if block.count(b"a") != len(block):
                return False
    return True


def report(name: str, **figures: object) -> None:
    print(f"\n[reliability] {name}: " + ", ".join(f"{key}={value}" for key, value in figures.items()))


async def test_a_10mb_pasted_prompt_reaches_the_file_and_reloads_with_bounded_memory(tmp_path: Path) -> None:
    settings = Settings(compaction=CompactionSettings(enabled=False), retry=RetrySettings(enabled=False))
    session = AgentSession(
        SessionConfig(
            store=SessionStore.create(str(tmp_path), tmp_path / "sessions"),
            resources=load_resources(tmp_path, settings=settings, home=tmp_path, include_builtin=False),
            model=HUGE_WINDOW,
            api_key="unused",
            stream_fn=ScriptedProvider([ScriptedReply(text="Received.")]),
        )
    )
    text = ("pasted log line ünïcödé ✓ 0123456789\n" * (PROMPT_CHARS // 30))[:PROMPT_CHARS]
    size = len(text.encode("utf-8"))

    with measured() as figures:
        await session.prompt(text)
        assert session.store.path is not None
        loaded = read_session_file(session.store.path)

    users = [
        entry.message
        for entry in loaded.entries
        if isinstance(entry, MessageEntry) and isinstance(entry.message, UserMessage)
    ]
    assert loaded.diagnostics == [] and len(users) == 1
    content = users[0].content
    assert (
        content if isinstance(content, str) else "".join(b.text for b in content if b.type == "text")
    ) == text
    assert session.last_assistant_text() == "Received."
    report("10 MB prompt", bytes=size, peak_mb=round(figures.peak / MB, 1), seconds=round(figures.seconds, 2))
    assert figures.peak < 10 * size


async def test_a_100mb_single_line_output_is_spilled_whole_with_a_capped_preview(tmp_path: Path) -> None:
    tool = BashTool(str(tmp_path), spill_dir=tmp_path / "spill")
    command = f"head -c {OUTPUT_BYTES} /dev/zero | tr '\\0' a"
    updates: list[ToolResult] = []

    with measured() as figures:
        result = await tool.execute("call_1", BashParams(command=command), AbortSignal(), updates.append)

    assert not result.is_error and isinstance(result.details, dict)
    spill = Path(result.details["fullOutputPath"])
    assert spill.stat().st_size == OUTPUT_BYTES
    assert only_letter_a(spill)
    [block] = result.content
    assert isinstance(block, TextContent)
    preview, _, notice = block.text.rpartition("\n\n")
    assert len(preview.encode()) <= DEFAULT_MAX_BYTES and set(preview) == {"a"}
    assert notice.startswith("[Showing last 50.0KB of line 1 (line is 95.4MB). Full output: ")
    report("100 MB line", peak_mb=round(figures.peak / MB, 1), seconds=round(figures.seconds, 2))
    assert figures.peak < 20 * MB


def test_a_session_of_many_entries_loads_with_memory_linear_in_its_size(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    size = write_big_session(path, BIG_SESSION_ENTRIES)

    with measured() as figures:
        store = SessionStore.open(path)
        context = store.build_context()

    assert store.writable and store.diagnostics == []
    assert len(store.entries) == BIG_SESSION_ENTRIES == len(context.messages)
    per_entry = figures.peak // BIG_SESSION_ENTRIES
    report(
        f"{BIG_SESSION_ENTRIES}-entry session",
        file_mb=round(size / MB, 1),
        peak_mb=round(figures.peak / MB, 1),
        peak_bytes_per_entry=per_entry,
        seconds=round(figures.seconds, 2),
    )
    # About 1.8 KB per message entry (7.4 KB before lines were validated from bytes, one at a time, and
    # models shared their field-name sets); a file line is ~370 bytes. The bound leaves 2x headroom.
    assert per_entry < 4_000


async def test_the_ui_opens_a_big_session_and_still_handles_keys(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    path = tmp_path / "sessions" / "big.jsonl"
    write_big_session(path, BIG_SESSION_ENTRIES, cwd=str(project))
    settings = Settings(retry=RetrySettings(enabled=False))

    def services(cwd: Path) -> AgentSessionServices:
        resources = load_resources(cwd, settings=settings, home=tmp_path, include_builtin=False)
        return AgentSessionServices(cwd=cwd, resources=resources)

    started = time.perf_counter()
    runtime = AgentSessionRuntime(
        SessionStore.open(path),
        RuntimeOptions(
            model=HUGE_WINDOW, api_key="unused", stream_fn=ScriptedProvider(), services_factory=services
        ),
    )
    app = PiTuiApp(
        cwd=project,
        session_root=tmp_path / "sessions",
        pi_session_root=tmp_path / "pi",
        setup_notice="",
        runtime=runtime,
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        opened = time.perf_counter() - started
        prompt = app.screen.query_one(PromptArea)
        pressed = time.perf_counter()
        await pilot.press("h", "i")
        await pilot.pause()
        assert prompt.text == "hi"
        key_seconds = time.perf_counter() - pressed
        await asyncio.sleep(0)
    report(
        f"UI on {BIG_SESSION_ENTRIES} entries",
        open_seconds=round(opened, 2),
        key_seconds=round(key_seconds, 3),
    )
