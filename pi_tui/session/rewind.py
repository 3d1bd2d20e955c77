"""Rewind: put the project's files back as they were at a point of the session tree.

The file state at an entry is read off the path root → entry: each checkpoint on it (a `write`, `edit`
or `bash` result's `piTuiCheckpoint`, or a `pi-tui.rewind` entry) says what a file became; a file no
checkpoint on the path touched is as it was before the session first touched it. A plan compares that
with the disk, with what the agent last wrote on the current branch and with every state a checkpoint of
any branch recorded: a file whose content is none of these was changed outside pi-tui since, and is a
conflict, left unless the user chooses it. Applying a plan keeps what it replaces as a
checkpoint of its own (a `pi-tui.rewind` entry), so a rewind is itself undoable. What is and is not
restorable: docs/rewind.md.
"""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import os
import stat
import tempfile
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from pi_tui.ai.messages import ToolResultMessage, UserMessage
from pi_tui.session.tree_navigation import navigate_tree
from pi_tui.session_file.entries import CustomEntry, MessageEntry, SessionEntry
from pi_tui.session_file.store import SessionStore
from pi_tui.session_file.tree_listing import TreeLine
from pi_tui.tools.file_checkpoints import CHECKPOINT_DETAILS_KEY
from pi_tui.tools.file_checkpoints.capture import (
    ChangeRecord,
    FileChange,
    capture_state,
    project_relative,
    record_in_details,
)
from pi_tui.tools.file_checkpoints.store import (
    CHUNK_BYTES,
    CheckpointObjectError,
    CheckpointStore,
    FileState,
    open_regular_file,
)

REWIND_CUSTOM_TYPE = "pi-tui.rewind"
MAX_DIFF_BYTES = 1024 * 1024
"""Larger (or binary) files are listed with their sizes instead of a diff, never read whole."""

Action = Literal["restore", "delete", "conflict", "unavailable"]


@dataclass(frozen=True)
class RewindFile:
    """One file a rewind would change. `action` "conflict": changed outside pi-tui since the agent's
    last write; "unavailable": its checkpoint is missing, unreadable or tampered with (`reason`)."""

    path: str
    action: Action
    current: FileState
    target: FileState
    diff: list[str] = field(default_factory=list)
    reason: str | None = None


@dataclass(frozen=True)
class RewindPlan:
    """What restoring the files of `point_id` (None: before the first entry) would do."""

    point_id: str | None
    files: list[RewindFile]
    warnings: list[str] = field(default_factory=list)

    @property
    def conflicts(self) -> list[RewindFile]:
        return [item for item in self.files if item.action == "conflict"]

    @property
    def unavailable(self) -> list[RewindFile]:
        return [item for item in self.files if item.action == "unavailable"]

    @property
    def changes(self) -> list[RewindFile]:
        return [item for item in self.files if item.action in ("restore", "delete")]

    def only(self, paths: set[str]) -> RewindPlan:
        """The same plan for some files (the Tools pane's "restore this file to before")."""
        return RewindPlan(self.point_id, [item for item in self.files if item.path in paths], self.warnings)

    def to_json_obj(self) -> dict[str, Any]:
        return {
            "pointId": self.point_id,
            "files": [
                {
                    "path": item.path,
                    "action": item.action,
                    "current": item.current.describe(),
                    "target": item.target.describe(),
                    **({"reason": item.reason} if item.reason else {}),
                    "diff": item.diff,
                }
                for item in self.files
            ],
            "warnings": self.warnings,
        }


@dataclass(frozen=True)
class RewindOutcome:
    restored: list[str]
    left: list[RewindFile]
    """Conflicts not chosen and files whose checkpoint could not be read: untouched on disk."""
    entry_id: str | None
    failed: list[tuple[str, str]] = field(default_factory=list)


@dataclass(frozen=True)
class RewindPoint:
    """A user message the files can be rewound to (the state before it)."""

    entry_id: str
    text: str
    on_current_branch: bool
    restorable: bool
    """False when the size cap dropped a checkpoint this point needs."""


ACTION_WORDS = {
    "restore": "restore",
    "delete": "delete",
    "conflict": "CONFLICT (changed outside pi-tui since)",
    "unavailable": "cannot restore",
}


