"""A working session in a real terminal (tmux) at 160x48 and 80x24, against the loopback server with the
real client: a 1,500-character prompt typed as one key burst, Esc while a command runs (the status line
says what runs until then, and goes), a follow-up queued with Tab and delivered when the agent stops."""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import shutil
import subprocess
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.openai_server import OpenAIServer, StreamReply, chunk, text_reply, tool_call_delta, usage
from tests.support.waiting import until_sync

from .test_tmux_demo import PI_TUI, TMUX, capture, wait_for

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
WORDS = "What should the README say? Keep it short, name the commands (make run, make test) & the keys: 42!"
LONG_PROMPT = " ".join([WORDS] * 16)[:1_500]
TICKER = "for i in $(seq 1 600); do echo tick $i; sleep 1; done"
GATED = "until [ -e release ]; do sleep 0.05; done; echo released"
INTERRUPT = "esc to interrupt"


def status_line(screen: str) -> str:
    """The status line above the editor ("" when it is not shown)."""
    return next((line.strip() for line in screen.splitlines() if INTERRUPT in line), "")


def status_gone(session: str) -> None:
    until_sync(lambda: INTERRUPT not in capture(session), timeout=30, interval=0.3, what="no status line")


class ThreadedServer:
    """The loopback server on an event loop of its own, so the test can drive tmux synchronously."""

    def __init__(self) -> None:
        self.server = OpenAIServer(keep_alive=True)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)

    def __enter__(self) -> OpenAIServer:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self.server.start(), self._loop).result(10)
        return self.server

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self.server.stop(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)


def bash_call(command: str) -> StreamReply:
    arguments = json.dumps({"command": command})
    return StreamReply(
        [
            chunk(
                tool_calls=[
                    tool_call_delta(
                        0, call_id=f"call_{uuid.uuid4().hex[:6]}", name="bash", arguments=arguments
                    )
                ]
            ),
            chunk(finish_reason="tool_calls"),
            chunk(no_choices=True, usage=usage(10, 5)),
        ]
    )


def user_texts(server: OpenAIServer) -> list[str]:
    """The newest user message of each chat request, as sent."""
    texts = []
    for request in server.requests:
        message = request.body["messages"][-1]
        if message["role"] == "user":
            texts.append("".join(part["text"] for part in message["content"]))
    return texts


def keys(session: str, *commands: list[str]) -> None:
    """Run tmux `send-keys` commands as one tmux call, so they reach the terminal as one burst."""
    line: list[str] = [*TMUX]
    for index, command in enumerate(commands):
        line += ([";"] if index else []) + ["send-keys", "-t", session, *command]
    subprocess.run(line, check=True)


@pytest.fixture
def loopback() -> Iterator[OpenAIServer]:
    with ThreadedServer() as server:
        yield server


def start_pi_tui(tmp_path: Path, server: OpenAIServer, width: int, height: int) -> str:
    home = tmp_path / "home"
    home.mkdir()
    model = {"id": "loop", "contextWindow": 32_000, "maxTokens": 4_000}
    provider = {
        "baseUrl": server.base_url,
        "apiKey": "LOOP_KEY",
        "api": "openai-completions",
        "models": [model],
    }
    (home / "models.json").write_text(json.dumps({"providers": {"local": provider}}))
    project = tmp_path / "project"
    project.mkdir()
    name = f"pi-tui-daily-{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "PI_TUI_HOME": str(home), "LOOP_KEY": "k", "TERM": "xterm-256color"}
    command = f"cd {shlex.quote(str(project))} && {shlex.quote(PI_TUI)}"
    subprocess.run(
        [*TMUX, "new-session", "-d", "-s", name, "-x", str(width), "-y", str(height), command],
        check=True,
        env=env,
    )
    return name


@pytest.mark.parametrize(("width", "height"), [(160, 48), (80, 24)])
def test_burst_abort_and_follow_up_in_a_real_terminal(
    loopback: OpenAIServer, tmp_path: Path, width: int, height: int
) -> None:
    server = loopback
    session = start_pi_tui(tmp_path, server, width, height)
    try:
        wait_for(session, "Abort")  # the chat's footer: the editor has the focus

        # 1. A 1,500-character prompt and Enter in one burst: every character is sent.
        server.enqueue(text_reply("read all of it"))
        keys(session, ["-l", LONG_PROMPT], ["Enter"])
        until_sync(lambda: server.requests, timeout=60, what="the long prompt to reach the server")
        assert user_texts(server) == [LONG_PROMPT]
        wait_for(session, "read all of it")

        # 2. Esc while a command runs: it stops at once, typing reaches the editor, the next prompt goes out.
        server.enqueue(bash_call(TICKER), text_reply("the ticker printed a few lines"))
        keys(session, ["-l", "run the ticker"], ["Enter"])
        wait_for(session, "tick 3")
        # The status line is redrawn on its own timer: it may follow the output by a frame.
        until_sync(
            lambda: (
                status_line(capture(session)).endswith(f"{INTERRUPT})")
                and "Running bash: for i in" in status_line(capture(session))
            ),
            timeout=30,
            interval=0.3,
            what="the status line naming the running command",
        )
        keys(session, ["Escape"])
        wait_for(session, "Command aborted")
        status_gone(session)
        keys(session, ["-l", "what did it print?"])
        wait_for(session, "what did it print?")
        keys(session, ["Enter"])
        wait_for(session, "the ticker printed a few lines")
        assert user_texts(server)[-1] == "what did it print?"
        assert "[running" not in capture(session)

        # 3. Tab queues a follow-up while the agent works; it goes out once the agent stops.
        server.enqueue(bash_call(GATED), text_reply("gate passed"), text_reply("changelog updated"))
        keys(session, ["-l", "wait for the gate"], ["Enter"])
        wait_for(session, "[running")
        keys(session, ["-l", "then update the changelog"], ["Tab"])
        screen = wait_for(session, "follow-up  then update the changelog")
        assert "Running bash: until [ -e release ]" in status_line(screen)
        (tmp_path / "project" / "release").touch()
        wait_for(session, "changelog updated")
        status_gone(session)
        assert user_texts(server)[-1] == "then update the changelog"
        assert "follow-up  then update" not in capture(session)

        keys(session, ["C-q"])

        def quit_app() -> bool:
            alive = subprocess.run([*TMUX, "has-session", "-t", session], capture_output=True)
            return alive.returncode != 0 or "pi-tui" not in capture(session)

        until_sync(quit_app, timeout=10, interval=0.3, what="pi-tui to quit on ctrl+q")
    finally:
        subprocess.run([*TMUX, "kill-session", "-t", session], capture_output=True)
