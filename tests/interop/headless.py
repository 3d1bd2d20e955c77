"""Running pi-tui's command line in-process against the loopback server, and reading what it wrote."""

from __future__ import annotations

import asyncio
import io
import sys
from pathlib import Path
from typing import Any

import pytest

from pi_tui.cli import main
from pi_tui.session_file.store import SessionStore
from tests.support.openai_server import OpenAIServer, StreamReply, chunk, text_reply, tool_call_delta, usage

PROMPT = "Please carry on from here."
ANSWER = "Carried on."


def endpoint(server: OpenAIServer) -> list[str]:
    return ["--base-url", server.base_url, "--model", "m", "--api-key", "sk-interop"]


async def run_main(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> int:
    """`cli.main(argv)` in-process; in a thread, because it runs its own event loop while the
    loopback server serves on this one."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    return await asyncio.to_thread(main, argv)


def enqueue_tool_turn(server: OpenAIServer) -> None:
    call = tool_call_delta(0, call_id="call_interop", name="bash", arguments='{"command": "echo interop"}')
    server.enqueue(
        StreamReply(
            [
                chunk(tool_calls=[call]),
                chunk(finish_reason="tool_calls"),
                chunk(no_choices=True, usage=usage(90, 7)),
            ]
        ),
        text_reply(ANSWER),
    )


def context_json(path: Path) -> list[dict[str, Any]]:
    return [message.to_json_obj() for message in SessionStore.open(path).build_context().messages]


def wire_text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content)
    return content or ""