def plan_lines(plan: RewindPlan) -> list[str]:
    """The plan as the dialog and `pi-tui restore --files` show it: one line per file, then its diff."""
    lines: list[str] = []
    for item in plan.files:
        reason = f" ({item.reason})" if item.reason else ""
        lines.append(f"{ACTION_WORDS[item.action]}  {item.path}{reason}")
        lines.extend(f"    {line}" for line in item.diff)
    lines.extend(f"note: {warning}" for warning in plan.warnings)
    return lines


def point_for(store: SessionStore, entry_id: str) -> str | None:
    """The entry whose file state "rewind to `entry_id`" means: before a user message, else after it."""
    entry = store.get_entry(entry_id)
    if isinstance(entry, MessageEntry) and isinstance(entry.message, UserMessage):
        return entry.parent_id
    return entry_id


def change_record(entry: SessionEntry) -> ChangeRecord | None:
    """The checkpoint an entry holds: a tool result's details or a `pi-tui.rewind` entry's data."""
    if isinstance(entry, MessageEntry) and isinstance(entry.message, ToolResultMessage):
        return record_in_details(entry.message.details)
    if isinstance(entry, CustomEntry) and entry.custom_type == REWIND_CUSTOM_TYPE:
        data = entry.data if isinstance(entry.data, dict) else {}
        return record_in_details({CHECKPOINT_DETAILS_KEY: data.get("record")})
    return None


def _content_key(state: FileState) -> tuple[str, str | None, str | None]:
    """What `FileState.same_content` compares."""
    return (state.kind, state.sha256, state.target)


class FileHistory:
    """Every checkpoint of one session, read once, and the file states they imply at any entry."""

    def __init__(self, store: SessionStore) -> None:
        self.store = store
        self.records: dict[str, ChangeRecord] = {}
        self.first_before: dict[str, FileState] = {}
        self.known: dict[str, set[tuple[str, str | None, str | None]]] = {}
        """Every state a checkpoint of any branch saw each file in: content pi-tui put or found there."""
        for entry in store.entries:
            record = change_record(entry)
            if record is None:
                continue
            self.records[entry.id] = record
            for change in record.files:
                self.first_before.setdefault(change.path, change.before)
                seen = self.known.setdefault(change.path, set())
                seen.update(_content_key(state) for state in (change.before, change.after))

    def seen(self, relative: str, state: FileState) -> bool:
        """Whether `state` is one a checkpoint of this session recorded for the file (not a hand edit)."""
        return _content_key(state) in self.known.get(relative, set())

    def states_at(self, point_id: str | None) -> dict[str, FileState]:
        """Each touched file's state at `point_id`, as the checkpoints on its path say."""
        states = dict(self.first_before)
        if point_id is None:
            return states
        for entry in self.store.get_branch(point_id):
            record = self.records.get(entry.id)
            if record is not None:
                for change in record.files:
                    states[change.path] = change.after
        return states

    def notes_between(self, point_id: str | None, leaf_id: str | None) -> list[str]:
        """What checkpoints off the common path could not keep ("bash may have changed files")."""
        on_point = {entry.id for entry in self.store.get_branch(point_id)} if point_id else set()
        on_leaf = [entry.id for entry in self.store.get_branch(leaf_id)] if leaf_id else []
        notes: list[str] = []
        for entry_id in on_leaf:
            if entry_id in on_point:
                continue
            record = self.records.get(entry_id)
            if record is None:
                continue
            if record.note:
                notes.append(record.note)
            notes.extend(f"{path}: changed but not kept, so not restorable" for path in record.unrecorded)
        return notes


def _disk_state(project: str, relative: str) -> FileState:
    """The file's state now, hashed by streaming; nothing is stored."""
    absolute = os.path.join(project, relative)
    try:
        info = os.lstat(absolute)
    except FileNotFoundError:
        return FileState.absent()
    if stat.S_ISLNK(info.st_mode):
        return FileState(kind="symlink", target=os.readlink(absolute))
    digest = hashlib.sha256()
    size = 0
    with open_regular_file(absolute) as source:
        while chunk := source.read(CHUNK_BYTES):
            digest.update(chunk)
            size += len(chunk)
    return FileState(kind="file", sha256=digest.hexdigest(), size=size, mode=stat.S_IMODE(info.st_mode))


