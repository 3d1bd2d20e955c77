"""Resolving `--session <arg>` / `--fork <arg>` to a file, as pi's CLI does."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pi_tui.config.paths import cwd_folder_name, pi_sessions_root, sessions_root
from pi_tui.session_file.loader import read_first_line

MAX_LISTED_CANDIDATES = 10


@dataclass(frozen=True)
class SessionArgError:
    """Why an argument names no single session; `candidates` are (id, path) for an ambiguous prefix."""

    message: str
    candidates: tuple[tuple[str, Path], ...] = ()


def is_path_arg(arg: str) -> bool:
    """pi treats an argument with a path separator or a `.jsonl` suffix as a path, anything else as an id."""
    return "/" in arg or "\\" in arg or arg.endswith(".jsonl")


def _session_ids(folders: list[Path]) -> list[tuple[str, Path]]:
    found: list[tuple[str, Path]] = []
    for folder in folders:
        if not folder.is_dir():
            continue
        for item in sorted(folder.glob("*.jsonl")):
            header = read_first_line(item)
            if header is not None and header.get("type") == "session" and isinstance(header.get("id"), str):
                found.append((header["id"], item))
    return found


def _match(prefix: str, sessions: list[tuple[str, Path]]) -> list[tuple[str, Path]]:
    exact = [item for item in sessions if item[0] == prefix]
    return exact or [item for item in sessions if item[0].startswith(prefix)]


def _subfolders(root: Path) -> list[Path]:
    return sorted(item for item in root.iterdir() if item.is_dir()) if root.is_dir() else []


def resolve_session_arg(
    arg: str, cwd: str, *, root: Path | None = None, pi_root: Path | None = None
) -> Path | SessionArgError:
    """A path argument is returned as given (relative to `cwd`); an id prefix is looked up in the
    cwd's folders (pi-tui's, then pi's) and, if nothing matches there, under both roots."""
    if is_path_arg(arg):
        path = Path(arg).expanduser()
        return path if path.is_absolute() else Path(cwd) / path
    prefix = arg.strip()
    if not prefix:
        return SessionArgError("empty session id")
    roots = [root or sessions_root(), pi_root or pi_sessions_root()]
    local = _match(prefix, _session_ids([base / cwd_folder_name(cwd) for base in roots]))
    everywhere = [folder for base in roots for folder in _subfolders(base)]
    matches = local or _match(prefix, _session_ids(everywhere))
    if len(matches) == 1:
        return matches[0][1]
    if not matches:
        return SessionArgError(f"no session id starts with {prefix!r}")
    listed = "\n".join(f"  {session_id}  {path}" for session_id, path in matches[:MAX_LISTED_CANDIDATES])
    hidden = len(matches) - MAX_LISTED_CANDIDATES
    more = f"\n  … and {hidden} more" if hidden > 0 else ""
    return SessionArgError(
        f"session id prefix {prefix!r} is ambiguous; {len(matches)} sessions match:\n{listed}{more}",
        tuple(matches),
    )
