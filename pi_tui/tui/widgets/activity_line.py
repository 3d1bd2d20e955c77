"""The status line above the editor while something is under way: a spinner, what it is doing, how long
it has taken, the run's output tokens so far and "esc to interrupt"; hidden when idle.

Two states say less. A retry's wait names the attempt and "esc to cancel" only: its countdown is the
conversation's retry line, which stays as the retry's record. A question to the user (approval mode)
says which call waits and that Esc there answers no: nothing runs, so nothing is timed.

The words come from `ActivityTracker` (fed the session's events by the screen); a timer on this widget
alone redraws its one line, so the elapsed seconds advance without touching the conversation. The timer
runs only while the line is shown.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from rich.text import Text
from textual.timer import Timer
from textual.widget import Widget

from pi_tui.context.token_figures import format_tokens
from pi_tui.session.activity import Activity, ActivityTracker
from pi_tui.session.session_events import AnyEvent
from pi_tui.tui.tool_calls import summarize_args

clock: Callable[[], float] = time.monotonic
"""Where the line's times come from; tests set it to drive elapsed time without waiting."""

TICK_SECONDS = 0.125
"""The spinner's frame time; the elapsed seconds are redrawn with it."""
SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
INTERRUPT = "esc to interrupt"
CANCEL_RETRY = "esc to cancel"
DENY = "esc to deny"
QUESTION_MARK = "?"
"""Shown in the spinner's place while the run waits for the user's answer."""
COMPACTION_WORDS = {
    "manual": "Compacting the context",
    "threshold": "Auto-compacting the context",
    "overflow": "Context overflow: compacting the context",
}


def elapsed_text(seconds: float) -> str:
    """12s, 4m 05s, 1h 02m."""
    whole = max(0, int(seconds))
    if whole < 60:
        return f"{whole}s"
    if whole < 3600:
        return f"{whole // 60}m {whole % 60:02d}s"
    return f"{whole // 3600}h {whole % 3600 // 60:02d}m"


def activity_words(activity: Activity) -> str:
    """What is under way, in words (the elapsed time and tokens come after them)."""
    kind = activity.kind
    if kind == "tools":
        tools = activity.tools
        if len(tools) == 1:
            summary = summarize_args(tools[0].args)
            return f"Running {tools[0].name}" + (f": {summary}" if summary else "")
        names = ", ".join(dict.fromkeys(tool.name for tool in tools))
        return f"Running {len(tools)} tools in parallel: {names}"
    if kind == "compaction":
        if activity.recompacting:
            return "Re-compacting: summarising the same span again"
        return COMPACTION_WORDS[activity.compaction or "manual"]
    if kind == "retry":
        return f"Waiting to retry ({activity.attempt}/{activity.max_attempts})"
    if kind == "approval":
        return f"Waiting for your approval: {activity.name}"
    if kind == "calling":
        return f"Writing a call to {activity.name}"
    if kind == "user_shell":
        return f"Running {activity.name}"
    return {
        "waiting": "Waiting for the model",
        "thinking": "Thinking",
        "writing": "Writing the reply",
        "branch_summary": "Summarising the branch you left",
    }[kind]


def status_text(activity: Activity, now: float, width: int) -> str:
    """The whole line, cut to `width` in the words so the time and the key stay readable."""
    frame = SPINNER[int(now / TICK_SECONDS) % len(SPINNER)]
    if activity.kind == "approval":
        frame, parts = QUESTION_MARK, [DENY]
    elif activity.kind == "retry":
        parts = [CANCEL_RETRY]
    else:
        parts = [elapsed_text(now - activity.started)]
        if activity.output_tokens:
            parts.append(f"↓ {format_tokens(activity.output_tokens)} tokens")
        parts.append(INTERRUPT)
    tail = f" ({' · '.join(parts)})"
    words = " ".join(activity_words(activity).split())
    room = width - len(tail) - 2
    if len(words) > room:
        words = words[: max(0, room - 1)] + "…"
    return f"{frame} {words}{tail}"


class ActivityLine(Widget):
    """One line, shown while `ActivityTracker.current` is not None."""

    DEFAULT_CSS = """
    ActivityLine { height: 1; padding: 0 1; color: $text-muted; display: none; }
    ActivityLine.-active { display: block; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.tracker = ActivityTracker(lambda: clock())
        self._timer: Timer | None = None

    def apply(self, events: Sequence[AnyEvent]) -> None:
        for event in events:
            self.tracker.apply(event)
        self._show()

    def reset(self) -> None:
        self.tracker.reset()
        self._show()

    @property
    def text(self) -> str:
        """The line as shown now ("" when hidden)."""
        activity = self.tracker.current
        return "" if activity is None else status_text(activity, clock(), self.content_size.width)

    def _show(self) -> None:
        active = self.tracker.current is not None
        self.set_class(active, "-active")
        if active and self._timer is None:
            self._timer = self.set_interval(TICK_SECONDS, self.refresh)
        elif not active and self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.refresh()

    def render(self) -> Text:
        return Text(self.text, no_wrap=True, overflow="ellipsis")
