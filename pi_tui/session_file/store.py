"""`SessionStore`: one session file as pi's `SessionManager` keeps it.

Entries are held in file order with an id index and a leaf pointer (the last entry on load). Every
`append_*` makes a child of the leaf and moves the leaf onto it. Persistence is lazy, a little less so
than pi's: no file exists until the session holds a message (pi waits for the assistant's; we write the
user's at once, so a crash before the first reply cannot lose the prompt); then header and all
entries are written at once, and afterwards each append adds exactly its own line (see `writer.py` for
the durability policy). A session that only recorded its model, thinking level and prompt checkpoint
leaves no file.
A file that could not be fully understood (no header, newer format) is read-only: appending raises
`SessionReadOnlyError`, and `create_branched_session` is the way to continue from it. An empty file (or
one of whitespace only) is a new session that will be written into it.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from pi_tui.ai.messages import AgentMessage, SystemMessage, ThinkingLevel, Usage, UserBlock
from pi_tui.config.paths import session_dir_for_cwd
from pi_tui.session_file.context_rebuild import SessionContext, build_session_context
from pi_tui.session_file.diagnostics import Diagnostic
from pi_tui.session_file.entries import (
    CURRENT_SESSION_VERSION,
    BranchSummaryEntry,
    CompactionEntry,
    ContextEditEntry,
    ContextReplacement,
    CustomEntry,
    CustomMessageEntry,
    LabelEntry,
    MessageEntry,
    ModelChangeEntry,
    SessionEntry,
    SessionHeader,
    SessionInfoEntry,
    ThinkingLevelChangeEntry,
    UsageEntry,
    entry_line,
)
from pi_tui.session_file.forking import branched_entries, export_lines, session_file_name
from pi_tui.session_file.ids import file_timestamp, iso_timestamp, new_entry_id, uuid7
from pi_tui.session_file.listing import newest_session_file
from pi_tui.session_file.loader import EMPTY_FILE, read_session_file
from pi_tui.session_file.migrations import replace_file_atomically, write_migrated_file
from pi_tui.session_file.outside_writes import (
    adopted_notice,
    appended_entries,
    moved_notice,
    rewritten_notice,
)
from pi_tui.session_file.tree import Labels, TreeNode, branch_path, build_tree, parent_loops
from pi_tui.session_file.writer import (
    FileState,
    SessionFileChanged,
    SessionWriteError,
    append_lines,
    create_session_file,
    file_state,
)

_E = TypeVar("_E", bound=SessionEntry)


class SessionError(Exception):
    """A session operation that cannot be carried out (unknown entry id, unusable fork source)."""


class SessionReadOnlyError(SessionError):
    """Appending to a file pi-tui must not modify (no header, empty, newer format version)."""


def _new_header(cwd: str, parent_session: str | None = None) -> SessionHeader:
    return SessionHeader(
        version=CURRENT_SESSION_VERSION,
        id=uuid7(),
        timestamp=iso_timestamp(),
        cwd=cwd,
        parent_session=parent_session,
    )


def _has_message(entry: SessionEntry) -> bool:
    """A message of the conversation: a system checkpoint alone writes no file (pi 1.6's
    `_hasConversation` waits the same way)."""
    return isinstance(entry, MessageEntry) and not isinstance(entry.message, SystemMessage)


class SessionStore:
    """The entries of one session and the rules for adding to them. Use the classmethods to construct."""

    def __init__(
        self,
        header: SessionHeader,
        entries: list[SessionEntry],
        *,
        path: Path | None,
        persist: bool,
        written: int = 0,
        file_exists: bool = False,
        read_only_reason: str | None = None,
        diagnostics: list[Diagnostic] | None = None,
        cwd: str | None = None,
        into_blank_file: bool = False,
        disk_state: FileState | None = None,
    ) -> None:
        self._header = header
        self._entries = entries
        self._by_id = {entry.id: entry for entry in entries}
        self._leaf_id: str | None = entries[-1].id if entries else None
        self._labels = Labels.from_entries(entries)
        self._path = path
        self._persist = persist
        self._written = written
        self._file_exists = file_exists
        self._has_message = any(_has_message(entry) for entry in entries)
        self.read_only_reason = read_only_reason
        self.diagnostics: list[Diagnostic] = diagnostics or []
        # New entries get fresh ids, so only loaded ones can loop; a loop is cut once, here.
        loops = parent_loops(entries, self._by_id)
        self._loop_roots = frozenset(loop.root for loop in loops)
        if path is not None:
            self.diagnostics += [Diagnostic(path, None, loop.describe()) for loop in loops]
        self._cwd = cwd if cwd is not None else header.cwd
        self._into_blank_file = into_blank_file
        self.write_failure: SessionWriteError | None = None
        """Why the last write failed, until a write succeeds (the entries it held are written then)."""
        # Appends come from worker threads, two at once when parallel summary calls each record their
        # request; unserialised, both wrote the pending lines and one entry landed in the file twice.
        self._append_lock = threading.RLock()
        self._disk_state = disk_state
        """The file as this store last read or wrote it; an append to a file that differs (another
        writer, a truncation) is handled by `outside_writes` instead of forking it silently."""
        self.notices: list[str] = []
        """What happened to the file that the user must hear of (another writer's entries taken in,
        the session moved to a new file), in order; `on_notice` hears each as it happens."""
        self.on_notice: Callable[[str], None] | None = None

    # --- construction ---------------------------------------------------------------------------

    @classmethod
    def create(cls, cwd: str, session_dir: Path | None = None, *, root: Path | None = None) -> SessionStore:
        """A new session for `cwd`, filed in `session_dir` (default: the cwd's folder under `root`)."""
        header = _new_header(cwd)
        folder = session_dir or session_dir_for_cwd(cwd, root)
        return cls(header, [], path=folder / session_file_name(header), persist=True)

    @classmethod
    def in_memory(cls, cwd: str) -> SessionStore:
        """A session that never touches the disk."""
        return cls(_new_header(cwd), [], path=None, persist=False)

    @classmethod
    def open(cls, path: Path, *, cwd: str | None = None, migrate: bool = True) -> SessionStore:
        """Load `path` (a missing file becomes a new session written there on first persist).

        Older formats are migrated; with `migrate=False` the upgrade stays in memory and the store is
        read-only, since v3 lines must not be appended to an older file.
        """
        if not path.exists():
            header = _new_header(cwd if cwd is not None else os.getcwd())
            return cls(header, [], path=path, persist=True)
        state = file_state(path)  # before reading: a line added meanwhile shows at the first append
        loaded = read_session_file(path)
        if loaded.read_only_reason == EMPTY_FILE:
            header = _new_header(cwd if cwd is not None else os.getcwd())
            return cls(header, [], path=path, persist=True, into_blank_file=True)
        reason = loaded.read_only_reason
        header = loaded.header or _new_header(cwd if cwd is not None else "")
        if loaded.migrated and reason is None:
            reason = write_migrated_file(
                path, header, loaded.entries, loaded.original_version, migrate, loaded.diagnostics
            )
            state = file_state(path)  # the migrated file replaced the old one
        return cls(
            header,
            loaded.entries,
            path=path,
            persist=True,
            written=len(loaded.entries),
            file_exists=True,
            read_only_reason=reason,
            diagnostics=loaded.diagnostics,
            cwd=cwd,
            disk_state=state,
        )

    @classmethod
    def continue_recent(
        cls, cwd: str, session_dir: Path | None = None, *, root: Path | None = None
    ) -> SessionStore:
        """The most recently modified session with a valid header in the cwd's folder, else a new one."""
        folder = session_dir or session_dir_for_cwd(cwd, root)
        newest = newest_session_file(folder)
        return cls.open(newest) if newest is not None else cls.create(cwd, folder)

    @classmethod
    def fork_from(
        cls, source: Path, target_cwd: str, session_dir: Path | None = None, *, root: Path | None = None
    ) -> SessionStore:
        """A new session in `target_cwd`'s folder holding every entry of `source` verbatim (`--fork`),
        written immediately, with `parentSession` = the source path."""
        loaded = read_session_file(source)
        if loaded.header is None or loaded.original_version > CURRENT_SESSION_VERSION:
            reason = loaded.read_only_reason or "no session header"
            raise SessionError(f"cannot fork {source}: {reason}")
        header = _new_header(target_cwd, parent_session=str(source))
        folder = session_dir or session_dir_for_cwd(target_cwd, root)
        store = cls(header, loaded.entries, path=folder / session_file_name(header), persist=True)
        store.diagnostics = [*loaded.diagnostics, *store.diagnostics]
        store._write_pending(force=True)
        return store

    # --- state ----------------------------------------------------------------------------------

    @property
    def header(self) -> SessionHeader:
        return self._header

    @property
    def session_id(self) -> str:
        return self._header.id

    @property
    def cwd(self) -> str:
        return self._cwd

    @property
    def path(self) -> Path | None:
        """Where the session is (or will be) written; None for in-memory sessions."""
        return self._path if self._persist else None

    @property
    def is_persisted(self) -> bool:
        """True once the file exists on disk."""
        return self._file_exists

    @property
    def writable(self) -> bool:
        return self.read_only_reason is None

    @property
    def entries(self) -> list[SessionEntry]:
        """All entries in file order (a copy)."""
        return list(self._entries)

    @property
    def leaf_id(self) -> str | None:
        return self._leaf_id

    @property
    def labels(self) -> dict[str, str]:
        """target id → label text."""
        return dict(self._labels.text)

    def get_entry(self, entry_id: str) -> SessionEntry | None:
        return self._by_id.get(entry_id)

    def get_label(self, entry_id: str) -> str | None:
        return self._labels.text.get(entry_id)

    def get_branch(self, from_id: str | None = None) -> list[SessionEntry]:
        """Root → `from_id` (default: the leaf), every entry type included."""
        return branch_path(self._by_id, from_id if from_id is not None else self._leaf_id, self._loop_roots)

    def get_tree(self) -> list[TreeNode]:
        return build_tree(self._entries, self._labels, self._loop_roots)

    def get_session_name(self) -> str | None:
        """The latest `session_info` name in file order; empty means cleared (None)."""
        for entry in reversed(self._entries):
            if isinstance(entry, SessionInfoEntry):
                return (entry.name or "").strip() or None
        return None

    def build_context(self) -> SessionContext:
        """The context the model continues from at the current leaf."""
        return build_session_context(self._entries, self._leaf_id, self._by_id, self._loop_roots)

    # --- navigation -----------------------------------------------------------------------------

    def branch(self, entry_id: str) -> None:
        """Move the leaf to an existing entry; writes nothing."""
        if entry_id not in self._by_id:
            raise SessionError(f"entry {entry_id} not found")
        self._leaf_id = entry_id

    def reset_leaf(self) -> None:
        """Leaf before the first entry: the next append starts a new root."""
        self._leaf_id = None

    def branch_with_summary(
        self,
        entry_id: str | None,
        summary: str,
        details: Any = None,
        from_hook: bool | None = None,
        usage: Usage | None = None,
    ) -> BranchSummaryEntry:
        """Move the leaf to `entry_id` (None = root) and record what the abandoned branch did: `fromId`
        is the leaf that was left (pi 1.6), `usage` what the summary call cost."""
        if entry_id is not None and entry_id not in self._by_id:
            raise SessionError(f"entry {entry_id} not found")
        left = self._leaf_id
        self._leaf_id = entry_id
        return self._append(
            BranchSummaryEntry,
            from_id=left if left is not None else "root",
            summary=summary,
            details=details,
            usage=usage,
            from_hook=from_hook,
        )

    # --- appends --------------------------------------------------------------------------------

    def append_message(self, message: AgentMessage) -> MessageEntry:
        return self._append(MessageEntry, message=message)

    def append_thinking_level_change(self, thinking_level: ThinkingLevel) -> ThinkingLevelChangeEntry:
        return self._append(ThinkingLevelChangeEntry, thinking_level=thinking_level)

    def append_model_change(self, provider: str, model_id: str) -> ModelChangeEntry:
        return self._append(ModelChangeEntry, provider=provider, model_id=model_id)

    def append_compaction(
        self,
        summary: str,
        first_kept_entry_id: str,
        tokens_before: int,
        details: Any = None,
        from_hook: bool | None = None,
        usage: Usage | None = None,
        system_message: SystemMessage | None = None,
    ) -> CompactionEntry:
        """`usage`: the summary call's (pi 1.6 counts it in the session's cost); `system_message`: the
        prompt and tools in force, which replace the system messages before the compaction."""
        return self._append(
            CompactionEntry,
            summary=summary,
            first_kept_entry_id=first_kept_entry_id,
            tokens_before=tokens_before,
            details=details,
            usage=usage,
            from_hook=from_hook,
            system_message=system_message,
        )

    def append_context_edit(
        self, target_id: str, replacement: ContextReplacement | None = None
    ) -> ContextEditEntry:
        """pi 1.6's append-only context edit: from here on, on this branch, `target_id` is sent with
        `replacement`'s content, or left out (None). The target's own line never changes."""
        if target_id not in self._by_id:
            raise SessionError(f"entry {target_id} not found")
        return self._append(ContextEditEntry, target_id=target_id, replacement=replacement)

    def append_usage(
        self, kind: str, provider: str, model: str, usage: Usage, note: str | None = None
    ) -> UsageEntry:
        """pi 1.6's record of a billed call that is not a turn (a cache refresh: `cache_warm`), with
        pi's keys in pi's order; it counts in the session's cost and is never sent to a model."""
        return self._append(UsageEntry, kind=kind, provider=provider, model=model, usage=usage, note=note)

    def message_entry_id(self, message: AgentMessage) -> str | None:
        """The id of the entry on the current branch that holds `message` (this very object, or an
        equal one), newest first; None when it was never written."""
        branch = self.get_branch()
        for entry in reversed(branch):
            if isinstance(entry, MessageEntry) and entry.message is message:
                return entry.id
        for entry in reversed(branch):
            if isinstance(entry, MessageEntry) and entry.message == message:
                return entry.id
        return None

    def append_custom(self, custom_type: str, data: Any = None) -> CustomEntry:
        return self._append(CustomEntry, custom_type=custom_type, data=data)

    def append_custom_message(
        self, custom_type: str, content: str | list[UserBlock], display: bool = True, details: Any = None
    ) -> CustomMessageEntry:
        return self._append(
            CustomMessageEntry, custom_type=custom_type, content=content, display=display, details=details
        )

    def append_label(self, target_id: str, label: str | None) -> LabelEntry:
        """Set (or with None / "" clear) the label of an existing entry."""
        if target_id not in self._by_id:
            raise SessionError(f"entry {target_id} not found")
        entry = self._append(LabelEntry, target_id=target_id, label=label)
        self._labels.apply(entry)
        return entry

    def append_session_info(self, name: str | None) -> SessionInfoEntry:
        """Name the session; the name is trimmed and an empty name clears it."""
        return self._append(SessionInfoEntry, name=name.strip() if name is not None else None)

    def _append(self, entry_class: Callable[..., _E], /, **fields: Any) -> _E:
        if self.read_only_reason is not None:
            raise SessionReadOnlyError(f"session is read-only: {self.read_only_reason}")
        with self._append_lock:
            entry_id = new_entry_id(self._by_id)
            entry = entry_class(id=entry_id, parent_id=self._leaf_id, timestamp=iso_timestamp(), **fields)
            self._entries.append(entry)
            self._by_id[entry.id] = entry
            self._leaf_id = entry.id
            self._has_message = self._has_message or _has_message(entry)
            self._write_pending()
        return entry

    def _write_pending(self, *, force: bool = False) -> None:
        """Write every entry not yet on disk, if the lazy-write rule allows it."""
        if not self._persist or self._path is None:
            return
        if self._file_exists and self._written >= len(self._entries):
            return
        lines = [entry_line(entry) for entry in self._entries[self._written :]]
        try:
            if self._file_exists:
                self._append_checked(lines)
            elif self._has_message or force:
                header = entry_line(self._header)
                self._disk_state = create_session_file(
                    self._path, [header, *lines], into_blank=self._into_blank_file
                )
                self._file_exists = True
            else:
                return
        except SessionWriteError as error:
            self.write_failure = error
            raise
        self._written = len(self._entries)
        self.write_failure = None

    def _append_checked(self, lines: list[str]) -> None:
        """Append `lines` to the file if it is as this store left it; else take in what another writer
        appended and append after it, or rewrite or move the session (`outside_writes`)."""
        assert self._path is not None
        for _ in range(3):  # another writer may append again between taking in and appending
            try:
                self._disk_state = append_lines(self._path, lines, self._disk_state) or self._disk_state
                return
            except SessionFileChanged as change:
                adopted = appended_entries(change, self._by_id.keys())
                if adopted is None:
                    self._rewrite_or_move(change)
                    return
                self._take_in(adopted, change.found)
        self._rewrite_or_move(SessionFileChanged(self._path, self._disk_state or FileState(0, 0, 0), None))

    def _take_in(self, adopted: list[SessionEntry], state: FileState | None) -> None:
        """Another writer's entries, placed before this store's unwritten ones (as in the file)."""
        assert self._path is not None
        self._entries[self._written : self._written] = adopted
        self._written += len(adopted)
        for entry in adopted:
            self._by_id[entry.id] = entry
            if isinstance(entry, LabelEntry):
                self._labels.apply(entry)
        self._has_message = self._has_message or any(_has_message(entry) for entry in adopted)
        self._disk_state = state
        self._notice(adopted_notice(self._path, adopted))

    def _rewrite_or_move(self, change: SessionFileChanged) -> None:
        """The file is not ours to append to any more: rewrite it whole when it was emptied, else go on
        in a new file of the same folder; either way it holds every entry this store has."""
        old = self._path
        assert old is not None
        found = change.found
        emptied = (
            found is not None
            and found.size == 0
            and (found.device, found.inode)
            == (
                change.expected.device,
                change.expected.inode,
            )
        )
        if emptied:
            text = "".join(f"{entry_line(item)}\n" for item in (self._header, *self._entries))
            try:
                replace_file_atomically(old, text)
            except OSError as error:
                raise SessionWriteError(error.errno, error.strerror or str(error), str(old)) from error
            self._disk_state = file_state(old)
            self._notice(rewritten_notice(old, len(self._entries)))
            return
        header = _new_header(self._cwd, parent_session=str(old))
        target = old.parent / session_file_name(header)
        lines = [entry_line(item) for item in (header, *self._entries)]
        self._disk_state = create_session_file(target, lines)
        self._header, self._path = header, target
        self._notice(moved_notice(old, target, change))

    def _notice(self, text: str) -> None:
        self.notices.append(text)
        if self.on_notice is not None:
            self.on_notice(text)

    # --- copies ---------------------------------------------------------------------------------

    def create_branched_session(self, leaf_id: str) -> SessionStore:
        """A new session (same folder) holding the root→`leaf_id` path and its labels, for fork / clone.

        Written at once if the path holds a message, otherwise lazily like any new session.
        """
        path = self.get_branch(leaf_id)
        if not path:
            raise SessionError(f"entry {leaf_id} not found")
        entries = branched_entries(path, self._labels)
        parent = str(self._path) if self._persist and self._path is not None else None
        header = _new_header(self._cwd, parent_session=parent)
        if not self._persist or self._path is None:
            store = SessionStore(header, entries, path=None, persist=False)
        else:
            target = self._path.parent / session_file_name(header)
            store = SessionStore(header, entries, path=target, persist=True)
            store._write_pending()
        return store

    def export_branch(self, out_path: Path | None = None) -> Path:
        """Write the current branch as a linear session file (`/export x.jsonl`); returns its path."""
        target = out_path or Path(self._cwd) / f"session-{file_timestamp(iso_timestamp())}.jsonl"
        lines = export_lines(self.session_id, self._cwd, self.get_branch())
        replace_file_atomically(target, "".join(f"{line}\n" for line in lines))
        return target
