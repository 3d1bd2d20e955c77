"""One headless run at a time per session file (docs/reliability.md, section 14).

Two `pi-tui -p -c` runs on one session at once used to fork it silently: each added its turn as a child
of the entry it had loaded, and the next `-c` followed one branch. A headless run now holds an exclusive
`flock` on a lock file beside the session (`<file>.lock`, 0600, holding the holder's pid) from the
moment it opens the session until it ends; a second run finds it held and stops before sending anything,
naming the holder. The kernel drops the lock when the holder dies however it dies, so a stale file never
blocks anyone. The lock file is removed by the holder as it lets go.

Other writers (pi, the app, `pi-tui tree --label`) do not take this lock; the append check of
`writer.append_lines` catches their writes (`outside_writes`).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
from pathlib import Path

from pi_tui.config.paths import SESSION_FILE_MODE

LOCK_SUFFIX = ".lock"


class SessionBusyError(Exception):
    """Another run holds the session's lock."""

    def __init__(self, session: Path, holder: str | None) -> None:
        who = f"another pi-tui run (pid {holder})" if holder else "another pi-tui run"
        super().__init__(
            f"session {session} is being written by {who}: nothing was sent; wait for that run to end, "
            f"or continue a copy of the session with --fork {session}"
        )


def lock_path(session: Path) -> Path:
    return session.with_name(session.name + LOCK_SUFFIX)


class RunLock:
    """Held from `acquire` to `release` (or the process's end)."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd: int | None = fd

    @classmethod
    def acquire(cls, session: Path) -> RunLock:
        """The lock of `session`; `SessionBusyError` when another run holds it. OSError when the lock
        file cannot be made (a read-only folder): the caller decides whether to run without it."""
        path = lock_path(session)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, SESSION_FILE_MODE)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as error:
            holder = _holder(fd)
            os.close(fd)
            if error.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise SessionBusyError(session, holder) from error
            raise
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        return cls(path, fd)

    def release(self) -> None:
        if self._fd is None:
            return
        with contextlib.suppress(OSError):
            self.path.unlink()  # still holding it: a run starting now makes a new file and takes that
        os.close(self._fd)
        self._fd = None


def _holder(fd: int) -> str | None:
    with contextlib.suppress(OSError, ValueError):
        text = os.pread(fd, 32, 0).decode("ascii").strip()
        return text if text.isdigit() else None
    return None