def _small_text(read: Any, size: int | None) -> list[str] | None:
    if size is None or size > MAX_DIFF_BYTES:
        return None
    try:
        data: bytes = read()
    except (OSError, CheckpointObjectError):
        return None
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8").splitlines(keepends=True)
    except UnicodeDecodeError:
        return None


def _object_bytes(checkpoints: CheckpointStore, sha256: str) -> bytes:
    with checkpoints.open_verified(sha256) as chunks:
        return b"".join(chunks)


def _file_bytes(path: str) -> bytes:
    with open_regular_file(path) as source:
        return source.read(MAX_DIFF_BYTES + 1)


def _diff(
    checkpoints: CheckpointStore, project: str, relative: str, current: FileState, target: FileState
) -> list[str]:
    if current.kind != "file" and target.kind != "file":
        return [f"{current.describe()} → {target.describe()}"]
    old: list[str] | None = []
    new: list[str] | None = []
    if current.kind == "file":
        old = _small_text(lambda: _file_bytes(os.path.join(project, relative)), current.size)
    if target.kind == "file" and target.sha256 is not None:
        sha256 = target.sha256
        new = _small_text(lambda: _object_bytes(checkpoints, sha256), target.size)
    if old is None or new is None:
        return [f"binary or large file: {current.describe()} → {target.describe()}"]
    lines = difflib.unified_diff(old, new, f"a/{relative} (now)", f"b/{relative} (restored)")
    return [line.rstrip("\n") for line in lines]


def plan_rewind(
    store: SessionStore,
    checkpoints: CheckpointStore,
    project: str,
    point_id: str | None,
    *,
    from_leaf: str | None = None,
    history: FileHistory | None = None,
    targets: dict[str, FileState] | None = None,
) -> RewindPlan:
    """What restoring the files of `point_id` (or to `targets`, when given) would change, with a diff
    per file; reads only. The disk is expected as the agent left it at `from_leaf` (default: the leaf)
    or in a state a checkpoint recorded; anything else is a conflict."""
    history = history or FileHistory(store)
    if targets is None:
        targets = history.states_at(point_id)
    leaf = from_leaf if from_leaf is not None else store.leaf_id
    agent_wrote = history.states_at(leaf)
    files: list[RewindFile] = []
    for relative in sorted(targets):
        target = targets[relative]
        if project_relative(project, os.path.join(project, relative)) != relative:
            files.append(RewindFile(relative, "unavailable", target, target, reason="outside the project"))
            continue
        try:
            current = _disk_state(project, relative)
        except OSError as error:
            reason = f"cannot be read now ({error})"
            files.append(RewindFile(relative, "unavailable", FileState.absent(), target, reason=reason))
            continue
        if current.same_content(target):
            continue
        problem = checkpoints.check(target.sha256) if target.kind == "file" and target.sha256 else None
        if problem is not None:
            files.append(
                RewindFile(relative, "unavailable", current, target, reason=f"checkpoint {problem.reason}")
            )
            continue
        expected = agent_wrote.get(relative, target)
        action: Action = "delete" if target.kind == "absent" else "restore"
        # Content pi-tui recorded for this file on any branch is not a hand edit: after a tree move
        # whose files stayed behind, the disk holds the other branch's state, and that is no conflict.
        if not current.same_content(expected) and not history.seen(relative, current):
            action = "conflict"
        diff = _diff(checkpoints, project, relative, current, target)
        files.append(RewindFile(relative, action, current, target, diff))
    return RewindPlan(point_id, files, history.notes_between(point_id, leaf))


def _inside(project: str, absolute: str) -> bool:
    return project_relative(project, absolute) is not None


