"""The exclude files git reads besides `.gitignore`, found without running git: the repository's
`info/exclude` and the user's excludes file (`core.excludesFile`; when unset, `git/ignore` in
`$XDG_CONFIG_HOME`, else in `~/.config`).

`core.excludesFile` is looked up in git's configuration files in git's order (system, global, the
repository's own; the last setting wins), honouring `GIT_CONFIG_NOSYSTEM` and `GIT_CONFIG_GLOBAL`.
Files pulled in by `include.path` are not followed.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

SYSTEM_CONFIG = Path("/etc/gitconfig")
EXCLUDES_KEY = "excludesfile"
_SECTION = re.compile(r'\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"(?:[^"\\]|\\.)*")?\s*\](.*)')


def exclude_files(git_dir: Path) -> list[Path]:
    """The exclude files of the working tree whose git dir is `git_dir`, the weakest first (a later
    file's rules override an earlier one's, and `.gitignore` files override both)."""
    common = common_dir(git_dir)
    found = [common / "info" / "exclude"]
    user = user_excludes_file(common)
    return found if user is None else [user, *found]


def common_dir(git_dir: Path) -> Path:
    """Where a linked worktree's shared files (`config`, `info/`) live: named by its `commondir`."""
    try:
        text = (git_dir / "commondir").read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return git_dir
    path = Path(text)
    return path if path.is_absolute() else (git_dir / path).resolve()


def user_excludes_file(common: Path) -> Path | None:
    setting: str | None = None
    for config in _config_files(common):
        try:
            text = config.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        setting = _excludes_setting(text) or setting
    if setting is None:
        return _xdg_config_home() / "git" / "ignore"
    if setting.startswith("~/"):
        return Path.home() / setting[2:]
    path = Path(setting)
    return path if path.is_absolute() else None  # relative to git's own cwd: nothing we can honour


def _config_files(common: Path) -> list[Path]:
    files = [] if os.environ.get("GIT_CONFIG_NOSYSTEM") else [SYSTEM_CONFIG]
    configured_global = os.environ.get("GIT_CONFIG_GLOBAL")
    if configured_global is not None:
        files.append(Path(configured_global))
    else:
        files += [_xdg_config_home() / "git" / "config", Path.home() / ".gitconfig"]
    return [*files, common / "config"]


def _xdg_config_home() -> Path:
    value = os.environ.get("XDG_CONFIG_HOME")
    return Path(value) if value else Path.home() / ".config"


def _excludes_setting(text: str) -> str | None:
    """The last `excludesFile` of the `[core]` section in one git config file."""
    section = ""
    found: str | None = None
    for line in text.splitlines():
        header = _SECTION.match(line)
        if header:
            section, line = header[1].lower(), header[2]  # a setting may follow the header
        if section != "core":
            continue
        key, equals, value = line.partition("=")
        if equals and key.strip().lower() == EXCLUDES_KEY:
            found = _config_value(value)
    return found


def _config_value(raw: str) -> str:
    """A value as git reads it: quotes removed, `\\` escapes applied, a comment (`#`, `;`) cut off."""
    out: list[str] = []
    quoted = escaped = False
    for char in raw.strip():
        if escaped:
            out.append({"n": "\n", "t": "\t"}.get(char, char))
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == '"':
            quoted = not quoted
        elif char in "#;" and not quoted:
            break
        else:
            out.append(char)
    return "".join(out).strip()
