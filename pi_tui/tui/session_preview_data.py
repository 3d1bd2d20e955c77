"""Turn a session file into what the start page's preview shows (runs in a worker thread)."""

from __future__ import annotations

from pathlib import Path

from pi_tui.ai.messages import (
    AgentMessage,
    AssistantMessage,
    BashExecutionMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    ToolResultMessage,
    UserMessage,
    user_text,
)
from pi_tui.session_file.store import SessionStore
from pi_tui.tui.widgets.message_blocks import failure_text
from pi_tui.tui.widgets.session_preview import SessionPreviewData, TranscriptLine


def message_line(message: AgentMessage) -> TranscriptLine:
    """One line per message: its role and the first words a person would recognise it by."""
    if isinstance(message, UserMessage | CustomMessage):
        return TranscriptLine(message.role, user_text(message))
    if isinstance(message, AssistantMessage):
        calls = ", ".join(call.name for call in message.tool_calls)
        text = message.text or (f"[tool calls: {calls}]" if calls else "")
        if message.failed:  # what the user saw before the stop, then the conversation's own marker
            text = f"{message.text} {failure_text(message)}".lstrip()
        return TranscriptLine("assistant", text)
    if isinstance(message, ToolResultMessage):
        status = "error" if message.is_error else "ok"
        return TranscriptLine(f"{message.tool_name}", f"[{status}] {message.text}")
    if isinstance(message, BashExecutionMessage):
        return TranscriptLine("!bash", f"$ {message.command}")
    if isinstance(message, CompactionSummaryMessage):
        return TranscriptLine("compaction", f"summary of {message.tokens_before:,} tokens")
    if isinstance(message, BranchSummaryMessage):
        return TranscriptLine("branch", message.summary)
    return TranscriptLine(message.role, "")


def build_preview(path: Path, source: str) -> SessionPreviewData:
    """Open read-only (no migration), rebuild the context at the leaf, summarise it."""
    store = SessionStore.open(path, migrate=False)
    context = store.build_context()
    model = f"{context.model.provider}/{context.model.model_id}" if context.model else "(none recorded)"
    facts = [
        ("file", path.name),
        ("folder", f"{path.parent.name} ({source} sessions)"),
        ("id", store.session_id),
        ("cwd", store.cwd),
        ("entries", f"{len(store.entries)} ({len(context.messages)} messages in context at the leaf)"),
        ("model", model),
        ("thinking", context.thinking_level),
    ]
    warnings = [str(diagnostic) for diagnostic in store.diagnostics]
    if store.read_only_reason:
        warnings.append(f"read-only: {store.read_only_reason}")
    title = store.get_session_name() or "Session"
    return SessionPreviewData(
        title=title,
        facts=facts,
        warnings=warnings,
        transcript=[message_line(message) for message in context.messages],
    )
