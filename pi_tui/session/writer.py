"""Durable appends to a session file (R6.2, R14.1).

Durability policy: every append opens the file with O_APPEND, issues ONE `os.write` of complete
`\\n`-terminated lines, then `fdatasync`s (plain `fsync` where unavailable) before returning, so a line
the caller was told about is on disk and a crash can tear at most the line being written. Writes go to
a raw fd: there is no user-space buffer to flush. A new file is created with mode 0600 (never chmod'ed
afterwards); a folder it needs is made 0700, a folder that exists keeps its mode. The folder is fsynced
so the new name survives a crash too.

Torn tails: if the file's last byte is not `\\n` (an earlier writer died mid-line), the append starts
with `\\n`. The fragment thereby becomes a complete, invalid line that every loader skips with a warning,
and the new entry stands on its own line. The check reads the real last byte at each append, so it also
covers a file another program touched since we loaded it.
"""

from __future__ import annotations

import os
from pathlib import Path

from pi_tui.config.paths import SESSION_FILE_MODE, ensure_private_dir
from pi_tui.session.migrations import fsync_dir

_sync = getattr(os, "fdatasync", os.fsync)


def _write_all(fd: int, data: bytes) -> None:
    written = os.write(fd, data)
    # Regular files only return short on ENOSPC-like conditions; finish the line rather than leave it torn.
    while written < len(data):
        written += os.write(fd, data[written:])


def encode_lines(lines: list[str]) -> bytes:
    return "".join(f"{line}\n" for line in lines).encode("utf-8")


def create_session_file(path: Path, lines: list[str]) -> None:
    """Create `path` (which must not exist) holding `lines`, durably, in one write."""
    ensure_private_dir(path.parent)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | os.O_CLOEXEC, SESSION_FILE_MODE)
    try:
        _write_all(fd, encode_lines(lines))
        _sync(fd)
    finally:
        os.close(fd)
    fsync_dir(path.parent)


def append_lines(path: Path, lines: list[str]) -> None:
    """Append complete lines to an existing file with one write, ending a torn last line first."""
    if not lines:
        return
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CLOEXEC)
    try:
        size = os.fstat(fd).st_size
        prefix = b"\n" if size > 0 and os.pread(fd, 1, size - 1) != b"\n" else b""
        _write_all(fd, prefix + encode_lines(lines))
        _sync(fd)
    finally:
        os.close(fd)
