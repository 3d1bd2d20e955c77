"""Opening the store of a session: the one way in for the command line, the TUI and session switches.

`open_store` is what `--session`, `--fork`, `-c`, `--no-session` and a plain start ask for, the same
for the interactive TUI and the headless print mode. `open_session_file` continues an existing file (also
`/resume`); `new_store` starts an empty session (also `/new`).

A session continues in its own working directory (the header's). When that directory is gone the
session is refused with `SessionCwdMissingError`, which offers the current directory, unless the caller
asked to continue there (`--here`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from pi_tui.config.paths import pi_sessions_root, session_dir_for_cwd, sessions_root
from pi_tui.session_file.session_arg import SessionArgError, resolve_session_arg
from pi_tui.session_file.store import SessionError, SessionStore


class SessionOpenError(Exception):
    """The requested session cannot be opened; the message says why and what to do."""


class SessionCwdMissingError(SessionOpenError):
    """The session's working directory is gone; `offered_cwd` is where it could continue instead."""

    def __init__(self, session_path: Path, session_cwd: str, offered_cwd: str) -> None:
        super().__init__(
            f"the session's working directory no longer exists: {session_cwd}\n"
            f"to continue it in the current directory ({offered_cwd}), pass --here"
        )
        self.session_path = session_path
        self.session_cwd = session_cwd
        self.offered_cwd = offered_cwd


@dataclass(frozen=True)
class SessionChoice:
    """Which session a command line asks for."""

    session: str | None = None
    fork: str | None = None
    """A session to copy into a new one of the current directory (pi's `--fork`)."""
    continue_recent: bool = False
    no_session: bool = False
    session_dir: str | None = None


def new_store(cwd: str, folder: Path | None) -> SessionStore:
    """An empty session for `cwd`, filed in `folder` (None: kept in memory, never written)."""
    return SessionStore.in_memory(cwd) if folder is None else SessionStore.create(cwd, folder)


def open_session_file(path: Path, cwd: str, *, here: bool = False) -> SessionStore:
    """Continue the session file `path` in its own working directory; when that is gone, in `cwd` with
    `here`, else `SessionCwdMissingError`. A missing file is a new session that will be written there;
    a link to nothing is refused (pi-tui creates session files without following links)."""
    if path.is_symlink() and not path.exists():
        raise SessionOpenError(dangling_link_text(path))
    store = SessionStore.open(path)
    if Path(store.cwd).is_dir():
        return store
    if not here:
        raise SessionCwdMissingError(path, store.cwd, cwd)
    return SessionStore.open(path, cwd=cwd)


def dangling_link_text(path: Path) -> str:
    try:
        target = os.readlink(path)
    except OSError:
        target = "?"
    return (
        f"{path} is a symbolic link to {target}, which does not exist: pi-tui does not create a session "
        "file through a link; give the target's path instead, or remove the link"
    )


def fork_session_file(source: Path, cwd: str, folder: Path) -> SessionStore:
    """A new session of `cwd`, filed in `folder`, holding every entry of `source` (its whole tree) as
    written, with `source` as its parent session; written at once. `source` is left as it was."""
    if not source.is_file():
        raise SessionOpenError(f"no session file to fork at {source}")
    try:
        return SessionStore.fork_from(source, cwd, folder)
    except (SessionError, OSError) as error:
        raise SessionOpenError(str(error)) from None


def _session_file(arg: str, cwd: str, root: Path) -> Path:
    target = resolve_session_arg(arg, cwd, root=root, pi_root=pi_sessions_root())
    if isinstance(target, SessionArgError):
        raise SessionOpenError(target.message)
    return target


def open_store(choice: SessionChoice, cwd: str, *, cwd_override: bool = False) -> SessionStore:
    """The store `choice` asks for, standing in `cwd`; raises `SessionOpenError` with a clear message.
    `cwd_override` (`--here`): a session whose working directory is gone continues in `cwd`."""
    if choice.no_session:
        return new_store(cwd, None)
    root = sessions_root(choice.session_dir)
    folder = session_dir_for_cwd(cwd, root)
    if choice.session:
        return open_session_file(_session_file(choice.session, cwd, root), cwd, here=cwd_override)
    if choice.fork:
        return fork_session_file(_session_file(choice.fork, cwd, root), cwd, folder)
    if choice.continue_recent:
        return SessionStore.continue_recent(cwd, folder)
    return new_store(cwd, folder)
