"""Matching and diffing for the edit tool (pi's `edit-diff`).

Every edit is matched against the same original text: exactly first, then in a fuzzy-normalised
space (NFKC, trailing whitespace stripped per line, smart quotes, Unicode dashes and spaces made
ASCII). If any edit needs the fuzzy space, all edits are applied to the normalised text, as pi does.
"""

from __future__ import annotations

import difflib
import itertools
import re
import unicodedata
from dataclasses import dataclass

DIFF_CONTEXT_LINES = 4
EXACT_DIFF_MAX_LINES = 2000
"""Above this many lines on either side a whole-file diff matches lines heuristically (difflib's
autojunk): exact matching is quadratic on repetitive files (20,000 lines of braces: 24 s, heuristic:
5 ms). Edits keep exact matching, as pi's diff of an edit is exact."""
MAX_STORED_DIFF_LINES = 2000
"""A whole-file diff (write) keeps this many lines and a marker saying how many more there were."""

_SINGLE_QUOTES = re.compile("[\u2018\u2019\u201a\u201b]")
_DOUBLE_QUOTES = re.compile("[\u201c\u201d\u201e\u201f]")
_DASHES = re.compile("[\u2010\u2011\u2012\u2013\u2014\u2015\u2212]")
_SPACES = re.compile("[\u00a0\u2002-\u200a\u202f\u205f\u3000]")
_LINES = re.compile(r"[^\n]*\n|[^\n]+")
_TRAILING_WS = re.compile(r"[ \t\f\v\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]+$", re.M)


class EditError(Exception):
    """An edit that cannot be applied; the message is pi's text for the model."""


@dataclass(frozen=True)
class Edit:
    old_text: str
    new_text: str


def detect_line_ending(content: str) -> str:
    """CRLF if the first CRLF comes before the first bare LF, else LF."""
    crlf = content.find("\r\n")
    lf = content.find("\n")
    if lf == -1 or crlf == -1:
        return "\n"
    return "\r\n" if crlf < lf else "\n"


def normalize_to_lf(text: str) -> str:
    """CRLF to LF; a lone CR is a character of its line, not a line ending, and stays."""
    return text.replace("\r\n", "\n")


def restore_line_endings(text: str, ending: str) -> str:
    return text.replace("\n", "\r\n") if ending == "\r\n" else text


def line_endings(content: str) -> list[str]:
    """The ending of each line of `content` that has one (`\r\n` or `\n`), in order."""
    return ["\r\n" if line.endswith("\r") else "\n" for line in content.split("\n")[:-1]]


def restore_each_line_ending(before: str, after: str, endings: list[str], fallback: str) -> str:
    """`after` (LF) with each line ending as it was in the file: a line kept from `before` keeps its own,
    a changed or added line takes the ending of the line it replaced or follows (`fallback` at the end)."""
    old_lines, new_lines = before.split("\n"), after.split("\n")
    chosen: list[str] = []
    heuristic = max(len(old_lines), len(new_lines)) > EXACT_DIFF_MAX_LINES
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=heuristic)
    for tag, old_start, old_end, new_start, new_end in matcher.get_opcodes():
        if tag == "equal":
            chosen.extend(_ending_at(endings, index, fallback) for index in range(old_start, old_end))
        else:
            chosen.extend([_ending_at(endings, old_start, fallback)] * (new_end - new_start))
    return "".join(line + chosen[index] for index, line in enumerate(new_lines[:-1])) + new_lines[-1]


def _ending_at(endings: list[str], index: int, fallback: str) -> str:
    if index < len(endings):
        return endings[index]
    return endings[-1] if endings else fallback


def strip_bom(content: str) -> tuple[str, str]:
    """`(bom, text)`: the BOM is restored when the file is written back."""
    return ("\ufeff", content[1:]) if content.startswith("\ufeff") else ("", content)


