"""The context figure the footer shows, counted off the UI thread.

It is the Context pane's figure for the whole request (`BudgetGeometry.used_tokens`), from the same
function: pi's `getContextUsage()` adds the messages after the last report at tiktoken's raw count while
the pane corrects them by the session's measured calibration, so one screen showed 17.9% in the footer
and 17.5% in the pane (issue #27 item 4). Marked as an estimate (`~`) where no reply has reported usage
for this context yet (pi shows `?` there, after a compaction).
"""

from __future__ import annotations

import threading

from pi_tui.session.agent_session import AgentSession
from pi_tui.session.inspector import InspectorCache


class FooterContext:
    def __init__(self) -> None:
        self._estimates = InspectorCache()
        """Follows the branch as the Context pane's does, reusing the per-entry counts."""
        self._lock = threading.Lock()
        """Fed in a worker thread; a worker cancelled by a newer one may still be running."""
        self.tokens: int | None = None
        """The last count shown (None until the first count, or without a context window)."""
        self.estimated = False
        self.blocked = False
        """Over the threshold and automatic compaction cannot run (`blocked_at`): `(auto: blocked)`."""

    def reset(self) -> None:
        """Another session: nothing counted yet."""
        with self._lock:
            self._estimates = InspectorCache()
        self.tokens, self.estimated, self.blocked = None, False, False

    def count(self, session: AgentSession) -> tuple[int | None, bool, bool]:
        """(tokens, estimated, blocked) for the session's branch now; in a worker thread (the first count
        loads the tokenizer and counts every message, later ones reuse the per-entry counts)."""
        model = session.model
        if model is None or model.context_window <= 0:
            return None, False, False
        with self._lock:
            data = session.inspector_data(self._estimates, record_limit=0, with_boundary=False)
        return data.geometry.used_tokens, data.geometry.used_source != "usage", data.blocked is not None

    def update(self, tokens: int | None, estimated: bool, blocked: bool = False) -> bool:
        """Keep a newer count; True when it differs from the one shown."""
        if (tokens, estimated, blocked) == (self.tokens, self.estimated, self.blocked):
            return False
        self.tokens, self.estimated, self.blocked = tokens, estimated, blocked
        return True
