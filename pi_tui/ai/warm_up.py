"""Import the OpenAI SDK ahead of the first request, in a daemon thread, once per process.

`openai` takes about half a second to import; paid on the first request, it delays the first token.
Front ends start this when the wait costs nobody anything: the TUI after its first frame (an import
holds the GIL and would delay that frame), the headless modes at once. A request waits for it with
`sdk_imported`, in a thread: through Python's import lock on the event loop it held the loop for the
whole import (1-3 s on a busy machine), and the TUI handled no key, not even Esc, until it ended.
"""

from __future__ import annotations

import asyncio
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


async def sdk_imported() -> None:
    """Return once the SDK is imported (the import starts here if nothing started it), without holding
    the event loop meanwhile. A failed import is left to the first request to report."""
    thread = warm_up_openai()
    if thread.is_alive():
        await asyncio.to_thread(thread.join)
