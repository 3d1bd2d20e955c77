"""Where pi-tui (and pi) keep their files. Every path is derived here, nowhere else."""

from __future__ import annotations

import os
from pathlib import Path

HOME_ENV = "PI_TUI_HOME"
PI_AGENT_DIR_ENV = "PI_CODING_AGENT_DIR"
SESSION_DIR_MODE = 0o700
SESSION_FILE_MODE = 0o600


def pi_tui_home() -> Path:
    """`~/.pi-tui`, or `$PI_TUI_HOME` when set (tests and portable installs)."""
    override = os.environ.get(HOME_ENV)
    return Path(override).expanduser() if override else Path.home() / ".pi-tui"


def pi_agent_dir() -> Path:
    """pi's own agent folder (`~/.pi/agent`, or `$PI_CODING_AGENT_DIR`), read for interop."""
    override = os.environ.get(PI_AGENT_DIR_ENV)
    return Path(override).expanduser() if override else Path.home() / ".pi" / "agent"


def sessions_root(override: str | os.PathLike[str] | None = None) -> Path:
    """The folder holding one sub-folder per working directory."""
    return Path(override).expanduser() if override else pi_tui_home() / "sessions"


def pi_sessions_root() -> Path:
    return pi_agent_dir() / "sessions"


def cwd_folder_name(cwd: str) -> str:
    """pi's per-cwd folder name: `/home/u/proj` becomes `--home-u-proj--`."""
    trimmed = cwd[1:] if cwd[:1] in ("/", "\\") else cwd
    for separator in ("/", "\\", ":"):
        trimmed = trimmed.replace(separator, "-")
    return f"--{trimmed}--"


def session_dir_for_cwd(cwd: str, root: Path | None = None) -> Path:
    return (root or sessions_root()) / cwd_folder_name(cwd)


def settings_path() -> Path:
    return pi_tui_home() / "settings.json"


def models_path() -> Path:
    return pi_tui_home() / "models.json"


def project_config_dir(cwd: str | os.PathLike[str]) -> Path:
    return Path(cwd) / ".pi-tui"


def ensure_private_dir(path: Path) -> Path:
    """Create `path` and make it readable by its owner only (0700, whatever the umask). Parents it has to
    create are 0700 too (a sessions root lists every project's path); parents that exist keep their mode."""
    missing = []
    folder = path
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    path.mkdir(parents=True, exist_ok=True, mode=SESSION_DIR_MODE)
    for created in (path, *missing):
        os.chmod(created, SESSION_DIR_MODE)
    return path
