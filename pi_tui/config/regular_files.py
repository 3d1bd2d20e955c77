"""Opening only regular files, never blocking on anything else.

A named pipe blocks `open()` until a writer comes (forever, when none does) and a device such as
`/dev/zero` never ends, so every file pi-tui reads, writes or searches for a user or a model goes through
here: the kind is checked before opening, the open itself is non-blocking (a FIFO swapped in after the
check cannot hang it), the descriptor is checked again and only then made blocking. Whatever is not a
regular file is refused with its kind named (`NotRegularFile`). `read_bounded` adds a size cap, so a file
that grows without end is refused too. docs/reliability.md, "Named pipes, devices and other files".
"""

from __future__ import annotations

import errno
import os
import stat

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISLNK, "a symbolic link"),
)


def file_kind(mode: int) -> str:
    """The kind of file `mode` describes, in words ("a named pipe (FIFO)", "a regular file")."""
    if stat.S_ISREG(mode):
        return "a regular file"
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a regular file"


class NotRegularFile(OSError):
    """`path` exists but is not a regular file (its `kind` says what it is), or is bigger than allowed."""

    def __init__(self, path: str | os.PathLike[str], kind: str, reason: str | None = None) -> None:
        self.path = os.fspath(path)
        self.kind = kind
        self.reason = reason or f"it is {kind}; only regular files are used"
        super().__init__(errno.EINVAL, self.reason, self.path)

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


class FileTooLarge(NotRegularFile):
    """A regular file bigger than the reader's cap (a file that grows while it is read counts too)."""

    def __init__(self, path: str | os.PathLike[str], limit: int) -> None:
        super().__init__(path, "a regular file", f"it is larger than {limit} bytes")
        self.limit = limit


def check_regular(path: str | os.PathLike[str]) -> os.stat_result | None:
    """The file's status when it is a regular file (links followed); None when nothing is there;
    `NotRegularFile` naming its kind otherwise. Other `OSError`s (EACCES, ENOTDIR...) propagate."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(info.st_mode):
        raise NotRegularFile(path, file_kind(info.st_mode))
    return info


def open_regular(path: str | os.PathLike[str], flags: int = os.O_RDONLY, mode: int = 0o666) -> int:
    """A blocking descriptor on the regular file `path`, opened with `flags` (O_TRUNC is applied only
    once the file is known to be regular); `NotRegularFile` for anything else, without ever blocking."""
    if flags & os.O_CREAT:
        check_regular(path)
    elif check_regular(path) is None:
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), os.fspath(path))
    truncate = bool(flags & os.O_TRUNC)
    try:
        fd = os.open(path, (flags & ~os.O_TRUNC) | os.O_NONBLOCK | os.O_CLOEXEC, mode)
    except OSError as error:
        if error.errno == errno.ENXIO:  # a FIFO swapped in, opened for writing with no reader
            raise NotRegularFile(path, file_kind(stat.S_IFIFO)) from error
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegularFile(path, file_kind(info.st_mode))
        os.set_blocking(fd, True)
        if truncate:
            os.ftruncate(fd, 0)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_bounded(path: str | os.PathLike[str], limit: int) -> bytes:
    """The whole regular file `path`, refused (`FileTooLarge`) when it holds more than `limit` bytes."""
    fd = open_regular(path)
    try:
        chunks: list[bytes] = []
        total = 0
        while True:
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise FileTooLarge(path, limit)
    finally:
        os.close(fd)
