"""The system prompt (in pi's order), assembled from plain values and split into named segments.

The prompt is the head of the static prefix: for the same inputs it is byte-identical, and nothing
here reads the clock, the environment or the disk; the caller passes the date, the cwd, the tools and the
resources. The result keeps its segments (`SystemPrompt.segments`) whose texts concatenate to exactly
`SystemPrompt.text`, so token accounting and cache-break blame can point at the part that changed.

Order: body (SYSTEM.md, or our default: identity, tools, guidelines, documentation pointer), APPEND_SYSTEM
text, `# Project Context` with one section per context file, the skills index (only when `read` is an
active tool), then the date and working-directory lines.
"""

from __future__ import annotations

import datetime
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, NamedTuple

from pi_tui.context.context_files import ContextFile
from pi_tui.context.skills import Skill, format_skills_block

SegmentKind = Literal[
    "base",
    "custom",
    "tools",
    "guidelines",
    "docs",
    "append",
    "context-header",
    "context-file",
    "skills",
    "date-cwd",
]

IDENTITY = (
    "You are pi-tui, a coding assistant working in the user's terminal. You help with software work by "
    "reading files, running commands, editing code and writing new files, and you explain what you did "
    "plainly."
)
NO_TOOLS = "(none)"
CUSTOM_TOOLS_NOTE = "Other tools may also be available, depending on the project."
BASH_ONLY_GUIDELINE = "Use bash for file operations such as ls, rg and find"
PREFER_TOOLS_GUIDELINE = (
    "Prefer the grep/find/ls tools to bash for exploring files (faster, and .gitignore is honoured)"
)
ALWAYS_GUIDELINES = ("Keep your answers short", "Name file paths clearly when you work with files")
EXPLORATION_TOOLS = ("grep", "find", "ls")
PROJECT_CONTEXT_HEADER = "\n\n# Project Context\n\nProject-specific instructions and guidelines:\n\n"


class ToolPrompt(NamedTuple):
    """What one active tool contributes: a one-line snippet (None: not listed) and its guidelines."""

    name: str
    snippet: str | None
    guidelines: Sequence[str] = ()


@dataclass(frozen=True)
class PromptSegment:
    """A named slice of the prompt. `name` is unique within a prompt (`context-file:<path>` for files)."""

    kind: SegmentKind
    name: str
    text: str
    source: Path | None = None

    @property
    def fingerprint(self) -> str:
        """A short stable hash of the text: equal fingerprints mean the model saw the same bytes."""
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class SystemPrompt:
    segments: tuple[PromptSegment, ...]

    @property
    def text(self) -> str:
        return "".join(segment.text for segment in self.segments)

    def segment(self, name: str) -> PromptSegment | None:
        return next((segment for segment in self.segments if segment.name == name), None)


def _tools_text(tools: Sequence[ToolPrompt]) -> str:
    listed = [f"- {tool.name}: {tool.snippet}" for tool in tools if tool.snippet]
    return "\n\nAvailable tools:\n" + ("\n".join(listed) if listed else NO_TOOLS) + "\n\n" + CUSTOM_TOOLS_NOTE


def tool_guidelines(tools: Sequence[ToolPrompt]) -> list[str]:
    """pi's rules: exploration advice by the active tools, then each tool's own, then the fixed two."""
    names = {tool.name for tool in tools}
    has_exploration = any(name in names for name in EXPLORATION_TOOLS)
    rules: list[str] = []
    if "bash" in names:
        rules.append(PREFER_TOOLS_GUIDELINE if has_exploration else BASH_ONLY_GUIDELINE)
    for tool in tools:
        rules.extend(tool.guidelines)
    rules.extend(ALWAYS_GUIDELINES)
    unique: list[str] = []
    for rule in rules:
        if rule.strip() and rule not in unique:
            unique.append(rule)
    return unique


def _docs_text(readme_path: str | None) -> str:
    if readme_path is None:
        return ""
    return (
        "\n\npi-tui documentation (read it only when the user asks about pi-tui itself: settings, skills, "
        f"prompt templates, themes, sessions, compaction or the inspector):\n- README: {readme_path}"
    )


def build_system_prompt(
    *,
    cwd: str,
    date: datetime.date,
    tools: Sequence[ToolPrompt],
    custom_prompt: str | None = None,
    append_prompt: str | None = None,
    context_files: Sequence[ContextFile] = (),
    skills: Sequence[Skill] = (),
    readme_path: str | None = None,
) -> SystemPrompt:
    """Assemble the prompt. `custom_prompt` (SYSTEM.md) replaces the default body; the rest always follows."""
    segments: list[PromptSegment] = []

    def add(kind: SegmentKind, text: str, name: str | None = None, source: Path | None = None) -> None:
        if text:
            segments.append(PromptSegment(kind, name or kind, text, source))

    if custom_prompt:
        add("custom", custom_prompt)
    else:
        add("base", IDENTITY)
        add("tools", _tools_text(tools))
        add("guidelines", "\n\nGuidelines:\n" + "\n".join(f"- {rule}" for rule in tool_guidelines(tools)))
        add("docs", _docs_text(readme_path))
    if append_prompt:
        add("append", "\n\n" + append_prompt)
    if context_files:
        add("context-header", PROJECT_CONTEXT_HEADER)
        for file in context_files:
            add(
                "context-file",
                f"## {file.path}\n\n{file.content}\n\n",
                f"context-file:{file.path}",
                file.path,
            )
    if any(tool.name == "read" for tool in tools):
        add("skills", format_skills_block(list(skills)))
    posix_cwd = cwd.replace("\\", "/")
    add("date-cwd", f"\nCurrent date: {date.isoformat()}\nCurrent working directory: {posix_cwd}")
    return SystemPrompt(tuple(segments))
