"""Skills, as pi's: one skill file, its validation, the prompt index and `/skill:` expansion.

Skills reach the model in two phases. The system prompt carries only an index (name, description, path of
the file) in an `<available_skills>` block; the model `read`s the file itself when a task matches. The user
can also inline a skill explicitly with `/skill:<name> [args]`. Discovery (which folders, in which order)
lives in `skill_discovery`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pi_tui.context.frontmatter import FrontmatterError, parse_frontmatter, strip_frontmatter
from pi_tui.context.resource_diagnostics import ResourceDiagnostic

SKILL_FILE_NAME = "SKILL.md"
SKILL_COMMAND_PREFIX = "/skill:"
MAX_NAME_LENGTH = 64
MAX_DESCRIPTION_LENGTH = 1024
ALLOWED_FRONTMATTER_FIELDS = frozenset(
    {
        "name",
        "description",
        "license",
        "compatibility",
        "metadata",
        "allowed-tools",
        "disable-model-invocation",
    }
)
_NAME_CHARACTERS = re.compile(r"^[a-z0-9-]+$")

SkillSource = Literal["project", "user", "path", "builtin"]

_PROMPT_INSTRUCTIONS = (
    "The skills listed below hold detailed instructions for particular kinds of task.",
    "When a task fits a skill's description, load that skill's file with the read tool before you start.",
    "Resolve relative paths inside a skill against the skill's own folder; use absolute paths in tool calls.",
)


@dataclass(frozen=True)
class Skill:
    """A loaded skill. `base_dir` is the folder holding `file_path`; relative references resolve there."""

    name: str
    description: str
    file_path: Path
    base_dir: Path
    source: SkillSource
    disable_model_invocation: bool = False


def _name_problems(name: str, parent_name: str) -> list[str]:
    problems = []
    if name != parent_name:
        problems.append(f'name "{name}" does not match parent directory "{parent_name}"')
    if len(name) > MAX_NAME_LENGTH:
        problems.append(f"name exceeds {MAX_NAME_LENGTH} characters ({len(name)})")
    if not _NAME_CHARACTERS.match(name):
        problems.append("name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)")
    if name.startswith("-") or name.endswith("-"):
        problems.append("name must not start or end with a hyphen")
    if "--" in name:
        problems.append("name must not contain consecutive hyphens")
    return problems


def _reported_name(path: Path) -> str:
    """What the user calls a skill that could not be read: its folder, or a loose file's own name."""
    return path.parent.name if path.name == SKILL_FILE_NAME else path.stem


def load_skill_file(path: Path, source: SkillSource) -> tuple[Skill | None, list[ResourceDiagnostic]]:
    """Read and validate one skill file. Only a missing description or broken frontmatter rejects it."""
    diagnostics: list[ResourceDiagnostic] = []
    try:
        text = path.read_bytes().decode("utf-8", errors="replace")
    except OSError as error:
        return None, [ResourceDiagnostic("warning", f"cannot read skill: {error.strerror or error}", path)]
    try:
        fields = parse_frontmatter(text).fields
    except FrontmatterError as error:
        message = f'invalid frontmatter: {error.reason}; skill "{_reported_name(path)}" not loaded'
        return None, [ResourceDiagnostic("error", message, path, line=error.line)]

    def warn(message: str) -> None:
        diagnostics.append(ResourceDiagnostic("warning", message, path))

    for key in fields:
        if key not in ALLOWED_FRONTMATTER_FIELDS:
            warn(f'unknown frontmatter field "{key}"')
    description = fields.get("description")
    if not isinstance(description, str) or not description.strip():
        raw_name = fields.get("name")
        name = raw_name if isinstance(raw_name, str) and raw_name else _reported_name(path)
        warn(f'description is required; skill "{name}" not loaded')
        return None, diagnostics
    if len(description) > MAX_DESCRIPTION_LENGTH:
        warn(f"description exceeds {MAX_DESCRIPTION_LENGTH} characters ({len(description)})")
    parent_name = path.parent.name
    raw_name = fields.get("name")
    name = raw_name if isinstance(raw_name, str) and raw_name else parent_name
    for problem in _name_problems(name, parent_name):
        warn(problem)
    skill = Skill(
        name=name,
        description=description,
        file_path=path,
        base_dir=path.parent,
        source=source,
        disable_model_invocation=fields.get("disable-model-invocation") is True,
    )
    return skill, diagnostics


def escape_xml(text: str) -> str:
    return (
        text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&apos;")
    )


def format_skills_block(skills: list[Skill] | tuple[Skill, ...]) -> str:
    """The prompt's skill index ("" when no skill is model-invocable). Starts with two newlines."""
    visible = [skill for skill in skills if not skill.disable_model_invocation]
    if not visible:
        return ""
    lines = ["\n\n" + _PROMPT_INSTRUCTIONS[0], *_PROMPT_INSTRUCTIONS[1:], "", "<available_skills>"]
    for skill in visible:
        lines += [
            "  <skill>",
            f"    <name>{escape_xml(skill.name)}</name>",
            f"    <description>{escape_xml(skill.description)}</description>",
            f"    <location>{escape_xml(str(skill.file_path))}</location>",
            "  </skill>",
        ]
    lines.append("</available_skills>")
    return "\n".join(lines)


def expand_skill_command(text: str, skills: list[Skill] | tuple[Skill, ...]) -> str:
    """`/skill:<name> [args]` → the skill's body in a `<skill>` element (+ args); anything else unchanged.

    The file is read now (not at discovery), so an edit to the skill is picked up without `/reload`. An
    unknown name or an unreadable file leaves the text as typed.
    """
    if not text.startswith(SKILL_COMMAND_PREFIX):
        return text
    space = text.find(" ")
    name = text[len(SKILL_COMMAND_PREFIX) :] if space == -1 else text[len(SKILL_COMMAND_PREFIX) : space]
    args = "" if space == -1 else text[space + 1 :].strip()
    skill = next((candidate for candidate in skills if candidate.name == name), None)
    if skill is None:
        return text
    try:
        content = skill.file_path.read_bytes().decode("utf-8", errors="replace")
    except OSError:
        return text
    body = strip_frontmatter(content).strip()
    block = (
        f'<skill name="{skill.name}" location="{skill.file_path}">\n'
        f"References are relative to {skill.base_dir}.\n\n{body}\n</skill>"
    )
    return f"{block}\n\n{args}" if args else block
