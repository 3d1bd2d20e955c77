"""The branch as context algorithms see it: one item per session entry, without the file format.

Compaction and accounting live below the session layer, so they never import session entries. The
session turns its root→leaf path into these items (`pi_tui.session.path_view.path_items`), keeping
only what the algorithms read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from pi_tui.ai.messages import AgentMessage

ItemKind: TypeAlias = Literal[
    "message",
    "custom_message",
    "branch_summary",
    "compaction",
    "thinking_level_change",
    "model_change",
    "custom",
    "label",
    "session_info",
    "other",
]


@dataclass(frozen=True)
class CompactionInfo:
    """The fields of a `compaction` entry the algorithms use."""

    summary: str
    first_kept_entry_id: str
    tokens_before: int
    details: Any = None
    from_hook: bool = False


@dataclass(frozen=True)
class PathItem:
    """One entry of the branch.

    `message` is set for entries that become a message in the model's context: `message` entries (the
    message itself), `custom_message` entries (a `custom` message) and `branch_summary` entries with a
    summary (a `branchSummary` message). `compaction` is set for compaction entries.
    """

    entry_id: str
    kind: ItemKind
    timestamp: str
    message: AgentMessage | None = None
    compaction: CompactionInfo | None = None
    branch_details: Any = None
    branch_from_hook: bool = False
    custom_type: str | None = None
    data: Any = None
