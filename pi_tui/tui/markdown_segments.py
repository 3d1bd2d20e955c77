"""Where a streamed Markdown reply may be split into independent documents without changing its look.

A long reply streamed into one Markdown widget makes every relayout walk all of its blocks; a reply cut
into segments lets the finished ones keep their arrangement. A cut is only safe where a Markdown parser
starts a new top-level block that a separate document would parse the same way: after a blank line,
outside any fenced code, with the next line starting at column 0 with a letter (a paragraph; never a
list, quote, fence, indented code or HTML, whose blocks may span blank lines or merge with neighbours).
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})(.*)$")


def safe_cut(text: str, segment_start: int, scan_from: int) -> int | None:
    """The last offset p >= scan_from where text[segment_start:p] is a complete run of top-level blocks
    and text[p:] starts a paragraph; None if there is none. `segment_start` must itself be a safe cut
    (or 0): fence state is tracked from there."""
    best: int | None = None
    fence: str | None = None
    position = segment_start
    for line in text[segment_start:].splitlines(keepends=True):
        end = position + len(line)
        if not line.endswith("\n"):
            break
        match = _FENCE.match(line)
        if match is not None:
            marker, rest = match.group(1), match.group(2)
            if fence is None:
                fence = marker
            elif marker[0] == fence[0] and len(marker) >= len(fence) and not rest.strip():
                fence = None
        elif (
            fence is None
            and line == "\n"
            and end >= scan_from
            and end < len(text)
            and end - 2 >= segment_start
            and text[end - 2] == "\n"
            and text[end].isascii()
            and text[end].isalpha()
        ):
            best = end
        position = end
    return best
