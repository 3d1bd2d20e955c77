"""Where pi-tui (and pi) keep their files. Every path is derived here, nowhere else."""

from __future__ import annotations

import os
import stat
from importlib import resources
from pathlib import Path

HOME_ENV = "PI_TUI_HOME"
PI_AGENT_DIR_ENV = "PI_CODING_AGENT_DIR"
SESSION_DIR_MODE = 0o700
SESSION_FILE_MODE = 0o600
SHIPPED_DATA_DIR = "_data"
"""In an installed wheel, the package folder holding the repository's top-level `themes/`, `skills/` and
`README.md` (hatch `force-include` in pyproject.toml)."""


def shipped_path(name: str) -> Path | None:
    """A file or folder pi-tui ships from the top of its repository (`themes`, `skills`, `README.md`), or
    None when it is not there. Inside the installed package when it was installed from a wheel; else the
    package runs from a source checkout (or an editable install of one) and it is beside the package."""
    package = resources.files("pi_tui")
    if not isinstance(package, Path):  # a zipped package: the model could not read the files anyway
        return None
    data = package.resolve() / SHIPPED_DATA_DIR
    candidate = (data if data.is_dir() else data.parent.parent) / name
    return candidate if candidate.exists() else None


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
    """Create `path` and the parents it needs, each 0700 whatever the umask (a sessions root lists every
    project's path). Folders that already exist keep their mode: pi-tui did not make them, so they are not
    its to change (`--session ./x.jsonl` must not close the project folder to its group)."""
    missing = []
    folder = path
    while not os.path.lexists(folder) and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    for created in reversed(missing):
        make_private_dir(created)
    return path


def make_private_dir(path: Path, *, dir_fd: int | None = None) -> None:
    """Make one folder 0700 whatever the umask; whatever already has that name is left as it is.

    The mode is set through a descriptor opened without following links, so a link swapped in after
    the `mkdir` is never chmodded."""
    try:
        os.mkdir(path, SESSION_DIR_MODE, dir_fd=dir_fd)
    except FileExistsError:
        return
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
    try:
        os.fchmod(fd, SESSION_DIR_MODE)
    finally:
        os.close(fd)


def shared_write_mode(folder: Path) -> int | None:
    """The mode of an existing `folder` its group or everyone may create, replace or delete files in;
    None for any other folder (or none at all)."""
    try:
        mode = stat.S_IMODE(folder.stat().st_mode)
    except OSError:
        return None
    return mode if mode & (stat.S_IWGRP | stat.S_IWOTH) else None
