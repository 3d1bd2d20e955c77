"""What a working directory determines, and opening the session a command line asks for.

`AgentSessionServices` bundles the resources (settings, context files, skills, templates) of one cwd.
A session always gets the services of *its own* cwd (the header's), not of the directory pi-tui was
started in: resuming project B's session while standing in A must load B's AGENTS.md and settings.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from pi_tui.config.paths import pi_sessions_root, session_dir_for_cwd, sessions_root
from pi_tui.context.resources import Resources, load_resources
from pi_tui.session_file.session_arg import SessionArgError, resolve_session_arg
from pi_tui.session_file.store import SessionStore


class SessionOpenError(Exception):
    """The requested session cannot be opened; the message says why and what to do."""


@dataclass(frozen=True)
class SessionChoice:
    """Which session a command line asks for."""

    session: str | None = None
    continue_recent: bool = False
    no_session: bool = False
    session_dir: str | None = None


@dataclass(frozen=True)
class AgentSessionServices:
    cwd: Path
    resources: Resources

    @classmethod
    def for_cwd(cls, cwd: str | os.PathLike[str]) -> AgentSessionServices:
        path = Path(cwd)
        return cls(cwd=path, resources=load_resources(path))


def open_session_store(choice: SessionChoice, cwd: str) -> SessionStore:
    """A new, resumed or in-memory store as `choice` says; raises `SessionOpenError` with a clear message."""
    root = sessions_root(choice.session_dir)
    if choice.no_session:
        return SessionStore.in_memory(cwd)
    folder = session_dir_for_cwd(cwd, root)
    if choice.session:
        target = resolve_session_arg(choice.session, cwd, root=root, pi_root=pi_sessions_root())
        if isinstance(target, SessionArgError):
            raise SessionOpenError(target.message)
        store = SessionStore.open(target)
        if not Path(store.cwd).is_dir():
            raise SessionOpenError(
                f"the session's working directory no longer exists: {store.cwd}\n"
                f"start pi-tui from the project's new location and pass the session path again"
            )
        return store
    if choice.continue_recent:
        return SessionStore.continue_recent(cwd, folder)
    return SessionStore.create(cwd, folder)
