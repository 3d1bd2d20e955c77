"""Which projects the user trusts to choose how commands run (beyond pi).

A project's `.pi-tui/settings.json` comes with the repository: anyone who can push to it writes it. Most of
its keys only tune pi-tui, but a few decide what runs and whether the user is asked first
(`CODE_RUNNING_KEYS`). Those are taken from a project file only once the user has trusted that project, and
a trust holds for the file's exact content: it is remembered as the project's path and the SHA-256 of the
settings file's bytes in `trusted-projects.json` in pi-tui's own folder (0600), so an edit to the file, a
pull that changes it or a checkout of another branch asks again.

A project's `approval` needs no trust: it can only raise the user's mode, never lower it
(`settings_files.load_settings` takes the stricter of the two), and ignoring it would lower the
protection the project asked for.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pi_tui.config.paths import pi_tui_home
from pi_tui.config.regular_files import read_bounded

TRUSTED_PROJECTS_FILE_NAME = "trusted-projects.json"
TRUST_FILE_LIMIT = 4 << 20
"""A trust file past 4 MiB was not written by pi-tui (one project is about 150 bytes): it is not read."""

CODE_RUNNING_KEYS: tuple[str, ...] = ("approval", "shellPath", "shellCommandPrefix", "defaultTools")
"""Settings keys that decide what runs: `approval` (whether bash, write and edit ask first), `shellPath`
(the program every command runs in), `shellCommandPrefix` (text run before every command) and
`defaultTools` (pi 1.6: which tools a session starts with; a project must not give back `bash` or
`write` to a user who left them out). No other
key of the settings model starts a process or skips a question; a key added later that does belongs
here (`tests/config/test_project_trust.py` checks the list against the model)."""


def trusted_projects_path(home: Path | None = None) -> Path:
    return (home or pi_tui_home()) / TRUSTED_PROJECTS_FILE_NAME


def settings_digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def guarded_keys(document: dict[str, Any]) -> list[str]:
    """The code-running keys a project document sets that would change what the user's settings do:
    every such key except `approval`, which can only ask more (the stricter of the user's and the
    project's mode applies)."""
    return [key for key in CODE_RUNNING_KEYS if key in document and key != "approval"]


def project_key(project_dir: Path) -> str:
    """How a project is named in the trust file: its absolute path with links resolved (a link to a
    trusted project is the same project; a copy elsewhere is not)."""
    return str(project_dir.resolve())


def _read_trusted(path: Path) -> dict[str, Any]:
    """The trust file's `projects` object; empty when the file is missing, unreadable or not pi-tui's
    (then nothing is trusted, which asks again rather than running something unasked)."""
    try:
        data = read_bounded(path, TRUST_FILE_LIMIT)
    except OSError:  # missing, unreadable, not a regular file, too large
        return {}
    try:
        document = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return {}
    projects = document.get("projects") if isinstance(document, dict) else None
    return projects if isinstance(projects, dict) else {}


def is_trusted(project_dir: Path, digest: str, home: Path | None = None) -> bool:
    record = _read_trusted(trusted_projects_path(home)).get(project_key(project_dir))
    return isinstance(record, dict) and record.get("sha256") == digest


def remember_trust(project_dir: Path, digest: str, home: Path | None = None) -> None:
    """Record that the user trusts this project's settings file with these exact bytes (replacing an
    earlier trust of other bytes). Raises OSError when the trust file cannot be written."""
    from pi_tui.config.settings_files import write_json_atomically

    path = trusted_projects_path(home)
    projects = _read_trusted(path)
    projects[project_key(project_dir)] = {
        "sha256": digest,
        "trustedAt": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
    }
    write_json_atomically(path, {"version": 1, "projects": projects})
    os.chmod(path, 0o600)


@dataclass(frozen=True)
class UntrustedProject:
    """A project settings file whose code-running keys were left out because the user has not trusted
    it (with these bytes): what the TUI asks about and the headless line names."""

    project_dir: Path
    settings_path: Path
    keys: tuple[str, ...]
    digest: str
    values: tuple[tuple[str, Any], ...] = ()
    """The ignored keys with their values, for the question (the user decides on what would run)."""
    trust_home: Path | None = None
    """Where the trust file was looked for (None: pi-tui's home); a trust is recorded there."""

    def reason(self) -> str:
        return (
            f"this project is not trusted, so its settings {', '.join(self.keys)} are ignored "
            "(trust it when pi-tui asks, or pass --trust-project)"
        )

    def trust(self) -> None:
        remember_trust(self.project_dir, self.digest, self.trust_home)


def trust_project_settings(cwd: str | os.PathLike[str], home: Path | None = None) -> bool:
    """`--trust-project`: trust the project settings file of `cwd` as it is now. False when there is no
    such file (nothing to trust). Raises OSError when the trust cannot be recorded."""
    from pi_tui.config.settings_files import SETTINGS_FILE_LIMIT, project_settings_path

    try:
        data = read_bounded(project_settings_path(cwd), SETTINGS_FILE_LIMIT)
    except FileNotFoundError:
        return False
    remember_trust(Path(cwd), settings_digest(data), home)
    return True