def _write_state(checkpoints: CheckpointStore, project: str, relative: str, target: FileState) -> None:
    """Put one file in `target`'s state: streamed to a temporary file beside it, checked against its
    hash, then renamed into place; never through a link that leads out of the project."""
    absolute = os.path.join(project, relative)
    folder = os.path.dirname(absolute)
    if not _inside(project, absolute):
        raise OSError(f"{relative} is outside the project")
    if target.kind == "absent":
        with contextlib.suppress(FileNotFoundError):
            if os.path.isdir(absolute) and not os.path.islink(absolute):
                raise IsADirectoryError(f"{relative} is a folder now")
            os.unlink(absolute)
        return
    os.makedirs(folder, exist_ok=True)
    if not _inside(project, absolute):
        raise OSError(f"{relative} is outside the project")
    if target.kind == "symlink":
        temporary = os.path.join(folder, f".pi-tui-rewind-{os.getpid()}-{os.path.basename(relative)}")
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        os.symlink(target.target or "", temporary)
        os.replace(temporary, absolute)
        return
    assert target.sha256 is not None
    fd, temporary = tempfile.mkstemp(dir=folder, prefix=".pi-tui-rewind-")
    try:
        with os.fdopen(fd, "wb") as out, checkpoints.open_verified(target.sha256) as chunks:
            for chunk in chunks:
                out.write(chunk)
        os.chmod(temporary, (target.mode if target.mode is not None else 0o644) & 0o7777)
        os.replace(temporary, absolute)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def apply_rewind(
    store: SessionStore,
    checkpoints: CheckpointStore,
    project: str,
    plan: RewindPlan,
    *,
    chosen_conflicts: set[str] | None = None,
    force: bool = False,
) -> RewindOutcome:
    """Write back the plan's files (conflicts only when chosen or `force`), each replaced state kept
    first, and record it all as a `pi-tui.rewind` entry at the leaf (so it can be undone)."""
    chosen = chosen_conflicts or set()
    changes: list[FileChange] = []
    restored: list[str] = []
    left: list[RewindFile] = []
    failed: list[tuple[str, str]] = []
    for item in plan.files:
        wanted = item.action in ("restore", "delete") or (
            item.action == "conflict" and (force or item.path in chosen)
        )
        if not wanted:
            left.append(item)
            continue
        try:
            before = capture_state(checkpoints, project, item.path)
            _write_state(checkpoints, project, item.path, item.target)
        except (OSError, CheckpointObjectError) as error:
            failed.append((item.path, str(error)))
            continue
        changes.append(FileChange(path=item.path, before=before, after=item.target))
        restored.append(item.path)
    record = ChangeRecord(files=changes)
    entry = store.append_custom(REWIND_CUSTOM_TYPE, {"point": plan.point_id, "record": record.to_json_obj()})
    return RewindOutcome(restored, left, entry.id, failed)


class FileAvailability:
    """Which points of the tree can still restore their files: a point cannot when a file's state
    there is content whose object the size cap dropped (or that is gone from the folder). One pass
    over the entries, each object looked up once, so the tree and the timeline can mark every entry."""

    def __init__(self, store: SessionStore, checkpoints: CheckpointStore) -> None:
        self.store = store
        history = FileHistory(store)
        present: dict[str, bool] = {}

        def gone(state: FileState) -> bool:
            if state.kind != "file":
                return False
            if state.sha256 is None:
                return True
            if state.sha256 not in present:
                present[state.sha256] = checkpoints.has(state.sha256)
            return not present[state.sha256]

        initial = frozenset(path for path, state in history.first_before.items() if gone(state))
        self.gone_at_start = bool(initial)
        self.gone_after: set[str] = set()
        """Entries after which some file's content can no longer be written back."""
        if not history.records:
            return
        # In file order a parent comes before its children, so one pass carries each entry's missing
        # files from its parent's (no tree built: a session is as long as its history).
        missing_after: dict[str, frozenset[str]] = {}
        for entry in store.entries:
            missing = missing_after.get(entry.parent_id, initial) if entry.parent_id else initial
            record = history.records.get(entry.id)
            if record is not None:
                changed = {change.path for change in record.files}
                now_gone = {change.path for change in record.files if gone(change.after)}
                missing = frozenset((missing - changed) | now_gone)
            missing_after[entry.id] = missing
            if missing:
                self.gone_after.add(entry.id)

    def restorable_after(self, entry_id: str | None) -> bool:
        """Whether the files as they were just after `entry_id` (None: before the first) can be restored."""
        return not self.gone_at_start if entry_id is None else entry_id not in self.gone_after

    def restorable(self, entry_id: str) -> bool:
        """Whether "rewind to `entry_id`" (before it, for a user message) can restore the files."""
        return self.restorable_after(point_for(self.store, entry_id))


