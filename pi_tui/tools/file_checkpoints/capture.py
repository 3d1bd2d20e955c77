"""Capturing what a tool changes: a file's state before and after `write` / `edit`, and for `bash` the
files under the project whose modification time or size changed over the command.

`checkpointed(tool, capture)` wraps a tool so its result's `details` gain `piTuiCheckpoint`, a
`ChangeRecord` (pi ignores detail keys it does not know, so the file stays a valid pi file). Paths are
kept relative to the project (the session's cwd); nothing outside it is kept, and no link is followed
out of it. Every capture runs in a thread and streams contents into the store.
"""

from __future__ import annotations

import asyncio
import os
import stat
from dataclasses import dataclass, field
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from pi_tui.agent.tool import AgentTool, ToolResult, UpdateCallback
from pi_tui.ai.abort import AbortSignal
from pi_tui.config.project_files.file_walk import walk
from pi_tui.tools.file_checkpoints import CHECKPOINT_DETAILS_KEY
from pi_tui.tools.file_checkpoints.store import CheckpointStore, FileState, NotRegularFileError
from pi_tui.tools.path_resolution import resolve_to_cwd

MAX_SCANNED_FILES = 10_000
MAX_SCANNED_BYTES = 50 * 1024 * 1024
"""Above either, a bash command's changes are not kept (the record says so)."""


class FileChange(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, frozen=True)

    path: str
    """Posix, relative to the project."""
    before: FileState
    after: FileState


class ChangeRecord(BaseModel):
    """One checkpoint: the files a tool call (or a rewind) changed, and what could not be kept."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, frozen=True)

    files: list[FileChange] = Field(default_factory=list)
    unrecorded: list[str] = Field(default_factory=list)
    """Paths changed but not kept (outside the project, unreadable, not a regular file)."""
    note: str | None = None
    """Why a bash command's changes were not looked for ("bash may have changed files")."""

    def to_json_obj(self) -> dict[str, Any]:
        return self.model_dump(by_alias=True, exclude_none=True, exclude_defaults=True, mode="json")


def record_in_details(details: Any) -> ChangeRecord | None:
    """The checkpoint a tool result's details hold, if any (a malformed one counts as none)."""
    if not isinstance(details, dict) or not isinstance(details.get(CHECKPOINT_DETAILS_KEY), dict):
        return None
    try:
        return ChangeRecord.model_validate(details[CHECKPOINT_DETAILS_KEY])
    except ValueError:
        return None


def project_relative(project: str, path: str) -> str | None:
    """`path` (links in its folders resolved) relative to the project, or None when outside it."""
    real_project = os.path.realpath(project)
    folder, name = os.path.split(os.path.abspath(path))
    real = os.path.join(os.path.realpath(folder), name)
    if real == real_project or not real.startswith(real_project.rstrip(os.sep) + os.sep):
        return None
    return os.path.relpath(real, real_project).replace(os.sep, "/")


def capture_state(store: CheckpointStore, project: str, relative: str) -> FileState:
    """The path's state now, its content copied into the store; raises OSError when it cannot be read."""
    absolute = os.path.join(project, relative)
    try:
        info = os.lstat(absolute)
    except FileNotFoundError:
        return FileState.absent()
    if stat.S_ISLNK(info.st_mode):
        return FileState(kind="symlink", target=os.readlink(absolute))
    if not stat.S_ISREG(info.st_mode):
        raise NotRegularFileError(0, "not a regular file", absolute)
    sha256, size = store.put_file(absolute)
    return FileState(kind="file", sha256=sha256, size=size, mode=stat.S_IMODE(info.st_mode))


@dataclass
class _Seen:
    mtime_ns: int
    size: int
    state: FileState | None = None


@dataclass
class ProjectScan:
    """Modification time and size of every file the project walk lists; `skipped` says why not."""

    files: dict[str, _Seen] = field(default_factory=dict)
    skipped: str | None = None


