"""Files for `@path` completion: the project's files (`config.project_files.file_walk`, the walk the
grep/find fallbacks use, breadth-first within a budget) and a ranking of matches.

Pure Python and blocking: the editor runs `find_files` in a thread worker and passes the worker's
cancellation as `should_stop`, so a huge tree costs at most `budget` directory entries and never
blocks the UI. Breadth-first keeps shallow files (the likely ones) inside the budget; the folder the
query names (`@src/wid` → `src/`) is walked first for the same reason.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from itertools import islice
from pathlib import Path

from pi_tui.config.project_files.file_walk import walk_breadth_first

MAX_RESULTS = 50
WALK_BUDGET = 20_000
"""Directory entries looked at per search; beyond it the search answers with what it found."""


@dataclass(frozen=True)
class FileCandidate:
    path: str
    """Posix path relative to the searched root; folders end with `/`."""
    is_dir: bool


def _candidates(
    root: Path, first: Path | None, budget: int, should_stop: Callable[[], bool]
) -> list[FileCandidate]:
    entries = walk_breadth_first(root, first=first, budget=budget, should_stop=should_stop)
    return [
        FileCandidate(entry.relative + "/" if entry.is_dir else entry.relative, entry.is_dir)
        for entry in entries
    ]


def _is_subsequence(needle: str, haystack: str) -> bool:
    position = 0
    for char in needle:
        position = haystack.find(char, position) + 1
        if position == 0:
            return False
    return True


def match_rank(query: str, path: str) -> int | None:
    """Lower is better; None when `path` does not match. Case-insensitive.

    0: the path starts with the query; 1: the file or folder name starts with it; 2: any path segment
    starts with it; 3: the path contains it; 4: its characters appear in order (fuzzy).
    """
    needle, hay = query.lower(), path.lower()
    if not needle or hay.startswith(needle):
        return 0
    segments = hay.rstrip("/").split("/")
    if segments[-1].startswith(needle):
        return 1
    if "/" not in needle and any(segment.startswith(needle) for segment in segments):
        return 2
    if needle in hay:
        return 3
    return 4 if _is_subsequence(needle, hay) else None


def _matches(query: str, candidates: list[FileCandidate]) -> list[tuple[int, FileCandidate]]:
    """(match rank, candidate) of those matching `query`; the folder just accepted lists its contents."""
    return [
        (position, candidate)
        for candidate in candidates
        if candidate.path != query and (position := match_rank(query, candidate.path)) is not None
    ]


def rank(query: str, candidates: list[FileCandidate], limit: int = MAX_RESULTS) -> list[FileCandidate]:
    """The best `limit` matches: by rank, then shallow before deep, then shorter, then by name."""
    scored = [
        ((position, candidate.path.rstrip("/").count("/"), len(candidate.path), candidate.path), candidate)
        for position, candidate in _matches(query, candidates)
    ]
    scored.sort(key=lambda pair: pair[0])
    return [candidate for _, candidate in scored[:limit]]


def _named_folder(root: Path, query: str) -> Path | None:
    folder, _, _ = query.rpartition("/")
    first = (root / folder).resolve() if folder else None
    if first is None or not first.is_dir() or not first.is_relative_to(root):
        return None
    return first


def find_files(
    root: Path,
    query: str,
    *,
    limit: int = MAX_RESULTS,
    budget: int = WALK_BUDGET,
    should_stop: Callable[[], bool] = lambda: False,
) -> list[FileCandidate]:
    """Files and folders under `root` matching `query` (a partial path typed after `@`), best first."""
    root = root.resolve()
    first = _named_folder(root, query)
    return rank(query, _candidates(root, first, budget, should_stop), limit)


class FileIndex:
    """`find_files` for one root that walks once per named folder and reuses the listing while the
    user types: on a tree the budget cuts short, a walk takes a second or two, a ranking milliseconds.
    A listing older than `max_age` seconds is walked again (files come and go); a cancelled walk is
    never kept."""

    def __init__(
        self,
        root: Path,
        *,
        max_age: float = 10.0,
        budget: int = WALK_BUDGET,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.root = root.resolve()
        self.max_age = max_age
        self.budget = budget
        self.clock = clock
        self._listing: tuple[Path | None, float, list[FileCandidate]] | None = None

    def find(
        self, query: str, *, limit: int = MAX_RESULTS, should_stop: Callable[[], bool] = lambda: False
    ) -> list[FileCandidate]:
        first = _named_folder(self.root, query)
        listing = self._listing
        now = self.clock()
        if listing is None or listing[0] != first or now - listing[1] > self.max_age:
            entries = _candidates(self.root, first, self.budget, should_stop)
            if should_stop():
                return []
            listing = self._listing = (first, now, entries)
        return rank(query, listing[2], limit)


OUTSIDE_PREFIXES = ("/", "~", "../")


def names_outside(query: str) -> bool:
    """`@/abs/path`, `@~/notes` and `@../sibling` name places outside the project: they are listed one
    folder at a time, never walked."""
    return query.startswith(OUTSIDE_PREFIXES) or query == ".."


def list_outside(
    cwd: Path, query: str, *, limit: int = MAX_RESULTS, budget: int = WALK_BUDGET
) -> list[FileCandidate]:
    """Entries of the folder `query` names (absolute, `~`-relative or `../`-relative to `cwd`) whose
    names match its last part, as the user typed the folder (`~` kept). Hidden entries only when the
    last part starts with a dot. Best match first, then folders, then by name."""
    if query in ("~", ".."):
        query += "/"
    folder_text, _, name = query.rpartition("/")
    typed_folder = folder_text + "/"
    folder = Path(typed_folder).expanduser()
    if not folder.is_absolute():
        folder = cwd / folder
    try:
        with os.scandir(folder) as iterator:
            entries = list(islice(iterator, budget))
    except OSError:
        return []
    found = []
    for entry in entries:
        if entry.name.startswith(".") and not name.startswith("."):
            continue
        try:
            is_dir = entry.is_dir()  # a link to a folder is a folder to open here
        except OSError:
            continue
        found.append(FileCandidate(typed_folder + entry.name + ("/" if is_dir else ""), is_dir))
    # A listing reads best as one: best match first, then folders before files, then by name.
    scored = [
        ((position, not candidate.is_dir, candidate.path.casefold()), candidate)
        for position, candidate in _matches(query, found)
    ]
    scored.sort(key=lambda pair: pair[0])
    return [candidate for _, candidate in scored[:limit]]
