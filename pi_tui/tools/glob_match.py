"""Glob patterns as fd and ripgrep read them, for the find and grep fallbacks (wcmatch does the matching).

`*` and `?` stay within a path segment, `**` as a whole segment crosses segments (elsewhere it is `*`),
`[...]` / `[!...]` / `[^...]` are classes, `{a,b}` alternatives, `\\` escapes the next character. A class
nothing closes (`[]`, `[!]`, which fd refuses) is literal text. A leading dot is an ordinary character, as
with fd `--hidden` and rg `--hidden`; matching is case-sensitive; paths are `/`-separated on every system.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

# `{a,b}` is expanded into separate patterns; beyond this many the pattern is refused, not matched slowly.
MAX_EXPANDED_PATTERNS = 1000


class GlobPatternError(ValueError):
    """A glob the fallbacks cannot match; the message is one line for the model."""


@lru_cache(maxsize=256)
def glob_matcher(pattern: str) -> Callable[[str], bool]:
    """A test of a whole `/`-separated path against `pattern`; raises `GlobPatternError`."""
    # Imported on the first glob, not with the tool registry: wcmatch compiles ~40 regexes at import,
    # time the chat's first frame would wait for (docs/startup.md).
    from wcmatch import glob as wcglob
    from wcmatch._wcparse import PatternLimitException

    flags = wcglob.GLOBSTAR | wcglob.BRACE | wcglob.DOTGLOB | wcglob.FORCEUNIX | wcglob.CASE
    try:
        alternatives, _ = wcglob.translate(pattern, flags=flags, limit=MAX_EXPANDED_PATTERNS)
    except PatternLimitException:
        message = f"glob pattern expands to more than {MAX_EXPANDED_PATTERNS} patterns: {pattern}"
        raise GlobPatternError(message) from None
    # wcmatch's own matcher makes an object per path; its regexes, joined, test a path 3-4x faster.
    regex = re.compile("|".join(alternatives))
    return lambda path: regex.fullmatch(path) is not None
