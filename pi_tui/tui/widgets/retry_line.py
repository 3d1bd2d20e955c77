"""The line a retry keeps in the conversation, updated in place: a countdown while it waits, "Retrying"
while its request runs, then how it ended. So no countdown outlives its wait, and the outcome sits with
the retry rather than below the reply that followed it."""

from __future__ import annotations

from collections.abc import Callable

from textual.timer import Timer
from textual.widget import Widget

from pi_tui.session.session_events import AutoRetryEndEvent, AutoRetryStartEvent
from pi_tui.tui.widgets.message_blocks import NoticeBlock

TICK_SECONDS = 0.25


class RetryLine:
    """Owned by the conversation, which mounts nothing else for retries."""

    def __init__(self, host: Widget, now: Callable[[], float]) -> None:
        self._host = host
        self._now = now
        self._notice: NoticeBlock | None = None
        self._event: AutoRetryStartEvent | None = None
        self._timer: Timer | None = None

    @property
    def notice(self) -> NoticeBlock | None:
        """The line of the retry under way (None when none is)."""
        return self._notice

    async def start(self, event: AutoRetryStartEvent) -> None:
        """A retry waits `event.delay_ms`; the one before it, if any, failed with `event.error_message`."""
        self._stop_timer()
        if self._notice is not None:
            self._notice.update(retry_failed_text(event.attempt - 1, event.error_message))
        deadline = self._now() + event.delay_ms / 1000
        self._notice = NoticeBlock("", kind="warning")
        self._event = event
        await self._host.mount(self._notice)
        self._tick(deadline)
        self._timer = self._host.set_interval(TICK_SECONDS, lambda: self._tick(deadline))

    def request_started(self) -> None:
        """The wait is over and the retry's request went out: no countdown any more."""
        if self._timer is None or self._notice is None or self._event is None:
            return
        self._stop_timer()
        event = self._event
        self._notice.update(f"Retrying ({event.attempt}/{event.max_attempts})… — {event.error_message}")

    async def end(self, event: AutoRetryEndEvent) -> None:
        self._stop_timer()
        text, kind = retry_outcome(event.success, event.attempt, event.final_error)
        notice, self._notice, self._event = self._notice, None, None
        if notice is None:
            await self._host.mount(NoticeBlock(text, kind=kind))
            return
        notice.update(text)
        notice.set_classes(f"-{kind}")

    def _tick(self, deadline: float) -> None:
        if self._notice is None or self._event is None:
            return
        event = self._event
        seconds = max(0, round(deadline - self._now()))
        progress = f"Retrying ({event.attempt}/{event.max_attempts}) in {seconds}s… (esc to cancel)"
        self._notice.update(f"{progress} — {event.error_message}")

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None


def retry_failed_text(attempt: int, error: str | None) -> str:
    """A retry's line once the next one starts: this attempt failed with `error`."""
    return f"Retry {attempt} failed: {error}"


def retry_outcome(success: bool, attempt: int, final_error: str | None) -> tuple[str, str]:
    """A retry's last line and its kind (`NoticeBlock`): attempt `attempt` succeeded, or the retries
    ended with `final_error`."""
    if success:
        return f"Retry {attempt} succeeded.", "info"
    return f"Retry failed after {attempt} attempts: {final_error}", "error"
