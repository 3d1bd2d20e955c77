"""Where skills are found and in which order, as pi; the first skill of a name wins.

Order (highest precedence first): `<cwd>/.pi-tui/skills/`; `.agents/skills/` in the cwd and each ancestor up
to the git root (the file system root outside a repository), nearest first; `PI_TUI_HOME/skills/`;
`~/.agents/skills/`; the settings' `skills` paths; the built-in skills shipped with pi-tui.

Folder scan: a folder holding `SKILL.md` is a skill (nothing below it is scanned); otherwise its
sub-folders are scanned, skipping dot-entries, `node_modules` and ignored paths. In "pi" mode `.md` files
directly in the top folder are skills too; "agents" mode only accepts `SKILL.md`. Entries are visited in
sorted order, so the same tree always yields the same list (and the same system prompt).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pi_tui.config.paths import project_config_dir, shipped_path
from pi_tui.config.project_files.git_root import git_root
from pi_tui.config.project_files.ignore_rules import IgnoreRules
from pi_tui.context.resource_diagnostics import ResourceDiagnostic
from pi_tui.context.skills import SKILL_FILE_NAME, Skill, SkillSource, load_skill_file

ScanMode = Literal["pi", "agents"]

SKILLS_DIR_NAME = "skills"
AGENTS_DIR_NAME = ".agents"
SKIPPED_DIR_NAMES = frozenset({"node_modules"})


@dataclass(frozen=True)
class SkillLocation:
    path: Path
    mode: ScanMode
    source: SkillSource


def builtin_skills_dir() -> Path | None:
    """The skills pi-tui ships (the repository's `skills/`, packaged into the wheel), when they are there."""
    found = shipped_path(SKILLS_DIR_NAME)
    return found if found is not None and found.is_dir() else None


def _agents_dirs(cwd: Path) -> list[Path]:
    """`.agents/skills` in cwd and each ancestor up to the git root, nearest first."""
    stop = git_root(cwd)
    found = []
    for directory in (cwd, *cwd.parents):
        found.append(directory / AGENTS_DIR_NAME / SKILLS_DIR_NAME)
        if directory == stop:
            break
    return found


def _expand_user(raw: str, home: Path) -> Path:
    text = raw.strip()
    if text == "~":
        return home
    if text.startswith("~/"):
        return home / text[2:]
    return Path(text)


def skill_locations(
    cwd: Path,
    *,
    pi_tui_home: Path,
    home: Path,
    extra_paths: list[str] | tuple[str, ...] = (),
    builtin_dir: Path | None = None,
) -> list[SkillLocation]:
    """Every place skills may come from for `cwd`, in precedence order."""
    locations = [SkillLocation(project_config_dir(cwd) / SKILLS_DIR_NAME, "pi", "project")]
    locations += [SkillLocation(path, "agents", "project") for path in _agents_dirs(cwd)]
    locations.append(SkillLocation(pi_tui_home / SKILLS_DIR_NAME, "pi", "user"))
    locations.append(SkillLocation(home / AGENTS_DIR_NAME / SKILLS_DIR_NAME, "agents", "user"))
    for raw in extra_paths:
        path = _expand_user(raw, home)
        absolute = Path(os.path.normpath(path if path.is_absolute() else cwd / path))
        locations.append(SkillLocation(absolute, "pi", "path"))
    if builtin_dir is not None:
        locations.append(SkillLocation(builtin_dir, "agents", "builtin"))
    return locations


def _scan(
    directory: Path,
    location: SkillLocation,
    top: bool,
    rules: IgnoreRules,
    visited: set[Path],
    found: list[Skill],
    diagnostics: list[ResourceDiagnostic],
) -> None:
    real = directory.resolve()
    if real in visited:  # a symlink cycle
        return
    visited.add(real)
    if (directory / SKILL_FILE_NAME).is_file():
        skill, problems = load_skill_file(directory / SKILL_FILE_NAME, location.source)
        diagnostics.extend(problems)
        if skill is not None:
            found.append(skill)
        return
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return
    rules = rules.entering(directory)
    for name in names:
        if name.startswith(".") or name in SKIPPED_DIR_NAMES:
            continue
        path = directory / name
        is_dir = path.is_dir()
        if rules.ignores(path, is_dir):
            continue
        if is_dir:
            _scan(path, location, False, rules, visited, found, diagnostics)
        elif top and location.mode == "pi" and name.endswith(".md") and path.is_file():
            skill, problems = load_skill_file(path, location.source)
            diagnostics.extend(problems)
            if skill is not None:
                found.append(skill)


def load_skills(locations: list[SkillLocation]) -> tuple[list[Skill], list[ResourceDiagnostic]]:
    """All skills from `locations`; later skills with a taken name are reported as collisions."""
    skills: dict[str, Skill] = {}
    real_paths: set[Path] = set()
    diagnostics: list[ResourceDiagnostic] = []
    collisions: list[ResourceDiagnostic] = []
    for location in locations:
        found: list[Skill] = []
        path = location.path
        if path.is_dir():
            _scan(path, location, True, IgnoreRules(), set(), found, diagnostics)
        elif location.source == "path" and path.is_file() and path.suffix == ".md":
            skill, problems = load_skill_file(path, location.source)
            diagnostics.extend(problems)
            if skill is not None:
                found.append(skill)
        elif location.source == "path":
            reason = "skill path does not exist" if not path.exists() else "skill path is not a markdown file"
            diagnostics.append(ResourceDiagnostic("warning", reason, path))
        for skill in found:
            real = skill.file_path.resolve()
            if real in real_paths:
                continue
            winner = skills.get(skill.name)
            if winner is not None:
                message = f'name "{skill.name}" collision; {winner.file_path} is used'
                collisions.append(
                    ResourceDiagnostic("collision", message, skill.file_path, winner=winner.file_path)
                )
                continue
            skills[skill.name] = skill
            real_paths.add(real)
    return list(skills.values()), diagnostics + collisions
