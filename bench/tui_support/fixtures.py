"""The model and session fixtures of bench/tui.py: a paced streaming model, LLM-like Markdown, the app
as `pi-tui` launches it, and a realistic session file."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

TOKENS_PER_S = 200
CHARS_PER_TOKEN = 4


def reply_text(tokens: int) -> str:
    """LLM-like Markdown of exactly tokens*4 characters: headings, paragraphs, lists, code fences."""
    parts: list[str] = []
    section = 0
    while sum(map(len, parts)) < tokens * CHARS_PER_TOKEN:
        section += 1
        parts.append(f"## Step {section}\n\nThe module `src/pkg/m{section}.py` reads the cache, then ")
        parts.append("checks every entry against the limits and writes what changed back to disk.\n\n")
        parts.append(f"- keep the timeout at {section * 3} s\n- retry twice on a 503\n- log the path\n\n")
        parts.append(f"```python\ndef step_{section}(cache):\n    return [e for e in cache if e.ok]\n```\n\n")
    return "".join(parts)[: tokens * CHARS_PER_TOKEN]


class PacedModel:
    """A StreamFunction: reply 1 streams `text` on a 200 tokens/s schedule (catching up when late, so the
    rate holds under load) and ends with a bash tool call; reply 2 says it is done."""

    def __init__(self, text: str, command: str) -> None:
        self.text = text
        self.command = command
        self.calls = 0
        self.stream_seconds = 0.0

    def __call__(self, model: Any, context: Any, options: Any) -> AsyncIterator[Any]:
        self.calls += 1
        return self._run(model, self.calls == 1)

    async def _run(self, model: Any, first: bool) -> AsyncIterator[Any]:
        from pi_tui.ai.messages import AssistantMessage, TextContent, ToolCall, Usage
        from pi_tui.ai.stream import StreamEvent

        partial = AssistantMessage(provider=model.provider, model=model.id, timestamp=int(time.time() * 1000))
        yield StreamEvent("start", partial)
        block = TextContent(text="")
        partial.content.append(block)
        yield StreamEvent("text_start", partial, content_index=0)
        text = self.text if first else "Done: the build printed every line."
        started = time.perf_counter()
        sent = 0
        while sent < len(text):
            due = int((time.perf_counter() - started) * TOKENS_PER_S) + 1
            upto = min(len(text), max(sent + CHARS_PER_TOKEN, due * CHARS_PER_TOKEN))
            for start in range(sent, upto, CHARS_PER_TOKEN):
                piece = text[start : min(upto, start + CHARS_PER_TOKEN)]
                block.text += piece
                yield StreamEvent("text_delta", partial, content_index=0, delta=piece)
            sent = upto
            await asyncio.sleep(
                max(0.0, sent / CHARS_PER_TOKEN / TOKENS_PER_S - (time.perf_counter() - started))
            )
        if first:
            self.stream_seconds = time.perf_counter() - started
        yield StreamEvent("text_end", partial, content_index=0)
        if first:
            call = ToolCall(id="call_flood", name="bash", arguments={"command": self.command})
            partial.content.append(call)
            yield StreamEvent("toolcall_start", partial, content_index=1)
            yield StreamEvent("toolcall_end", partial, content_index=1)
            partial.stop_reason = "toolUse"
        partial.usage = Usage(input=2000, output=len(text) // CHARS_PER_TOKEN, total_tokens=3000)
        yield StreamEvent("done", partial, message=partial)


MODEL_ARGS = {"id": "bench-model", "provider": "bench", "context_window": 200_000}


def make_app(store: Any, stream_fn: Any, home: Path, *, tune_gc: bool = True) -> Any:
    """The app as `pi-tui` launches it (GC tuned unless `tune_gc` is False)."""
    from pi_tui.config.model_config import ModelConfig
    from pi_tui.config.settings import Settings
    from pi_tui.context.resources import load_resources
    from pi_tui.session.runtime import AgentSessionRuntime, RuntimeOptions
    from pi_tui.session.services import AgentSessionServices
    from pi_tui.tui.app import PiTuiApp

    def services(cwd: Path) -> AgentSessionServices:
        resources = load_resources(cwd, settings=Settings(), home=home, include_builtin=False)
        return AgentSessionServices(cwd=cwd, resources=resources)

    options = RuntimeOptions(
        model=ModelConfig(**MODEL_ARGS), api_key="unused", stream_fn=stream_fn, services_factory=services
    )
    runtime = AgentSessionRuntime(store, options)
    return PiTuiApp(
        cwd=Path(store.cwd),
        session_root=home / "sessions",
        pi_session_root=home / "pi",
        setup_notice="",
        runtime=runtime,
        tune_gc=tune_gc,
    )


def write_session(path_dir: Path, cwd: Path, messages: int) -> Path:
    """A realistic session through the store's own writer: turns of four messages."""
    from pi_tui.ai.messages import (
        AssistantMessage,
        TextContent,
        ToolCall,
        ToolResultMessage,
        Usage,
        UserMessage,
    )
    from pi_tui.session_file.store import SessionStore

    store = SessionStore.create(str(cwd), path_dir)
    for turn in range(messages // 4):
        usage = Usage(input=3000 + turn * 40, output=120, total_tokens=3120 + turn * 40)
        path = f"src/pkg{turn % 30}/module_{turn % 200}.py"
        store.append_message(
            UserMessage(content=f"Step {turn}: look at {path} and fix the failing test.", timestamp=turn)
        )
        call = ToolCall(
            id=f"c{turn}", name="bash", arguments={"command": f"pytest -x tests/test_{turn % 50}.py"}
        )
        store.append_message(
            AssistantMessage(
                content=[TextContent(text=f"Running the tests for `{path}`."), call],
                provider="bench",
                model="m",
                usage=usage,
                stop_reason="toolUse",
            )
        )
        output = "\n".join(f"tests/test_{turn % 50}.py::test_{n} PASSED [{n * 3}%]" for n in range(30))
        store.append_message(
            ToolResultMessage(tool_call_id=call.id, tool_name="bash", content=[TextContent(text=output)])
        )
        store.append_message(
            AssistantMessage(
                content=[TextContent(text=reply_text(150))], provider="bench", model="m", usage=usage
            )
        )
    assert store.path is not None
    return store.path
