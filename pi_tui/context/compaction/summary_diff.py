"""A compaction's summary against the previous one, section by section (pi-tui's own; pi has none).

Summaries share pi's skeleton, so the useful question is "which sections changed, and how": each
`## ` heading starts a section (text before the first heading is the preamble, and the
`<read-files>` / `<modified-files>` tags are sections of their own). Each section gets a unified
diff; unchanged ones are only named.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

PREAMBLE = "(preamble)"
_TAG_SECTIONS = ("<read-files>", "<modified-files>")

SectionStatus: TypeAlias = Literal["unchanged", "changed", "added", "removed"]


@dataclass(frozen=True)
class SectionDiff:
    heading: str
    status: SectionStatus
    diff: list[str]
    """Unified diff lines (no trailing newlines); empty for an unchanged section."""

    def to_json_obj(self) -> dict[str, Any]:
        return {"heading": self.heading, "status": self.status, "diff": self.diff}


def split_sections(summary: str) -> dict[str, list[str]]:
    """heading → the section's lines (heading line included); blank edges trimmed, order kept."""
    sections: dict[str, list[str]] = {}
    current = PREAMBLE
    for line in summary.split("\n"):
        if line.startswith("## ") or line.strip() in _TAG_SECTIONS:
            current = line.strip()
            while current in sections:  # a repeated heading gets its own section
                current += " "
        sections.setdefault(current, []).append(line)
    trimmed: dict[str, list[str]] = {}
    for heading, lines in sections.items():
        while lines and not lines[-1].strip():
            lines.pop()
        while lines and not lines[0].strip():
            lines.pop(0)
        if lines:
            trimmed[heading] = lines
    return trimmed


def diff_summaries(previous: str, current: str) -> list[SectionDiff]:
    """Per-section diffs in the current summary's section order, then the sections it dropped."""
    old, new = split_sections(previous), split_sections(current)
    result: list[SectionDiff] = []
    for heading, lines in new.items():
        before = old.get(heading)
        if before == lines:
            result.append(SectionDiff(heading.strip(), "unchanged", []))
            continue
        status: SectionStatus = "added" if before is None else "changed"
        diff = difflib.unified_diff(before or [], lines, "previous", "current", lineterm="")
        result.append(SectionDiff(heading.strip(), status, list(diff)))
    for heading, lines in old.items():
        if heading not in new:
            diff = difflib.unified_diff(lines, [], "previous", "current", lineterm="")
            result.append(SectionDiff(heading.strip(), "removed", list(diff)))
    return result


def format_summary_diff(diffs: list[SectionDiff]) -> str:
    """Plain text for a terminal: changed sections with their diffs, unchanged ones named in one line."""
    out: list[str] = []
    unchanged = [item.heading.strip() for item in diffs if item.status == "unchanged"]
    for item in diffs:
        if item.status != "unchanged":
            out.append(f"{item.heading} ({item.status})")
            out += item.diff
            out.append("")
    if unchanged:
        out.append("Unchanged: " + ", ".join(unchanged))
    return "\n".join(out).rstrip("\n") + "\n" if out else "No differences.\n"
