"""The session tree as lines for a picker: depth, what each entry is, its label, where the leaf is.

Filters follow pi 1.6's tree selector: `usage` entries are never listed; `default` hides bookkeeping
entries (labels, context edits, custom entries, model and thinking changes, session info) and shows pi
1.6's system messages (the prompt and tools checkpoints); `no-tools` also hides tool results;
`user-only` keeps user messages; `labeled-only` keeps labelled entries; `all` keeps everything.
Assistant replies that only call tools are hidden unless they are the leaf or ended abnormally.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal, TypeAlias

from pi_tui.ai.messages import (
    AssistantMessage,
    BashExecutionMessage,
    SystemMessage,
    ToolResultMessage,
    UserMessage,
    user_text,
)
from pi_tui.session_file.entries import BranchSummaryEntry, CompactionEntry, MessageEntry, SessionEntry
from pi_tui.session_file.store import SessionStore
from pi_tui.session_file.tree import TreeNode

TreeFilter: TypeAlias = Literal["default", "no-tools", "user-only", "labeled-only", "all"]
TREE_FILTERS: tuple[TreeFilter, ...] = ("default", "no-tools", "user-only", "labeled-only", "all")
BOOKKEEPING = frozenset(
    {"label", "context_edit", "custom", "model_change", "thinking_level_change", "session_info"}
)
PREVIEW_CHARS = 80
FILES_GONE_NOTE = "[files no longer restorable]"
"""How the tree, the rewind picker and the compaction timeline mark a point the size cap broke."""


@dataclass(frozen=True)
class TreeLine:
    entry_id: str
    depth: int
    text: str
    label: str | None
    is_leaf: bool
    on_branch: bool
    starts_branch: bool
    """The first shown entry of one of several children: where the conversation forked."""
    files_gone: bool = False
    """Moving here cannot bring the files along: the checkpoint store's cap dropped some of them
    (set by `pi_tui.session.rewind.mark_tree_lines`; docs/rewind.md)."""


def describe(entry: SessionEntry) -> str:
    """A short, recognisable description of one entry."""
    if isinstance(entry, MessageEntry):
        message = entry.message
        if isinstance(message, UserMessage):
            return "user: " + _flat(user_text(message))
        if isinstance(message, AssistantMessage):
            calls = ", ".join(call.name for call in message.tool_calls)
            body = _flat(message.text) or (f"[{calls}]" if calls else "")
            if message.failed:
                body = f"[{message.stop_reason}] {message.error_message or body}"
            return "assistant: " + body
        if isinstance(message, ToolResultMessage):
            return f"{message.tool_name} result" + (" (error)" if message.is_error else "")
        if isinstance(message, BashExecutionMessage):
            return "!" + _flat(message.command)
        if isinstance(message, SystemMessage):
            return "system: " + _checkpoint_text(message)
        return message.role
    if isinstance(entry, CompactionEntry):
        return f"compaction (context {entry.request_tokens_before:,} tokens before)"
    if isinstance(entry, BranchSummaryEntry):
        return "branch summary"
    return entry.type.replace("_", " ")


def _checkpoint_text(message: SystemMessage) -> str:
    extra = message.model_extra or {}
    added = [tool.get("name") for tool in extra.get("toolsAdded") or [] if isinstance(tool, dict)]
    removed = [tool.get("name") for tool in extra.get("toolsRemoved") or [] if isinstance(tool, dict)]
    parts = []
    if added:
        parts.append("tools " + ", ".join(str(name) for name in added))
    if removed:
        parts.append("without " + ", ".join(str(name) for name in removed))
    if extra.get("sections"):
        parts.insert(0, "prompt")
    return " and ".join(parts) if parts else "prompt"


def _flat(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= PREVIEW_CHARS else flat[: PREVIEW_CHARS - 1] + "…"


def _visible(node: TreeNode, mode: TreeFilter, leaf_id: str | None) -> bool:
    entry = node.entry
    if entry.type == "usage":
        return False
    if mode == "all":
        return True
    if mode == "labeled-only":
        return node.label is not None
    message = entry.message if isinstance(entry, MessageEntry) else None
    if mode == "user-only":
        return isinstance(message, UserMessage)
    if entry.type in BOOKKEEPING:
        return False
    if mode == "no-tools" and isinstance(message, ToolResultMessage):
        return False
    if isinstance(message, AssistantMessage) and not message.text.strip() and message.tool_calls:
        return entry.id == leaf_id or message.stop_reason not in ("stop", "toolUse")
    return True


def tree_lines(store: SessionStore, mode: TreeFilter = "default") -> list[TreeLine]:
    """Depth-first, children in time order; hidden entries pass their depth on to their children.
    "You are here" is the newest entry of the branch that is not bookkeeping (pi-tui's request records
    follow every reply), marked when the filter shows it."""
    path = store.get_branch()
    branch = {entry.id for entry in path}
    here = next((entry.id for entry in reversed(path) if entry.type not in BOOKKEEPING), None)
    return [replace(line, is_leaf=line.entry_id == here) for line in _walk_lines(store, mode, branch)]


def _walk_lines(store: SessionStore, mode: TreeFilter, branch: set[str]) -> list[TreeLine]:
    """The tree in pre-order. Iterative: a session is a chain as long as its history (a recursion per
    entry overflowed Python's stack at about 1,000 entries)."""
    leaf = store.leaf_id
    lines: list[TreeLine] = []
    pending: list[tuple[TreeNode, int, bool]] = [(root, 0, False) for root in reversed(store.get_tree())]
    while pending:
        node, depth, fork = pending.pop()
        entry = node.entry
        shown = _visible(node, mode, leaf)
        if shown:
            lines.append(
                TreeLine(
                    entry.id, depth, describe(entry), node.label, entry.id == leaf, entry.id in branch, fork
                )
            )
        # A single child continues the same line of conversation: no extra indent.
        forks = len(node.children) > 1
        child = (depth + (1 if forks else 0), forks or (fork and not shown))
        pending.extend((each, *child) for each in reversed(node.children))
    return lines


def tree_line_text(line: TreeLine) -> str:
    """One line as the tree view and `pi-tui tree` draw it: indent, fork mark, ● leaf / • on the branch."""
    fork = "├ " if line.starts_branch else ""
    marker = "● " if line.is_leaf else ("• " if line.on_branch else "  ")
    label = f"  [{line.label}]" if line.label else ""
    gone = f"  {FILES_GONE_NOTE}" if line.files_gone else ""
    return f"{'  ' * line.depth}{fork}{marker}{line.text}{label}{gone}"


def next_filter(mode: TreeFilter, step: int = 1) -> TreeFilter:
    """The filter after (or with -1 before) `mode`, round the cycle."""
    return TREE_FILTERS[(TREE_FILTERS.index(mode) + step) % len(TREE_FILTERS)]


def set_label(store: SessionStore, entry_id: str, text: str) -> str | None:
    """Label an entry (blank text removes its label); why not, when the entry is unknown."""
    if store.get_entry(entry_id) is None:
        return f"no entry {entry_id} in this session"
    store.append_label(entry_id, text.strip() or None)
    return None
