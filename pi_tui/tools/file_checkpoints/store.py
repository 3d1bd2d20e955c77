"""The checkpoint store: file contents kept by their SHA-256, shared by every session of one folder.

Layout, beside the session files (like the spill folder; folders 0700, files 0600):
`checkpoints/objects/<2 hex>/<62 hex>` holds contents, `checkpoints/refs/<session id>` lists the objects
a session refers to, oldest first, one `<sha256> <size>` per line. A fork or clone copies its source's
refs, so both share the objects by content; an object goes when no refs file names it any more. Contents
are streamed in and out in chunks, never read whole, and every read is checked against its hash: a
tampered object restores nothing.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import stat
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Literal

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

from pi_tui.config.paths import ensure_private_dir, make_private_dir

CHECKPOINTS_FOLDER_NAME = "checkpoints"
OBJECT_FILE_MODE = 0o600
CHUNK_BYTES = 1 << 20
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


class NotRegularFileError(OSError):
    """The path is a folder, device, FIFO or socket: reading it could block or mean nothing."""

    def __str__(self) -> str:
        return f"{self.filename} is not a regular file"


def open_regular_file(path: str | Path, *, dir_fd: int | None = None) -> BinaryIO:
    """Open `path` for reading only when it is a regular file, never through a final symlink and without
    blocking on a FIFO; anything else raises `NotRegularFileError`."""
    fd = os.open(path, _READ_FLAGS, dir_fd=dir_fd)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegularFileError(errno.EINVAL, "not a regular file", str(path))
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


class FileState(BaseModel):
    """One path's state: absent, a regular file (its object and mode) or a symlink (its target)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, frozen=True)

    kind: Literal["absent", "file", "symlink"]
    sha256: str | None = None
    size: int | None = None
    mode: int | None = None
    target: str | None = None

    @classmethod
    def absent(cls) -> FileState:
        return cls(kind="absent")

    def same_content(self, other: FileState) -> bool:
        """Equal for a rewind: kind, content, link target (the mode is restored, not compared)."""
        return (self.kind, self.sha256, self.target) == (other.kind, other.sha256, other.target)

    def describe(self) -> str:
        if self.kind == "absent":
            return "absent"
        if self.kind == "symlink":
            return f"symlink to {self.target}"
        return f"{self.size} bytes"


@dataclass(frozen=True)
class ObjectProblem:
    """Why an object cannot be restored: missing, unreadable or not matching its hash."""

    sha256: str
    reason: str


def _valid_hash(value: str) -> bool:
    return len(value) == 64 and all(char in "0123456789abcdef" for char in value)


