"""Where a streamed Markdown reply may be split into independent documents without changing its look.

A long reply streamed into one Markdown widget makes every relayout walk all of its blocks; a reply cut
into segments lets the finished ones keep their arrangement. A cut is only safe where a Markdown parser
starts a new top-level block that a separate document would parse the same way: after a blank line,
outside any fenced code, with the next line starting at column 0 with a letter (a paragraph; never a
list, quote, fence, indented code or HTML, whose blocks may span blank lines or merge with neighbours).

Such a paragraph is still not safe if it turns into a setext heading (its second line is `===` or `---`)
or a table (its first line has a `|`): a heading or table opening a segment keeps a top margin that the
same block inside one document shares with the paragraph above, one blank row more. While the second
line has not arrived, the cut is `ready=False`: the writer holds that paragraph back until it can tell.
"""

from __future__ import annotations

import re
from typing import NamedTuple

_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})(.*)$")
_SETEXT_UNDERLINE = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")


class Cut(NamedTuple):
    offset: int
    ready: bool
    """False while the paragraph after the cut might still become a setext heading."""


def paragraph_verdict(text: str, start: int) -> bool | None:
    """Whether the paragraph at `start` stays a paragraph: True, False (heading or table), None (its
    second line is not here yet)."""
    first_end = text.find("\n", start)
    if first_end < 0:
        return None
    if "|" in text[start:first_end]:
        return False
    second_end = text.find("\n", first_end + 1)
    second = text[first_end + 1 : None if second_end < 0 else second_end]
    if second_end < 0 and (not second.strip() or second.lstrip(" ")[0] in "-="):
        return None
    return _SETEXT_UNDERLINE.match(second) is None


def safe_cut(text: str, segment_start: int, scan_from: int) -> Cut | None:
    """The last offset p >= scan_from where text[segment_start:p] is a complete run of top-level blocks
    and text[p:] starts a paragraph that stays one; failing that, the last where it may still turn out
    to be only a paragraph (`ready=False`); None if there is neither. `segment_start` must itself be a
    safe cut (or 0): fence state is tracked from there."""
    ready: Cut | None = None
    pending: Cut | None = None
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
            verdict = paragraph_verdict(text, end)
            if verdict is True:
                ready = Cut(end, ready=True)
            elif verdict is None:
                pending = Cut(end, ready=False)
        position = end
    return ready or pending
