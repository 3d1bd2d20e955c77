"""What the conversation shows of a session file: the branch as it happened, not the model's context.

A live conversation keeps everything it showed: the history before a compaction (with the compaction's
note in its place), failed attempts that were retried (each with the retry's outcome) and replies the
user's context edits leave out of requests. pi 1.6's `context_edit` changes what the model is sent,
never the raw history or what the UI shows (docs/pi-compatibility.md). So a resumed conversation is
rebuilt from every message-like entry on the branch, in file order, context edits ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pi_tui.ai.messages import AgentMessage, SystemMessage
from pi_tui.session.compaction_sizes import AFTER_KEY, BEFORE_KEY, ShownSize
from pi_tui.session_file.context_rebuild import compaction_summary_message, entry_message
from pi_tui.session_file.entries import CompactionEntry, SessionEntry


@dataclass(frozen=True)
class Transcript:
    """The messages to show, and for each compaction's summary message (by `id()`, valid while these
    messages live) the size its note states."""

    messages: list[AgentMessage] = field(default_factory=list)
    compaction_sizes: Mapping[int, ShownSize] = field(default_factory=dict)

    def compaction_size(self, message: AgentMessage) -> ShownSize | None:
        return self.compaction_sizes.get(id(message))


def stored_size(entry: CompactionEntry) -> ShownSize:
    """The figures the live note showed, as the entry keeps them: pi-tui's whole-request estimates
    before and after (`compaction_sizes`); pi's own `tokensBefore` alone for a compaction pi made."""
    details: dict[str, Any] = entry.details if isinstance(entry.details, dict) else {}
    before, after = details.get(BEFORE_KEY), details.get(AFTER_KEY)
    if isinstance(before, int) and isinstance(after, int):
        return ShownSize(before, after, "estimate")
    return ShownSize(entry.tokens_before, None, None)


def branch_transcript(path: list[SessionEntry]) -> Transcript:
    """The transcript of `path` (root first): each message-like entry's message as written (system
    checkpoints left out: the conversation never shows them), each compaction as its summary."""
    messages: list[AgentMessage] = []
    sizes: dict[int, ShownSize] = {}
    for entry in path:
        if isinstance(entry, CompactionEntry):
            summary = compaction_summary_message(entry)
            sizes[id(summary)] = stored_size(entry)
            messages.append(summary)
            continue
        message = entry_message(entry)
        if message is not None and not isinstance(message, SystemMessage):
            messages.append(message)
    return Transcript(messages, sizes)
