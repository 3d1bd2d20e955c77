"""End to end as a person would: `pi-tui --demo` in a real terminal (tmux), keys in, screen text out."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.waiting import until_sync

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
TMUX = ("tmux", "-L", f"pi-tui-e2e-{os.getpid()}")
"""A tmux server of the test's own: a `tmux kill-server` elsewhere on the machine cannot end it."""

WIDTH, HEIGHT = 160, 48
PI_TUI = str(Path(sys.executable).with_name("pi-tui"))


def capture(session: str) -> str:
    return subprocess.run(
        [*TMUX, "capture-pane", "-p", "-t", session], capture_output=True, text=True, check=True
    ).stdout


def wait_for(session: str, text: str, timeout: float = 45.0) -> str:
    deadline = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < deadline:
        screen = capture(session)
        if text in screen:
            return screen
        time.sleep(0.3)
    size = subprocess.run(
        [*TMUX, "display", "-p", "-t", session, "#{window_width}x#{window_height}"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    raise AssertionError(f"{text!r} did not appear; the {size} screen was:\n{screen}")


@pytest.fixture
def demo_session(tmp_path: Path) -> Iterator[str]:
    name = f"pi-tui-e2e-{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "PI_TUI_HOME": str(tmp_path / "home"), "TERM": "xterm-256color"}
    command = f"cd {shlex.quote(str(tmp_path))} && {shlex.quote(PI_TUI)} --demo"
    subprocess.run(
        [*TMUX, "new-session", "-d", "-s", name, "-x", str(WIDTH), "-y", str(HEIGHT), command],
        check=True,
        env=env,
    )
    try:
        yield name
    finally:
        subprocess.run([*TMUX, "kill-server"], capture_output=True)


def test_demo_plays_and_every_pane_answers(demo_session: str) -> None:
    screen = wait_for(demo_session, "I changed one line")
    assert "DEMO" in screen
    assert "tokens (whole request)" in screen or "Compacted from" in screen  # the compaction notice

    subprocess.run([*TMUX, "send-keys", "-t", demo_session, "F3"], check=True)
    assert "bash" in wait_for(demo_session, "what the model")

    subprocess.run([*TMUX, "send-keys", "-t", demo_session, "F4"], check=True)
    assert "threshold" in wait_for(demo_session, "Missing")
    # F4 put the keyboard in the pane; F6 moves it on, to the editor.
    subprocess.run([*TMUX, "send-keys", "-t", demo_session, "F6"], check=True)

    # Text and Enter go separately: in one burst the terminal may deliver Enter as part of a paste. Enter
    # waits for the completion list, which would otherwise open under it and take it.
    subprocess.run([*TMUX, "send-keys", "-t", demo_session, "-l", "/session"], check=True)
    wait_for(demo_session, "Session file, id")
    subprocess.run([*TMUX, "send-keys", "-t", demo_session, "Enter"], check=True)
    wait_for(demo_session, "Messages in the context")
    subprocess.run([*TMUX, "send-keys", "-t", demo_session, "Escape"], check=True)

    subprocess.run([*TMUX, "send-keys", "-t", demo_session, "C-q"], check=True)

    def quit_app() -> bool:
        alive = subprocess.run([*TMUX, "has-session", "-t", demo_session], capture_output=True)
        return alive.returncode != 0 or "pi-tui" not in capture(demo_session)

    until_sync(quit_app, timeout=10, interval=0.3, what="pi-tui to quit on ctrl+q")
