"""The SDK warm-up: nothing is imported until it is asked for, then the import runs once, in a daemon
thread. In a fresh interpreter, since this test process may have imported `openai` long ago."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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
