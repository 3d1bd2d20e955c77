"""When the chat starts importing the model's SDK: once the editor has been left alone after the first
frame.

Started at the first frame, the import (half a second of CPU, holding the GIL) shared the processor with
the first keys typed, and their echo came ~270 ms later on the 2-core machine (bench/startup.py,
docs/startup.md). A request never waits for this delay: it starts the import itself when it is not under
way (`ai.warm_up.sdk_imported`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from textual.message_pump import MessagePump

from pi_tui.tui.call_after import call_after

IDLE_SECONDS = 0.5
"""The editor left alone this long after the first frame starts the import."""
LATEST_SECONDS = 2.0
"""Typing without a pause postpones the import at most this long after the first frame."""


class SdkWarmUp:
    def __init__(self, node: MessagePump, start_import: Callable[[], object]) -> None:
        self._node = node
        self._start_import = start_import
        self._pending: asyncio.TimerHandle | None = None
        self._latest = 0.0

    def first_frame_shown(self) -> None:
        self._latest = time.monotonic() + LATEST_SECONDS
        self._arm()

    def editor_changed(self) -> None:
        """A key changed the editor: wait for the next pause (until the latest moment)."""
        if self._pending is not None:
            self._arm()

    def _arm(self) -> None:
        if self._pending is not None:
            self._pending.cancel()
        delay = min(IDLE_SECONDS, max(0.0, self._latest - time.monotonic()))
        self._pending = call_after(self._node, delay, self._run)

    def _run(self) -> None:
        self._pending = None
        self._start_import()
