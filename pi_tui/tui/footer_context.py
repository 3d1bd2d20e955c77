"""The context figure the footer shows, counted off the UI thread.

It is pi's `getContextUsage()`, but where pi shows `?` (after a compaction, until a reply reports usage)
the Context pane's estimate of the whole request is shown instead, marked as an estimate.
"""

from __future__ import annotations

import threading

from pi_tui.context.accounting.ledger import BranchLedger
from pi_tui.context.compaction.blocker import blocked_at
from pi_tui.session.agent_session import AgentSession
from pi_tui.session.inspector import InspectorCache, build_inspector_data


class FooterContext:
    def __init__(self) -> None:
        self._ledger = BranchLedger()
        self._estimates = InspectorCache()
        """Follows the branch as the Context pane's does, for the estimate (only read where pi's is `?`)."""
        self._lock = threading.Lock()
        """Both are fed in a worker thread; a worker cancelled by a newer one may still be running."""
        self.tokens: int | None = None
        """The last count shown (None until the first count, or without a context window)."""
        self.estimated = False
        self.blocked = False
        """Over the threshold and automatic compaction cannot run (`blocked_at`): `(auto: blocked)`."""

    def reset(self) -> None:
        """Another session: nothing counted yet."""
        with self._lock:
            self._ledger, self._estimates = BranchLedger(), InspectorCache()
        self.tokens, self.estimated, self.blocked = None, False, False

    def count(self, session: AgentSession) -> tuple[int | None, bool, bool]:
        """(tokens, estimated, blocked) for the session's branch now; in a worker thread (the first count
        loads the tokenizer and counts every message, later ones reuse the per-entry counts)."""
        model = session.model
        settings = session.resources.settings
        with self._lock:
            branch = session.store.get_branch()
            self._ledger.reset(branch)
            usage = self._ledger.context_usage(model.context_window if model else 0)
            if usage is None or usage.tokens is not None:
                tokens = usage.tokens if usage is not None else None
                blocked = tokens is not None and blocked_at(tokens, branch, settings.compaction, model)
                return tokens, False, bool(blocked)
            data = build_inspector_data(
                session.store, settings, model, record_limit=0, with_boundary=False, cache=self._estimates
            )
        return data.geometry.used_tokens, True, data.blocked is not None

    def update(self, tokens: int | None, estimated: bool, blocked: bool = False) -> bool:
        """Keep a newer count; True when it differs from the one shown."""
        if (tokens, estimated, blocked) == (self.tokens, self.estimated, self.blocked):
            return False
        self.tokens, self.estimated, self.blocked = tokens, estimated, blocked
        return True