def normalize_for_fuzzy_match(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    text = _TRAILING_WS.sub("", text)
    text = _SINGLE_QUOTES.sub("'", text)
    text = _DOUBLE_QUOTES.sub('"', text)
    text = _DASHES.sub("-", text)
    return _SPACES.sub(" ", text)


def apply_edits(content: str, edits: list[Edit], path: str) -> tuple[str, str]:
    """`(base, new)` for LF-normalised `content`; raises EditError with pi's message."""
    normalized = [Edit(normalize_to_lf(e.old_text), normalize_to_lf(e.new_text)) for e in edits]
    total = len(normalized)
    for index, edit in enumerate(normalized):
        if not edit.old_text:
            if total == 1:
                raise EditError(f"oldText must not be empty in {path}.")
            raise EditError(f"edits[{index}].oldText must not be empty in {path}.")
    fuzzy = any(edit.old_text not in content for edit in normalized)
    base = normalize_for_fuzzy_match(content) if fuzzy else content
    fuzzy_base = base if fuzzy else None
    matches: list[tuple[int, int, str, int]] = []
    for index, edit in enumerate(normalized):
        start, length = _find(base, edit.old_text)
        if start < 0:
            head = (
                f"Could not find the exact text in {path}."
                if total == 1
                else f"Could not find edits[{index}] in {path}."
            )
            raise EditError(f"{head} The old text must match exactly including all whitespace and newlines.")
        if fuzzy_base is None:
            fuzzy_base = normalize_for_fuzzy_match(base)
        occurrences = fuzzy_base.count(normalize_for_fuzzy_match(edit.old_text))
        if occurrences > 1:
            if total == 1:
                raise EditError(
                    f"Found {occurrences} occurrences of the text in {path}. The text must be unique. "
                    "Please provide more context to make it unique."
                )
            raise EditError(
                f"Found {occurrences} occurrences of edits[{index}] in {path}. Each oldText must be unique. "
                "Please provide more context to make it unique."
            )
        matches.append((start, length, edit.new_text, index))
    matches.sort()
    for previous, current in itertools.pairwise(matches):
        if previous[0] + previous[1] > current[0]:
            raise EditError(
                f"edits[{previous[3]}] and edits[{current[3]}] overlap in {path}. "
                "Merge them into one edit or target disjoint regions."
            )
    result = base
    for start, length, new_text, _ in reversed(matches):
        result = result[:start] + new_text + result[start + length :]
    if result == base:
        if total == 1:
            raise EditError(
                f"No changes made to {path}. The replacement produced identical content. This might indicate "
                "an issue with special characters or the text not existing as expected."
            )
        raise EditError(f"No changes made to {path}. The replacements produced identical content.")
    return base, result


def _find(content: str, old_text: str) -> tuple[int, int]:
    index = content.find(old_text)
    if index >= 0:
        return index, len(old_text)
    fuzzy_old = normalize_for_fuzzy_match(old_text)
    index = normalize_for_fuzzy_match(content).find(fuzzy_old)
    return (index, len(fuzzy_old)) if index >= 0 else (-1, 0)


@dataclass(frozen=True)
class DiffResult:
    diff: str
    first_changed_line: int | None


def _line_parts(old: str, new: str, *, heuristic: bool = False) -> list[tuple[str, list[str]]]:
    """Line-level diff as ("=", "-", "+") parts, each with its lines (without newlines)."""
    old_lines = _LINES.findall(old)
    new_lines = _LINES.findall(new)
    parts: list[tuple[str, list[str]]] = []
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=heuristic)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            parts.append(("=", old_lines[i1:i2]))
        if tag in ("replace", "delete"):
            parts.append(("-", old_lines[i1:i2]))
        if tag in ("replace", "insert"):
            parts.append(("+", new_lines[j1:j2]))
    return [(kind, [line.rstrip("\n") for line in lines]) for kind, lines in parts]


def generate_diff(
    old: str, new: str, context: int = DIFF_CONTEXT_LINES, *, heuristic: bool = False
) -> DiffResult:
    """pi's display diff: `+<n> line`, `-<n> line`, ` <n> line`, `...` for skipped context."""
    parts = _line_parts(old, new, heuristic=heuristic)
    width = len(str(max(len(old.split("\n")), len(new.split("\n")))))
    out: list[str] = []
    old_no = new_no = 1
    first_changed: int | None = None
    gap = f" {'':>{width}} ..."

    def context_lines(lines: list[str]) -> None:
        nonlocal old_no, new_no
        for line in lines:
            out.append(f" {old_no:>{width}} {line}")
            old_no += 1
            new_no += 1

    for index, (kind, lines) in enumerate(parts):
        if kind != "=":
            if first_changed is None:
                first_changed = new_no
            for line in lines:
                if kind == "+":
                    out.append(f"+{new_no:>{width}} {line}")
                    new_no += 1
                else:
                    out.append(f"-{old_no:>{width}} {line}")
                    old_no += 1
            continue
        after_change = index > 0 and parts[index - 1][0] != "="
        before_change = index < len(parts) - 1 and parts[index + 1][0] != "="
        if after_change and before_change:
            if len(lines) <= context * 2:
                context_lines(lines)
            else:
                context_lines(lines[:context])
                out.append(gap)
                skipped = len(lines) - 2 * context
                old_no += skipped
                new_no += skipped
                context_lines(lines[-context:])
        elif after_change:
            context_lines(lines[:context])
            if len(lines) > context:
                out.append(gap)
                old_no += len(lines) - context
                new_no += len(lines) - context
        elif before_change:
            skipped = max(0, len(lines) - context)
            if skipped:
                out.append(gap)
                old_no += skipped
                new_no += skipped
            context_lines(lines[skipped:])
        else:
            old_no += len(lines)
            new_no += len(lines)
    return DiffResult("\n".join(out), first_changed)


def file_change_diff(old: str | None, new: str) -> DiffResult:
    """The display diff of a whole file replaced by `new` (`old` None: a new file, every line added).
    Line ends and a BOM are left out of the comparison; a long diff is cut after
    `MAX_STORED_DIFF_LINES` lines with a marker line that a pi-style renderer shows as context."""
    before = normalize_to_lf(strip_bom(old)[1]) if old is not None else ""
    after = normalize_to_lf(strip_bom(new)[1])
    if before == after:
        return DiffResult("", None)
    lines = max(before.count("\n"), after.count("\n")) + 1
    result = generate_diff(before, after, heuristic=lines > EXACT_DIFF_MAX_LINES)
    kept = result.diff.split("\n")
    if len(kept) <= MAX_STORED_DIFF_LINES:
        return result
    width = len(str(lines))
    marker = f" {'':>{width}} ... {len(kept) - MAX_STORED_DIFF_LINES:,} more diff lines not kept"
    return DiffResult("\n".join([*kept[:MAX_STORED_DIFF_LINES], marker]), result.first_changed_line)
