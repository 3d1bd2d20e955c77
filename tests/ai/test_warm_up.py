"""The SDK warm-up: nothing is imported until it is asked for, then the import runs once, in a daemon
thread. In a fresh interpreter, since this test process may have imported `openai` long ago."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

CHECK = """
import sys, threading
from pi_tui.ai.warm_up import warm_up_openai
before = "openai" in sys.modules
thread = warm_up_openai()
again = warm_up_openai()
thread.join(60)
loaded = "pi_tui.ai.openai_client" in sys.modules, "openai" in sys.modules
print(before, thread.daemon, again is thread, *loaded)
"""


def test_warm_up_imports_the_sdk_client_once_in_a_daemon_thread() -> None:
    result = subprocess.run(
        [sys.executable, "-c", CHECK], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert result.stdout.split() == ["False", "True", "True", "True", "True"], result.stderr


FIRST_REQUEST = """
import asyncio, sys, threading

importers = []


class ImportSpy:
    def find_spec(self, name, path=None, target=None):
        if name == "openai":
            importers.append(threading.current_thread().name)
        return None


sys.meta_path.insert(0, ImportSpy())

from pi_tui.ai.http_pool import HttpPool
from pi_tui.ai.messages import UserMessage
from pi_tui.ai.openai_provider import stream_openai
from pi_tui.ai.stream import LlmContext, StreamOptions
from pi_tui.config.model_config import ModelConfig
from tests.support.openai_server import OpenAIServer, text_reply


async def main():
    server = OpenAIServer()
    await server.start()
    server.enqueue(text_reply("answered"))
    model = ModelConfig(id="m", provider="local", base_url=server.base_url, context_window=1000)
    pool = HttpPool() if sys.argv[1] == "pooled" else None
    context = LlmContext("", [UserMessage(content="hi", timestamp=0)])
    loaded_before = "openai" in sys.modules
    async for event in stream_openai(model, context, StreamOptions(api_key="k", http_pool=pool)):
        final = event
    if pool is not None:
        await pool.aclose()
    await server.stop()
    print(loaded_before, final.type, final.partial.text, *importers)


asyncio.run(main())
"""


@pytest.mark.parametrize("connection", ["pooled", "own"])
def test_a_first_request_waits_for_the_sdk_import_off_the_event_loop(connection: str) -> None:
    """Imported on the loop, `openai` held it for the whole import: the TUI answered no key, Esc included,
    for 1-3 s after the first prompt. The import must run in the warm-up thread, never the loop's."""
    result = subprocess.run(
        [sys.executable, "-c", FIRST_REQUEST, connection], capture_output=True, text=True, cwd=ROOT
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", "done", "answered", "pi-tui-openai-import"], result.stderr
