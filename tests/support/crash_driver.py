"""A headless pi-tui session that writes many entries fast, to be killed by the crash tests.

Run as a script (`python tests/support/crash_driver.py SESSION CWD ...`): it drives a real
`AgentSession` with the scripted model and the real tools, so the session file is written by the real
store and writer. After each durable write it prints `ack <id>` for every line that write put on disk
(flushed), so the parent knows which entries a crash must not lose. `--compact` opens an existing
session and compacts it, printing `summary-start` when the summary request goes out (it streams slowly so
a kill can land while it is in flight).

Everything the model says is deterministic, so two runs write the same entries apart from ids,
timestamps and timings: the tests compare a killed run's file with a complete reference run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from pi_tui.ai.messages import TextContent  # noqa: E402
from pi_tui.ai.scripted import ScriptedProvider, ScriptedReply, ScriptedToolCall  # noqa: E402
from pi_tui.ai.stream import LlmContext, StreamEvent, StreamOptions  # noqa: E402
from pi_tui.config.model_config import ModelConfig  # noqa: E402
from pi_tui.config.settings import CompactionSettings, RetrySettings, Settings  # noqa: E402
from pi_tui.context.compaction.inline_prompts import STOP_PREAMBLE, TURN_CONTEXT_DIVIDER  # noqa: E402
from pi_tui.context.resources import load_resources  # noqa: E402
from pi_tui.session.agent_session import AgentSession, SessionConfig  # noqa: E402
from pi_tui.session_file import store as store_module  # noqa: E402
from pi_tui.session_file.store import SessionStore  # noqa: E402
from pi_tui.session_file.writer import FileState  # noqa: E402

MODEL = ModelConfig(id="crash-model", provider="scripted", context_window=1_000_000)
SETTINGS = Settings(
    # The newest 100 tokens kept: a base session of 8 short turns (~40 tokens each) has older ones to
    # summarise (with 400 it had none, and a compaction that summarises nothing is refused).
    compaction=CompactionSettings(enabled=False, keep_recent_tokens=100),
    retry=RetrySettings(enabled=False),
)
NOTES = "line one of the notes\nline two: ünïcödé ✓\n"
SUMMARY = "## Goal\nKeep the notes.\n\n## Progress\n" + "- read notes.txt again\n" * 40
SUMMARY += f"\n{TURN_CONTEXT_DIVIDER}\n\n## Original Request\nRead the notes.\n"
"""Asked inline with a split turn, the model writes both summaries in one reply, divided by that line."""


def prompt_text(number: int) -> str:
    return f"prompt {number}: read the notes " + "x" * (number % 7) * 13


def replies(count: int) -> list[ScriptedReply]:
    """Per prompt: a tool call (read; every tenth a bash command too), then a text answer."""
    script: list[ScriptedReply] = []
    for number in range(count):
        calls = [ScriptedToolCall(name="read", arguments={"path": "notes.txt"})]
        if number % 10 == 9:
            calls.append(ScriptedToolCall(name="bash", arguments={"command": f"echo step {number}"}))
        script.append(ScriptedReply(text=f"Reading ({number}).", tool_calls=calls, chunk_size=64))
        script.append(ScriptedReply(text=f"answer {number}: " + "ok " * (number % 5), chunk_size=64))
    return script


def _announce(lines: list[str]) -> None:
    for line in lines:
        sys.stdout.write(f"ack {json.loads(line)['id']}\n")
    sys.stdout.flush()


def _install_acks() -> None:
    """Wrap the store's two write calls: an ack is printed only once the lines are on disk."""
    create, append = store_module.create_session_file, store_module.append_lines

    def acked_create(path: Path, lines: list[str], *, into_blank: bool = False) -> FileState:
        state = create(path, lines, into_blank=into_blank)
        _announce(lines)
        return state

    def acked_append(path: Path, lines: list[str], expected: FileState | None = None) -> FileState | None:
        state = append(path, lines, expected)
        _announce(lines)
        return state

    store_module.create_session_file = acked_create
    store_module.append_lines = acked_append


def make_session(path: Path, cwd: Path, stream_fn: Any) -> AgentSession:
    return AgentSession(
        SessionConfig(
            store=SessionStore.open(path, cwd=str(cwd)),
            resources=load_resources(cwd, settings=SETTINGS, home=cwd, include_builtin=False),
            model=MODEL,
            api_key="unused",
            stream_fn=stream_fn,
        )
    )


class _Announcing:
    """The scripted provider, printing `summary-start` when a summary request goes out (either strategy)."""

    def __init__(self, provider: ScriptedProvider) -> None:
        self.provider = provider

    def __call__(
        self, model: ModelConfig, context: LlmContext, options: StreamOptions
    ) -> AsyncIterator[StreamEvent]:
        last = context.messages[-1] if context.messages else None
        inline = last is not None and any(
            isinstance(block, TextContent) and block.text.startswith(STOP_PREAMBLE)
            for block in getattr(last, "content", [])
        )
        if inline or not context.tools:
            sys.stdout.write("summary-start\n")
            sys.stdout.flush()
        return self.provider(model, context, options)


async def run_prompts(path: Path, cwd: Path, count: int) -> None:
    session = make_session(path, cwd, ScriptedProvider(replies(count)))
    for number in range(count):
        await session.prompt(prompt_text(number))


async def compact(path: Path, cwd: Path, delay_s: float) -> None:
    # Two replies: the cut may split a turn, whose prefix is summarised by a second, parallel call.
    summaries = [ScriptedReply(text=SUMMARY, chunk_size=16, delay_s=delay_s) for _ in range(2)]
    session = make_session(path, cwd, _Announcing(ScriptedProvider(summaries)))
    outcome = await session.compact()
    sys.stdout.write(f"compacted {outcome.entry_id}\n")
    sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("session", type=Path)
    parser.add_argument("cwd", type=Path)
    parser.add_argument("--prompts", type=int, default=60)
    parser.add_argument("--compact", action="store_true")
    parser.add_argument("--summary-delay", type=float, default=0.002)
    args = parser.parse_args()
    args.cwd.mkdir(parents=True, exist_ok=True)
    (args.cwd / "notes.txt").write_text(NOTES, encoding="utf-8")
    _install_acks()
    if args.compact:
        asyncio.run(compact(args.session, args.cwd, args.summary_delay))
    else:
        asyncio.run(run_prompts(args.session, args.cwd, args.prompts))
    sys.stdout.write("done\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
