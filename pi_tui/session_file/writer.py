"""Durable appends to a session file (docs/reliability.md, section 2).

Durability policy: every append opens the file with O_APPEND, issues ONE `os.write` of complete
`\\n`-terminated lines, then `fdatasync`s (plain `fsync` where unavailable) before returning, so a line
the caller was told about is on disk and a crash can tear at most the line being written. Writes go to
a raw fd: there is no user-space buffer to flush. A new file is created with mode 0600 (never chmod'ed
afterwards); a folder it needs is made 0700, a folder that exists keeps its mode. The folder is fsynced
so the new name survives a crash too.

A write that fails (a full disk, a file size limit) leaves no part of its lines behind: the file is cut
back to its length before the write, and `SessionWriteError` says why. A file this call created is
removed again, so the next attempt creates it whole.

Torn tails: if the file's last byte is not `\\n` (an earlier writer died mid-line), the append starts
with `\\n`. The fragment thereby becomes a complete, invalid line that every loader skips with a warning,
and the new entry stands on its own line. The check reads the real last byte at each append, so it also
covers a file another program touched since we loaded it.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
from dataclasses import dataclass
from pathlib import Path

from pi_tui.config.paths import SESSION_FILE_MODE, ensure_private_dir
from pi_tui.session_file.migrations import fsync_dir

_sync = getattr(os, "fdatasync", os.fsync)
_BLANK_FILE_LIMIT = 1 << 16
"""A file this long is never taken for a blank one (no reading a huge file to find out)."""


class SessionWriteError(OSError):
    """Lines could not be written; the session file is as it was before the attempt."""

    def __str__(self) -> str:
        return f"cannot write session file {self.filename}: {self.strerror}; the file was left as it was"


@dataclass(frozen=True)
class FileState:
    """Which file a store last wrote or read, and how long it was then: another writer's append, a
    truncation or a replacement shows as a different state at the next append."""

    device: int
    inode: int
    size: int

    @classmethod
    def of(cls, info: os.stat_result) -> FileState:
        return cls(info.st_dev, info.st_ino, info.st_size)


def file_state(path: Path) -> FileState | None:
    """The state of `path` now, None when it cannot be read."""
    try:
        return FileState.of(os.stat(path))
    except OSError:
        return None


class SessionFileChanged(Exception):
    """The session file is not as this store left it: `found` is what is there now (None: it is gone).
    Nothing was written."""

    def __init__(self, path: Path, expected: FileState, found: FileState | None) -> None:
        super().__init__(f"{path} changed since it was last read or written")
        self.path = path
        self.expected = expected
        self.found = found

    @property
    def grew(self) -> bool:
        """The same file, longer: another writer appended to it."""
        found = self.found
        return (
            found is not None
            and (found.device, found.inode) == (self.expected.device, self.expected.inode)
            and found.size > self.expected.size
        )


def _failed(path: Path, error: OSError) -> SessionWriteError:
    return SessionWriteError(error.errno, error.strerror or str(error), str(path))


def _write_all(fd: int, data: bytes, start: int) -> None:
    """Write all of `data` at the end of a file `start` bytes long; on failure cut it back to `start`."""
    try:
        written = os.write(fd, data)
        # Regular files return short only when the disk fills or a size limit is reached: finish the line,
        # or fail below and cut it off.
        while written < len(data):
            written += os.write(fd, data[written:])
        _sync(fd)
    except OSError:
        with contextlib.suppress(OSError):
            os.ftruncate(fd, start)
        raise


def encode_lines(lines: list[str]) -> bytes:
    return "".join(f"{line}\n" for line in lines).encode("utf-8")


def create_session_file(path: Path, lines: list[str], *, into_blank: bool = False) -> FileState:
    """Create `path` (which must not exist) holding `lines`, durably, in one write.

    With `into_blank`, a file holding only whitespace (`--session` naming an empty file) is taken
    instead: the lines follow what it holds. Raises `SessionWriteError` with the file unchanged."""
    try:
        ensure_private_dir(path.parent)
        flags = os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC
        try:
            fd = os.open(path, flags | os.O_CREAT | os.O_EXCL, SESSION_FILE_MODE)
            created = True
        except FileExistsError:
            if not into_blank:
                raise
            fd, created = _open_blank(path), False
    except OSError as error:
        raise _failed(path, error) from error
    try:
        start = os.fstat(fd).st_size
        _write_all(fd, (b"\n" if start else b"") + encode_lines(lines), start)
        state = FileState.of(os.fstat(fd))
    except OSError as error:
        if created:
            with contextlib.suppress(OSError):
                os.unlink(path)
        raise _failed(path, error) from error
    finally:
        os.close(fd)
    fsync_dir(path.parent)
    return state


def _open_blank(path: Path) -> int:
    """`path` opened for appending, if it holds nothing but whitespace; FileExistsError otherwise."""
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CLOEXEC)
    size = os.fstat(fd).st_size
    if size > _BLANK_FILE_LIMIT or os.pread(fd, size, 0).strip():
        os.close(fd)
        raise FileExistsError(errno.EEXIST, "it is no longer empty", str(path))
    return fd


def append_lines(path: Path, lines: list[str], expected: FileState | None = None) -> FileState | None:
    """Append complete lines to an existing file with one write, ending a torn last line first; the
    file's state after it (None when nothing was written).

    With `expected`, the file must still be that file at that length: otherwise `SessionFileChanged`
    and nothing is written (another writer appended, the file was cut short or replaced). The check
    and the write happen under an exclusive `flock` of the file, so two pi-tui processes cannot both
    pass the check and then both append. Raises `SessionWriteError` with the file unchanged."""
    if not lines:
        return None
    try:
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CLOEXEC)
    except FileNotFoundError as error:
        if expected is not None:
            raise SessionFileChanged(path, expected, None) from error
        raise _failed(path, error) from error
    except OSError as error:
        raise _failed(path, error) from error
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        info = os.fstat(fd)
        if expected is not None and FileState.of(info) != expected:
            raise SessionFileChanged(path, expected, FileState.of(info))
        size = info.st_size
        prefix = b"\n" if size > 0 and os.pread(fd, 1, size - 1) != b"\n" else b""
        _write_all(fd, prefix + encode_lines(lines), size)
        return FileState.of(os.fstat(fd))
    except OSError as error:
        raise _failed(path, error) from error
    finally:
        os.close(fd)  # releases the lock


def read_appended(path: Path, start: int, limit: int) -> bytes:
    """The bytes another writer appended after `start` (at most `limit`; more is refused as ValueError)."""
    with open(path, "rb") as handle:
        handle.seek(start)
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise ValueError(f"more than {limit} bytes were added")
    return data
