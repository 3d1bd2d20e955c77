"""Spill files: the complete raw output of a command, kept where only the owner can read it.

The caller names the folder (a session's `<session folder>/spill/<session id>`); without one, a private
temp folder is made once per process. Folders pi-tui makes are 0700 and files 0600, whatever the umask.

The last two levels of a session's spill folder are pi-tui's own: they are made, or opened, without
following symbolic links, and the file is created under that open folder with `O_EXCL | O_NOFOLLOW`, so
output never goes through a link someone put in their place. The session folder above them may be a link
(the user's choice of where sessions live).
"""

from __future__ import annotations

import atexit
import errno
import os
import secrets
import shutil
import tempfile
from pathlib import Path
from typing import BinaryIO

from pi_tui.config.paths import ensure_private_dir, make_private_dir

SPILL_FILE_MODE = 0o600
OWNED_LEVELS = 2
"""`spill/<session id>` below the session folder (see `session_setup.spill_dir_for`)."""
# Small chunks are gathered into this buffer; chunks at least this big are written straight through.
_WRITE_BUFFER = 1 << 16
_FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC

_default_dir: Path | None = None


class UnsafeSpillFolderError(OSError):
    """A level of the spill folder pi-tui owns is a symbolic link or not a folder."""

    def __str__(self) -> str:
        return f"{self.filename} is a symbolic link or not a folder; pi-tui does not write through it"


def spill_failure_text(error: OSError) -> str:
    """The tool result's note when no spill file could be made."""
    reason = str(error) if isinstance(error, UnsafeSpillFolderError) else error.strerror or str(error)
    return f"Full output not kept: {reason}."


def default_spill_dir() -> Path:
    """A private temp folder for this process, removed at exit."""
    global _default_dir
    if _default_dir is None or not _default_dir.is_dir():
        _default_dir = Path(tempfile.mkdtemp(prefix="pi-tui-spill-"))
        atexit.register(shutil.rmtree, _default_dir, True)
    return _default_dir


def _open_owned(name: str, parent_fd: int, shown: Path) -> int:
    try:
        return os.open(name, _FOLDER_FLAGS, dir_fd=parent_fd)
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.ENOTDIR):
            raise UnsafeSpillFolderError(error.errno, os.strerror(error.errno), str(shown)) from error
        raise


def open_spill_dir(folder: Path) -> int:
    """A descriptor of `folder`, made (0700) where missing; its owned levels are never links."""
    owned: list[str] = []
    base = folder
    for _ in range(OWNED_LEVELS):
        owned.append(base.name)
        base = base.parent
    ensure_private_dir(base)
    fd = os.open(base, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for name in reversed(owned):
            base = base / name
            make_private_dir(Path(name), dir_fd=fd)
            child = _open_owned(name, fd, base)
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


class SpillFile:
    """An append-only raw byte file named `<prefix>-<16 hex>.log` (pi's naming).

    Raises OSError (`UnsafeSpillFolderError` for a link in pi-tui's levels) when no file can be made."""

    def __init__(self, folder: Path | None, prefix: str = "pi-bash") -> None:
        directory = folder if folder is not None else default_spill_dir()
        dir_fd = open_spill_dir(folder) if folder is not None else os.open(directory, _FOLDER_FLAGS)
        try:
            while True:
                name = f"{prefix}-{secrets.token_hex(8)}.log"
                try:
                    fd = os.open(name, _FILE_FLAGS, SPILL_FILE_MODE, dir_fd=dir_fd)
                except FileExistsError:
                    continue
                break
        finally:
            os.close(dir_fd)
        os.fchmod(fd, SPILL_FILE_MODE)
        self.path = directory / name
        self._file: BinaryIO | None = os.fdopen(fd, "wb", buffering=_WRITE_BUFFER)

    def write(self, data: bytes) -> None:
        """Append bytes. Page-cache writes are cheaper than a thread hop per chunk, so this is sync."""
        if self._file is not None:
            self._file.write(data)

    def close(self) -> None:
        if self._file is not None:
            file, self._file = self._file, None
            file.close()
