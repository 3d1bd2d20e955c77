"""The stderr lines a headless run prints while it works: what the TUI shows as notices.

Without them a `-p` run sat silent through a long `Retry-After` wait, and an automatic compaction that
failed (or a request no compaction could make fit) was visible only in `--mode json` or the TUI. A tool
call that failed is named too: the run still succeeds (the model saw the error and answered), but a script
reading only stdout could not tell (issue #27 item 13).
"""

from __future__ import annotations

from typing import TextIO

from pi_tui.agent.events import ToolExecutionEndEvent
from pi_tui.ai.messages import TextContent
from pi_tui.modes.user_messages import report
from pi_tui.session.session_events import (
    AnyEvent,
    ApprovalAnsweredEvent,
    AutoRetryStartEvent,
    CacheMissEvent,
    CompactionEndEvent,
    ProviderNoticeEvent,
)

ERROR_CHARS = 200
"""A provider's error text is cut here on the retry line; the full text is in the session file."""


def wait_text(delay_ms: int) -> str:
    """`30 s`, `2.5 s`, `0.2 s`: whole seconds from 10 s on, tenths below."""
    seconds = delay_ms / 1000
    return f"{round(seconds):d} s" if seconds >= 10 else f"{round(seconds, 1):g} s"


def retry_line(event: AutoRetryStartEvent) -> str:
    error = " ".join(event.error_message.split()) or "request failed"
    if len(error) > ERROR_CHARS:
        error = error[: ERROR_CHARS - 1] + "…"
    return (
        f"{error}; retrying in {wait_text(event.delay_ms)} (attempt {event.attempt} of {event.max_attempts})"
    )


def failed_tool_line(event: ToolExecutionEndEvent) -> str:
    """`tool bash failed: exit code 2`: the result's first non-blank line names the failure."""
    text = "\n".join(block.text for block in event.result.content if isinstance(block, TextContent))
    first = next((line.strip() for line in text.splitlines() if line.strip()), "no output")
    if len(first) > ERROR_CHARS:
        first = first[: ERROR_CHARS - 1] + "…"
    return f"tool {event.tool_name} failed: {first}"


class HeadlessNotices:
    """A session listener writing one line per retry wait, per failed automatic compaction, per failed
    tool call and per provider notice. A call the approval mode denied is not named again: the
    approver's own line said so.

    `overflowed` is set when a request did not fit and could not be made to fit (the run failed even if
    the provider answered); `start_prompt` clears it for the next prompt."""

    def __init__(self, stderr: TextIO) -> None:
        self._stderr = stderr
        self.overflowed = False
        self._denied: set[str] = set()

    def start_prompt(self) -> None:
        self.overflowed = False

    def __call__(self, event: AnyEvent) -> None:
        if isinstance(event, AutoRetryStartEvent):
            self._write(retry_line(event))
        elif isinstance(event, CompactionEndEvent) and event.error_message and not event.aborted:
            self._write(event.error_message)
            if event.reason == "overflow":
                self.overflowed = True
        elif isinstance(event, ApprovalAnsweredEvent) and event.answer == "no":
            self._denied.add(event.tool_call_id)
        elif isinstance(event, ToolExecutionEndEvent) and event.is_error:
            if event.tool_call_id not in self._denied:
                self._write(failed_tool_line(event))
        elif isinstance(event, ProviderNoticeEvent | CacheMissEvent):
            self._write(event.text)

    def _write(self, line: str) -> None:
        report(self._stderr, line)
        self._stderr.flush()
