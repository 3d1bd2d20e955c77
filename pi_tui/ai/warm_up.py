"""Import the OpenAI SDK ahead of the first request, in a daemon thread, once per process.

`openai` takes about half a second to import; paid on the first request, it delays the first token.
Front ends start this when the wait costs nobody anything: the TUI after its first frame (an import
holds the GIL and would delay that frame), the headless modes at once. A request made while the
import is still running waits for it through Python's import lock, so nothing is imported twice.
"""

from __future__ import annotations

import contextlib
import importlib
import threading

SDK_CLIENT_MODULE = "pi_tui.ai.openai_client"

_lock = threading.Lock()
_thread: threading.Thread | None = None


def _import_sdk() -> None:
    # A broken install is reported by the first request, with the provider's error handling.
    with contextlib.suppress(Exception):
        importlib.import_module(SDK_CLIENT_MODULE)


def warm_up_openai() -> threading.Thread:
    """Start the import (the first call only); the thread doing it, for callers that want to wait."""
    global _thread
    with _lock:
        if _thread is None:
            _thread = threading.Thread(target=_import_sdk, name="pi-tui-openai-import", daemon=True)
            _thread.start()
        return _thread
