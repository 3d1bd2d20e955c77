"""Spill files: the complete raw output of a command, kept where only the owner can read it (SPEC R5.5).

The caller names the folder (a session's `<session dir>/spill/`); without one, a private temp folder
is made once per process. Folders are 0700 and files 0600, whatever the umask.
"""

from __future__ import annotations

import atexit
import os
import secrets
import shutil
import tempfile
from pathlib import Path
from typing import BinaryIO

from pi_tui.config.paths import ensure_private_dir

SPILL_FILE_MODE = 0o600
# Small chunks are gathered into this buffer; chunks at least this big are written straight through.
_WRITE_BUFFER = 1 << 16

_default_dir: Path | None = None


def default_spill_dir() -> Path:
    """A private temp folder for this process, removed at exit."""
    global _default_dir
    if _default_dir is None or not _default_dir.is_dir():
        _default_dir = Path(tempfile.mkdtemp(prefix="pi-tui-spill-"))
        atexit.register(shutil.rmtree, _default_dir, True)
    return _default_dir


def ensure_spill_dir(folder: Path) -> Path:
    """`folder` and the parents it needs (the session's `spill/`), owner-only."""
    return ensure_private_dir(folder)


class SpillFile:
    """An append-only raw byte file named `<prefix>-<16 hex>.log` (pi's naming)."""

    def __init__(self, folder: Path | None, prefix: str = "pi-bash") -> None:
        directory = ensure_spill_dir(folder) if folder is not None else default_spill_dir()
        while True:
            path = directory / f"{prefix}-{secrets.token_hex(8)}.log"
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, SPILL_FILE_MODE)
            except FileExistsError:
                continue
            break
        os.fchmod(fd, SPILL_FILE_MODE)
        self.path = path
        self._file: BinaryIO | None = os.fdopen(fd, "wb", buffering=_WRITE_BUFFER)

    def write(self, data: bytes) -> None:
        """Append bytes. Page-cache writes are cheaper than a thread hop per chunk, so this is sync."""
        if self._file is not None:
            self._file.write(data)

    def close(self) -> None:
        if self._file is not None:
            file, self._file = self._file, None
            file.close()
