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
import os
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


def create_session_file(path: Path, lines: list[str], *, into_blank: bool = False) -> None:
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
    except OSError as error:
        if created:
            with contextlib.suppress(OSError):
                os.unlink(path)
        raise _failed(path, error) from error
    finally:
        os.close(fd)
    fsync_dir(path.parent)


def _open_blank(path: Path) -> int:
    """`path` opened for appending, if it holds nothing but whitespace; FileExistsError otherwise."""
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CLOEXEC)
    size = os.fstat(fd).st_size
    if size > _BLANK_FILE_LIMIT or os.pread(fd, size, 0).strip():
        os.close(fd)
        raise FileExistsError(errno.EEXIST, "it is no longer empty", str(path))
    return fd


def append_lines(path: Path, lines: list[str]) -> None:
    """Append complete lines to an existing file with one write, ending a torn last line first.

    Raises `SessionWriteError` with the file unchanged."""
    if not lines:
        return
    try:
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CLOEXEC)
    except OSError as error:
        raise _failed(path, error) from error
    try:
        size = os.fstat(fd).st_size
        prefix = b"\n" if size > 0 and os.pread(fd, 1, size - 1) != b"\n" else b""
        _write_all(fd, prefix + encode_lines(lines), size)
    except OSError as error:
        raise _failed(path, error) from error
    finally:
        os.close(fd)