class FileCapture:
    """The checkpoint work for one session: a store, a project, and the last scan bash saw."""

    def __init__(self, store: CheckpointStore, project: str, *, cap_bytes: int) -> None:
        self.store = store
        self.project = project
        self.cap_bytes = cap_bytes
        self._baseline: ProjectScan | None = None
        self._locks: dict[str, asyncio.Lock] = {}

    def lock_for(self, relative: str) -> asyncio.Lock:
        """Held around a write or edit and its two captures, so parallel calls on one file see each
        other's results in order (the tools' own lock is taken inside, for the write alone)."""
        return self._locks.setdefault(relative, asyncio.Lock())

    def record_one(self, relative: str, before: FileState) -> ChangeRecord:
        after = capture_state(self.store, self.project, relative)
        self.store.enforce_cap(self.cap_bytes)
        if after.same_content(before):
            return ChangeRecord()
        return ChangeRecord(files=[FileChange(path=relative, before=before, after=after)])

    # --- bash -----------------------------------------------------------------------------------

    def scan(self) -> ProjectScan:
        scan = ProjectScan()
        total = 0
        for entry in walk(self.project):
            if entry.is_dir:
                continue
            try:
                info = os.lstat(entry.path)
            except OSError:
                continue
            total += info.st_size
            scan.files[entry.relative] = _Seen(info.st_mtime_ns, info.st_size)
            if len(scan.files) > MAX_SCANNED_FILES:
                return ProjectScan(skipped=f"the project has more than {MAX_SCANNED_FILES:,} files")
            if total > MAX_SCANNED_BYTES:
                return ProjectScan(
                    skipped=f"the project holds more than {MAX_SCANNED_BYTES // 1024 // 1024} MB"
                )
        return scan

    def before_command(self) -> ProjectScan:
        """Scan and keep every file's content not already kept at the same time and size."""
        scan = self.scan()
        previous = self._baseline.files if self._baseline is not None else {}
        for relative, seen in scan.files.items():
            known = previous.get(relative)
            if (
                known is not None
                and known.state is not None
                and (known.mtime_ns, known.size)
                == (
                    seen.mtime_ns,
                    seen.size,
                )
            ):
                seen.state = known.state
                continue
            try:
                seen.state = capture_state(self.store, self.project, relative)
            except OSError:
                seen.state = None
        self._baseline = scan
        return scan

    def after_command(self, before: ProjectScan) -> ChangeRecord:
        if before.skipped is not None:
            return ChangeRecord(note=f"bash may have changed files: not looked for, {before.skipped}")
        after = self.scan()
        if after.skipped is not None:
            self._baseline = None
            return ChangeRecord(note=f"bash may have changed files: not looked for, {after.skipped}")
        changes: list[FileChange] = []
        unrecorded: list[str] = []
        for relative in sorted(set(before.files) | set(after.files)):
            old, new = before.files.get(relative), after.files.get(relative)
            if old is not None and new is not None and (old.mtime_ns, old.size) == (new.mtime_ns, new.size):
                new.state = old.state
                continue
            old_state = FileState.absent() if old is None else old.state
            try:
                new_state = capture_state(self.store, self.project, relative)
            except OSError:
                new_state = None
            if new is not None:
                new.state = new_state
            if old_state is None or new_state is None:
                unrecorded.append(relative)
            elif not old_state.same_content(new_state):
                changes.append(FileChange(path=relative, before=old_state, after=new_state))
        self._baseline = after
        self.store.enforce_cap(self.cap_bytes)
        return ChangeRecord(files=changes, unrecorded=unrecorded)


def _with_record(result: ToolResult, record: ChangeRecord) -> ToolResult:
    if not record.files and not record.unrecorded and record.note is None:
        return result
    details = dict(result.details) if isinstance(result.details, dict) else {}
    details[CHECKPOINT_DETAILS_KEY] = record.to_json_obj()
    result.details = details
    return result


class _Checkpointed(AgentTool[Any]):
    """A tool whose file changes are checkpointed; everything else is the wrapped tool's."""

    inner_class: ClassVar[type[AgentTool[Any]]]

    def __init__(self, inner: AgentTool[Any], capture: FileCapture) -> None:
        self.inner = inner
        self.capture = capture

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def prepare_arguments(self, raw: dict[str, Any]) -> dict[str, Any]:
        return self.inner.prepare_arguments(raw)

    async def execute(
        self,
        tool_call_id: str,
        params: Any,
        signal: AbortSignal,
        on_update: UpdateCallback | None = None,
    ) -> ToolResult:
        if self.name == "bash":
            return await self._run_command(tool_call_id, params, signal, on_update)
        return await self._change_file(tool_call_id, params, signal, on_update)

    async def _change_file(
        self, tool_call_id: str, params: Any, signal: AbortSignal, on_update: UpdateCallback | None
    ) -> ToolResult:
        cwd = self.capture.project
        absolute = resolve_to_cwd(params.path, cwd)
        target = await asyncio.to_thread(_write_target, absolute)
        relative = project_relative(cwd, target)
        if relative is None:
            return await self.inner.execute(tool_call_id, params, signal, on_update)
        async with self.capture.lock_for(relative):
            try:
                before: FileState | None = await asyncio.to_thread(
                    capture_state, self.capture.store, cwd, relative
                )
            except OSError:
                before = None
            result = await self.inner.execute(tool_call_id, params, signal, on_update)
            if before is None:
                return _with_record(result, ChangeRecord(unrecorded=[relative]))
            try:
                record = await asyncio.to_thread(self.capture.record_one, relative, before)
            except OSError:
                record = ChangeRecord(unrecorded=[relative])
        return _with_record(result, record)

    async def _run_command(
        self, tool_call_id: str, params: Any, signal: AbortSignal, on_update: UpdateCallback | None
    ) -> ToolResult:
        scan = await asyncio.to_thread(self.capture.before_command)
        result = await self.inner.execute(tool_call_id, params, signal, on_update)
        record = await asyncio.to_thread(self.capture.after_command, scan)
        return _with_record(result, record)


def _write_target(path: str) -> str:
    """Where a write to `path` lands: through a final symlink to its target, as open() goes."""
    if os.path.islink(path):
        return os.path.realpath(path)
    return path


CHECKPOINTED_TOOLS = ("write", "edit", "bash")


def checkpointed(tool: AgentTool[Any], capture: FileCapture) -> AgentTool[Any]:
    """`tool` with its file changes checkpointed (write, edit and bash; other tools as they are)."""
    if tool.name not in CHECKPOINTED_TOOLS:
        return tool
    kind = type(tool)
    # A subclass of the tool's own class too, so `isinstance(tool, BashTool)` still holds; its
    # instance attributes (limits, cwd) are read from the wrapped tool.
    wrapper_class = type(
        f"Checkpointed{kind.__name__}",
        (_Checkpointed, kind),
        {
            "name": kind.name,
            "label": kind.label,
            "description": kind.description,
            "parameters": kind.parameters,
            "prompt_snippet": kind.prompt_snippet,
            "prompt_guidelines": kind.prompt_guidelines,
            "execution_mode": kind.execution_mode,
            "inner_class": kind,
        },
    )
    wrapped: AgentTool[Any] = wrapper_class(tool, capture)
    return wrapped
