"""Prompt templates, as pi's: `/name args` typed by the user expands to a Markdown file's body.

Templates are the `*.md` files directly in `PI_TUI_HOME/prompts/` and `<cwd>/.pi-tui/prompts/` (then any
extra folders), first name wins. Placeholders: `$1…$N` (missing → empty), `${@:N}` / `${@:N:L}` (slices,
1-based, 0 counts as 1), `$ARGUMENTS` and `$@` (all arguments joined by spaces). Substitution is one pass
over the template, so text inside an argument is never substituted again.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from pi_tui.config.paths import project_config_dir
from pi_tui.context.frontmatter import FrontmatterError, parse_frontmatter
from pi_tui.context.resource_diagnostics import ResourceDiagnostic

PROMPTS_DIR_NAME = "prompts"
DESCRIPTION_MAX_CHARS = 60
_PLACEHOLDER = re.compile(r"\$(\d+)|\$\{@:(\d+)(?::(\d+))?\}|\$ARGUMENTS|\$@")


@dataclass(frozen=True)
class PromptTemplate:
    name: str
    description: str
    content: str
    file_path: Path
    argument_hint: str | None = None


def parse_command_args(text: str) -> list[str]:
    """Split on spaces and tabs; quotes group (and are removed); empty args vanish, as in pi."""
    args: list[str] = []
    current = ""
    quote: str | None = None
    for char in text:
        if quote:
            if char == quote:
                quote = None
            else:
                current += char
        elif char in "\"'":
            quote = char
        elif char in " \t":
            if current:
                args.append(current)
            current = ""
        else:
            current += char
    if current:
        args.append(current)
    return args


def substitute_args(content: str, args: list[str]) -> str:
    """Fill the placeholders of `content` from `args` (see the module docstring)."""
    everything = " ".join(args)

    def replace(match: re.Match[str]) -> str:
        position, start, length = match.group(1), match.group(2), match.group(3)
        if position is not None:
            index = int(position)
            return args[index - 1] if 1 <= index <= len(args) else ""
        if start is not None:
            first = max(int(start), 1) - 1
            chosen = args[first:] if length is None else args[first : first + int(length)]
            return " ".join(chosen)
        return everything

    return _PLACEHOLDER.sub(replace, content)


def _description(fields: dict[str, object], body: str) -> str:
    given = fields.get("description")
    if isinstance(given, str) and given.strip():
        return given.strip()
    first = next((line.strip() for line in body.split("\n") if line.strip()), "")
    if len(first) > DESCRIPTION_MAX_CHARS:
        return first[:DESCRIPTION_MAX_CHARS] + "..."
    return first


def load_template_file(path: Path) -> tuple[PromptTemplate | None, list[ResourceDiagnostic]]:
    try:
        text = path.read_bytes().decode("utf-8", errors="replace")
    except OSError as error:
        return None, [ResourceDiagnostic("warning", f"cannot read prompt template: {error.strerror}", path)]
    name = path.name.removesuffix(".md")
    try:
        parsed = parse_frontmatter(text)
    except FrontmatterError as error:
        message = f'invalid frontmatter: {error.reason}; prompt template "/{name}" not loaded'
        return None, [ResourceDiagnostic("error", message, path, line=error.line)]
    body = parsed.body.strip() if parsed.has_frontmatter else parsed.body
    hint = parsed.fields.get("argument-hint")
    template = PromptTemplate(
        name=name,
        description=_description(dict(parsed.fields), body),
        content=body,
        file_path=path,
        argument_hint=hint if isinstance(hint, str) else None,
    )
    return template, []


def template_dirs(cwd: Path, pi_tui_home: Path, extra: list[Path] | tuple[Path, ...] = ()) -> list[Path]:
    return [pi_tui_home / PROMPTS_DIR_NAME, project_config_dir(cwd) / PROMPTS_DIR_NAME, *extra]


def load_templates(directories: list[Path]) -> tuple[list[PromptTemplate], list[ResourceDiagnostic]]:
    """The `*.md` files directly in each folder (sorted), first name wins, later ones reported."""
    templates: dict[str, PromptTemplate] = {}
    diagnostics: list[ResourceDiagnostic] = []
    for directory in directories:
        try:
            names = sorted(os.listdir(directory))
        except OSError:
            continue
        for name in names:
            path = directory / name
            if not name.endswith(".md") or not path.is_file():
                continue
            template, problems = load_template_file(path)
            diagnostics.extend(problems)
            if template is None:
                continue
            winner = templates.get(template.name)
            if winner is not None:
                message = f'prompt template "/{template.name}" collision; {winner.file_path} is used'
                diagnostics.append(ResourceDiagnostic("collision", message, path, winner=winner.file_path))
                continue
            templates[template.name] = template
    return list(templates.values()), diagnostics


def expand_prompt_template(text: str, templates: list[PromptTemplate] | tuple[PromptTemplate, ...]) -> str:
    """`/name args` → the template body with arguments filled in; any other text is returned unchanged."""
    if not text.startswith("/"):
        return text
    space = text.find(" ")
    name = text[1:] if space == -1 else text[1:space]
    template = next((candidate for candidate in templates if candidate.name == name), None)
    if template is None:
        return text
    args = parse_command_args("" if space == -1 else text[space + 1 :])
    return substitute_args(template.content, args)
