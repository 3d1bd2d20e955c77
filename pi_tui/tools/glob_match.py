"""Glob patterns as fd and ripgrep read them: `*` and `?` stay within a path segment, `**` crosses
segments, `[...]` classes and `{a,b}` alternatives."""

from __future__ import annotations

import re
from functools import lru_cache


@lru_cache(maxsize=256)
def glob_to_regex(pattern: str) -> re.Pattern[str]:
    """A compiled regex that matches a whole `/`-separated path against `pattern`."""
    out: list[str] = []
    index = 0
    depth = 0
    while index < len(pattern):
        char = pattern[index]
        if pattern.startswith("**/", index):
            out.append("(?:.*/)?")
            index += 3
            continue
        if pattern.startswith("**", index):
            out.append(".*")
            index += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = pattern.find("]", index + 2 if pattern[index + 1 : index + 2] in ("!", "^") else index + 1)
            if end < 0:
                out.append(re.escape(char))
            else:
                body = pattern[index + 1 : end]
                if body[:1] in ("!", "^"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                index = end
        elif char == "{":
            depth += 1
            out.append("(?:")
        elif char == "}" and depth:
            depth -= 1
            out.append(")")
        elif char == "," and depth:
            out.append("|")
        elif char == "\\" and index + 1 < len(pattern):
            index += 1
            out.append(re.escape(pattern[index]))
        else:
            out.append(re.escape(char))
        index += 1
    out.extend(")" * depth)
    return re.compile("".join(out) + r"\Z", re.DOTALL)