def last_rewind(store: SessionStore) -> CustomEntry | None:
    """The newest rewind on the current branch (the one "undo the last rewind" takes back)."""
    for entry in reversed(store.get_branch()) if store.leaf_id else []:
        if isinstance(entry, CustomEntry) and entry.custom_type == REWIND_CUSTOM_TYPE:
            record = change_record(entry)
            if record is not None and record.files:
                return entry
    return None


def plan_undo(store: SessionStore, checkpoints: CheckpointStore, project: str) -> RewindPlan | None:
    """The files the last rewind changed, as they were just before it, hand edits it overwrote
    included (it kept them); None when the branch has no rewind that changed a file."""
    entry = last_rewind(store)
    record = change_record(entry) if entry is not None else None
    if entry is None or record is None:
        return None
    targets = {change.path: change.before for change in record.files}
    return plan_rewind(store, checkpoints, project, entry.id, targets=targets)


def rewind_points(store: SessionStore, checkpoints: CheckpointStore) -> list[RewindPoint]:
    """Every user message on every branch, in file order, with whether its files can still be restored."""
    availability = FileAvailability(store, checkpoints)
    current = {entry.id for entry in store.get_branch()} if store.leaf_id else set()
    points: list[RewindPoint] = []
    for entry in store.entries:
        if not (isinstance(entry, MessageEntry) and isinstance(entry.message, UserMessage)):
            continue
        restorable = availability.restorable_after(entry.parent_id)
        text = _message_text(entry.message)
        points.append(RewindPoint(entry.id, text, entry.id in current, restorable))
    return points


def mark_tree_lines(
    store: SessionStore, checkpoints: CheckpointStore, lines: list[TreeLine]
) -> list[TreeLine]:
    """The tree's lines with the points that can no longer restore files marked (`/tree`, `pi-tui tree`)."""
    availability = FileAvailability(store, checkpoints)
    if not availability.gone_after and not availability.gone_at_start:
        return lines
    return [replace(line, files_gone=not availability.restorable(line.entry_id)) for line in lines]


def _message_text(message: UserMessage) -> str:
    content = message.content
    if isinstance(content, str):
        return content
    return " ".join(getattr(block, "text", "") for block in content).strip()


RewindMode = Literal["files", "conversation", "both"]


@dataclass(frozen=True)
class RewindResult:
    plan: RewindPlan | None
    outcome: RewindOutcome | None
    editor_text: str | None = None
    """The user message rewound to, for the editor (as a tree move to it gives)."""


async def rewind_store(
    store: SessionStore,
    checkpoints: CheckpointStore,
    project: str,
    entry_id: str,
    mode: RewindMode,
    *,
    plan: RewindPlan | None = None,
    chosen_conflicts: set[str] | None = None,
    force: bool = False,
) -> RewindResult:
    """Rewind to `entry_id` on the store alone (the CLI's path; the live session adds the agent's
    messages): the conversation moves as a tree move without a summary does, the files as `plan` (made
    now when not given) says, and a `pi-tui.rewind` entry records it at the new leaf, which also keeps
    that leaf when the file is opened again."""
    if store.get_entry(entry_id) is None:
        raise KeyError(entry_id)
    point = point_for(store, entry_id)
    if mode != "conversation" and plan is None:
        plan = plan_rewind(store, checkpoints, project, point)
    editor_text = None
    if mode != "files":
        navigation = await navigate_tree(store, entry_id)
        editor_text = navigation.editor_text
    if plan is None:
        plan = RewindPlan(point, [])
    outcome = apply_rewind(store, checkpoints, project, plan, chosen_conflicts=chosen_conflicts, force=force)
    return RewindResult(plan if mode != "conversation" else None, outcome, editor_text)
