"""The live session: `AgentSession`, the runtime and what they run (docs/architecture.md). The session
file's own names (`pi_tui.session_file`) are re-exported here for the callers that import them from
`pi_tui.session`."""

from __future__ import annotations

from pi_tui.session_file.context_rebuild import LAST_ENTRY, ModelRef, SessionContext, build_session_context
from pi_tui.session_file.diagnostics import Diagnostic
from pi_tui.session_file.entries import (
    CURRENT_SESSION_VERSION,
    BranchSummaryEntry,
    CompactionEntry,
    CustomEntry,
    CustomMessageEntry,
    LabelEntry,
    MessageEntry,
    ModelChangeEntry,
    SessionEntry,
    SessionHeader,
    SessionInfoEntry,
    ThinkingLevelChangeEntry,
    UnknownEntry,
    entry_line,
    parse_entry,
)
from pi_tui.session_file.ids import iso_timestamp, new_entry_id, uuid7
from pi_tui.session_file.listing import (
    SessionSummary,
    list_all_sessions,
    list_folder,
    list_sessions,
    list_sources,
    list_sources_async,
    summarize_session_file,
)
from pi_tui.session_file.loader import LoadedSession, read_session_file
from pi_tui.session_file.session_arg import SessionArgError, resolve_session_arg
from pi_tui.session_file.store import SessionError, SessionReadOnlyError, SessionStore
from pi_tui.session_file.tree import TreeNode

__all__ = [
    "CURRENT_SESSION_VERSION",
    "LAST_ENTRY",
    "BranchSummaryEntry",
    "CompactionEntry",
    "CustomEntry",
    "CustomMessageEntry",
    "Diagnostic",
    "LabelEntry",
    "LoadedSession",
    "MessageEntry",
    "ModelChangeEntry",
    "ModelRef",
    "SessionArgError",
    "SessionContext",
    "SessionEntry",
    "SessionError",
    "SessionHeader",
    "SessionInfoEntry",
    "SessionReadOnlyError",
    "SessionStore",
    "SessionSummary",
    "ThinkingLevelChangeEntry",
    "TreeNode",
    "UnknownEntry",
    "build_session_context",
    "entry_line",
    "iso_timestamp",
    "list_all_sessions",
    "list_folder",
    "list_sessions",
    "list_sources",
    "list_sources_async",
    "new_entry_id",
    "parse_entry",
    "read_session_file",
    "resolve_session_arg",
    "summarize_session_file",
    "uuid7",
]
