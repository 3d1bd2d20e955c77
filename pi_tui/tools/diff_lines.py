"""pi's display diff (the `diff` of an edit or write result's details) read back as lines to colour.

Each line is `+<n> text` (added), `-<n> text` (removed) or ` <n> text` (context, `...` for skipped
lines), the numbers right-aligned; this is the parse pi's renderer applies. Where one line is replaced by
one line, the words that changed are marked, as pi marks them (inverse), leading indentation left out.
Pure: the conversation, the tool-output viewer and the HTML export each style these lines their way.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

DiffKind: TypeAlias = Literal["add", "remove", "context"]
DIFF_TOOLS = frozenset({"edit", "write"})
"""Tools whose `details.diff` is a display diff (another tool's `diff` may mean something else)."""

_LINE = re.compile(r"^([+\- ])( *\d*) (.*)$", re.DOTALL)
_WORDS = re.compile(r"\w+|\s+|[^\w\s]")
_KINDS: dict[str, DiffKind] = {"+": "add", "-": "remove", " ": "context"}


@dataclass(frozen=True)
class DiffLine:
    kind: DiffKind
    gutter: str
    """The sign and line number as written, with the space after them (empty for a line pi's format
    does not describe, shown as it is)."""
    text: str
    changed: tuple[tuple[int, int], ...] = ()
    """Spans of `text` that differ from the paired line (a one-line replacement only)."""

    @property
    def display(self) -> str:
        return self.gutter + self.text


def diff_of(tool_name: str, details: Any) -> str | None:
    """The display diff of an edit or write result, None when it has none (a failed call, a pi write)."""
    if tool_name not in DIFF_TOOLS or not isinstance(details, dict):
        return None
    diff = details.get("diff")
    return diff if isinstance(diff, str) and diff else None


def first_changed_line(details: Any) -> int | None:
    value = details.get("firstChangedLine") if isinstance(details, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def parse_diff(diff: str) -> list[DiffLine]:
    """Every line of `diff`, classified; tabs become three spaces as pi shows them."""
    lines = [_parse(line) for line in diff.split("\n")]
    index = 0
    while index < len(lines):
        end = index
        while end < len(lines) and lines[end].kind == "remove" and lines[end].gutter:
            end += 1
        added = end
        while added < len(lines) and lines[added].kind == "add" and lines[added].gutter:
            added += 1
        if end - index == 1 and added - end == 1:
            lines[index], lines[end] = _mark_changes(lines[index], lines[end])
        index = max(added, index + 1)
    return lines


def _parse(line: str) -> DiffLine:
    match = _LINE.match(line)
    if match is None:
        return DiffLine("context", "", line.replace("\t", "   "))
    sign, number, text = match.groups()
    return DiffLine(_KINDS[sign], f"{sign}{number} ", text.replace("\t", "   "))


def _mark_changes(removed: DiffLine, added: DiffLine) -> tuple[DiffLine, DiffLine]:
    old_words = _WORDS.findall(removed.text)
    new_words = _WORDS.findall(added.text)
    old_spans: list[tuple[int, int]] = []
    new_spans: list[tuple[int, int]] = []
    matcher = difflib.SequenceMatcher(None, old_words, new_words, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        _add_span(old_spans, old_words, i1, i2)
        _add_span(new_spans, new_words, j1, j2)
    return (
        DiffLine(removed.kind, removed.gutter, removed.text, _without_indent(old_spans, removed.text)),
        DiffLine(added.kind, added.gutter, added.text, _without_indent(new_spans, added.text)),
    )


def _add_span(spans: list[tuple[int, int]], words: list[str], first: int, last: int) -> None:
    if first == last:
        return
    start = sum(len(word) for word in words[:first])
    end = start + sum(len(word) for word in words[first:last])
    if spans and spans[-1][1] == start:
        spans[-1] = (spans[-1][0], end)
    else:
        spans.append((start, end))


def _without_indent(spans: list[tuple[int, int]], text: str) -> tuple[tuple[int, int], ...]:
    """The changed spans, leading whitespace of the first one dropped (indentation is not a change
    worth lighting up), empty ones left out."""
    kept: list[tuple[int, int]] = []
    for index, (start, end) in enumerate(spans):
        if index == 0:
            while start < end and text[start].isspace():
                start += 1
        if start < end:
            kept.append((start, end))
    return tuple(kept)
