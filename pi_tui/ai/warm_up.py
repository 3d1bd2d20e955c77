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
ANTHROPIC_CLIENT_MODULE = "pi_tui.ai.anthropic_client"
"""The Messages API's client (the `anthropic` SDK): imported the same way, on its first request."""

_lock = threading.Lock()
_threads: dict[str, threading.Thread] = {}


def _import_sdk(module: str) -> None:
    # A broken install is reported by the first request, with the provider's error handling.
    with contextlib.suppress(Exception):
        importlib.import_module(module)


def warm_up_openai(module: str = SDK_CLIENT_MODULE) -> threading.Thread:
    """Start the import (the first call only); the thread doing it, for callers that want to wait."""
    with _lock:
        thread = _threads.get(module)
        if thread is None:
            name = f"pi-tui-{module.rsplit('.', 1)[-1].removesuffix('_client')}-import"
            thread = _threads[module] = threading.Thread(
                target=_import_sdk, args=(module,), name=name, daemon=True
            )
            thread.start()
        return thread


async def sdk_imported(module: str = SDK_CLIENT_MODULE) -> None:
    """Return once the SDK is imported (the import starts here if nothing started it), without holding
    the event loop meanwhile. A failed import is left to the first request to report."""
    thread = warm_up_openai(module)
    if thread.is_alive():
        await asyncio.to_thread(thread.join)