class CheckpointStore:
    """The objects and refs under one `checkpoints` folder, for one session id."""

    def __init__(self, root: Path, session_id: str) -> None:
        self.root = root
        self.session_id = session_id

    @classmethod
    def beside(cls, session_file: Path, session_id: str) -> CheckpointStore:
        return cls(session_file.parent / CHECKPOINTS_FOLDER_NAME, session_id)

    @property
    def objects(self) -> Path:
        return self.root / "objects"

    @property
    def refs_file(self) -> Path:
        return self.root / "refs" / self.session_id

    def object_path(self, sha256: str) -> Path:
        return self.objects / sha256[:2] / sha256[2:]

    # --- writing --------------------------------------------------------------------------------

    def _prepare(self, sha256: str) -> Path:
        ensure_private_dir(self.root.parent)
        for folder in (self.root, self.objects, self.objects / sha256[:2], self.root / "refs"):
            make_private_dir(folder)
        return self.object_path(sha256)

    def put_stream(self, source: BinaryIO) -> tuple[str, int]:
        """Copy `source` in chunks into the store; (sha256, size). An object already there is kept."""
        ensure_private_dir(self.objects)
        digest = hashlib.sha256()
        size = 0
        fd, temporary = tempfile.mkstemp(dir=self.objects, prefix=".incoming-")
        try:
            os.fchmod(fd, OBJECT_FILE_MODE)
            with os.fdopen(fd, "wb") as out:
                while chunk := source.read(CHUNK_BYTES):
                    digest.update(chunk)
                    size += len(chunk)
                    out.write(chunk)
            sha256 = digest.hexdigest()
            final = self._prepare(sha256)
            if final.exists():
                os.unlink(temporary)
            else:
                os.replace(temporary, final)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
        self._add_ref(sha256, size)
        return sha256, size

    def put_file(self, path: str | Path) -> tuple[str, int]:
        with open_regular_file(path) as source:
            return self.put_stream(source)

    def _add_ref(self, sha256: str, size: int) -> None:
        if sha256 in self.referenced():
            return
        refs = self.refs_file
        fd = os.open(
            refs, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC, OBJECT_FILE_MODE
        )
        with os.fdopen(fd, "a", encoding="ascii") as out:
            out.write(f"{sha256} {size}\n")

    def referenced(self) -> dict[str, int]:
        """This session's objects, oldest first, with their sizes."""
        return _read_refs(self.refs_file)

    def share_with(self, other_session_id: str) -> None:
        """A fork or clone refers to the same objects (shared by content, nothing copied)."""
        mine = self.referenced()
        if not mine:
            return
        other = CheckpointStore(self.root, other_session_id)
        ensure_private_dir(self.root / "refs")
        for sha256, size in mine.items():
            other._add_ref(sha256, size)

    # --- reading --------------------------------------------------------------------------------

    def has(self, sha256: str) -> bool:
        return _valid_hash(sha256) and self.object_path(sha256).is_file()

    def check(self, sha256: str) -> ObjectProblem | None:
        """None when the object is there and matches its hash (read through once, in chunks)."""
        try:
            with self.open_verified(sha256) as chunks:
                for _ in chunks:
                    pass
        except CheckpointObjectError as error:
            return ObjectProblem(sha256, error.reason)
        return None

    @contextlib.contextmanager
    def open_verified(self, sha256: str) -> Iterator[Iterator[bytes]]:
        """The object's chunks; raises `CheckpointObjectError` at the end when they do not hash to
        `sha256`, so a caller writes to a temporary file and keeps it only when the whole read passed."""
        if not _valid_hash(sha256):
            raise CheckpointObjectError(sha256, "not a checkpoint hash")
        try:
            source = open_regular_file(self.object_path(sha256))
        except FileNotFoundError as error:
            raise CheckpointObjectError(sha256, "missing from the checkpoint folder") from error
        except OSError as error:
            raise CheckpointObjectError(sha256, f"unreadable ({error.strerror or error})") from error

        def chunks() -> Iterator[bytes]:
            digest = hashlib.sha256()
            try:
                while chunk := source.read(CHUNK_BYTES):
                    digest.update(chunk)
                    yield chunk
            except OSError as error:
                raise CheckpointObjectError(sha256, f"unreadable ({error.strerror or error})") from error
            if digest.hexdigest() != sha256:
                raise CheckpointObjectError(sha256, "tampered with (its content does not match its hash)")

        with source:
            yield chunks()

    # --- the cap and deletion -------------------------------------------------------------------

    def enforce_cap(self, cap_bytes: int) -> list[str]:
        """Drop this session's oldest objects until its total is within `cap_bytes`; the hashes dropped."""
        refs = self.referenced()
        total = sum(refs.values())
        dropped: list[str] = []
        for sha256, size in refs.items():
            if total <= cap_bytes:
                break
            dropped.append(sha256)
            total -= size
        if dropped:
            kept = {sha: size for sha, size in refs.items() if sha not in set(dropped)}
            _write_refs(self.refs_file, kept)
            self._collect(dropped)
        return dropped

    def delete_session(self) -> None:
        """Forget this session's refs; objects no other session names are removed."""
        refs = self.referenced()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.refs_file)
        self._collect(list(refs))

    def _collect(self, candidates: list[str]) -> None:
        still_named: set[str] = set()
        refs_folder = self.root / "refs"
        with contextlib.suppress(FileNotFoundError, NotADirectoryError):
            for other in refs_folder.iterdir():
                still_named.update(_read_refs(other))
        for sha256 in candidates:
            if sha256 not in still_named and _valid_hash(sha256):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(self.object_path(sha256))


class CheckpointObjectError(Exception):
    def __init__(self, sha256: str, reason: str) -> None:
        super().__init__(f"{sha256[:12]}: {reason}")
        self.sha256 = sha256
        self.reason = reason


def _read_refs(path: Path) -> dict[str, int]:
    refs: dict[str, int] = {}
    try:
        with open_regular_file(path) as source:
            for raw in source:
                parts = raw.decode("ascii", "replace").split()
                if len(parts) == 2 and _valid_hash(parts[0]) and parts[1].isdigit():
                    refs[parts[0]] = int(parts[1])
    except OSError:
        return {}
    return refs


def _write_refs(path: Path, refs: dict[str, int]) -> None:
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".refs-")
    os.fchmod(fd, OBJECT_FILE_MODE)
    with os.fdopen(fd, "w", encoding="ascii") as out:
        out.writelines(f"{sha256} {size}\n" for sha256, size in refs.items())
    os.replace(temporary, path)
