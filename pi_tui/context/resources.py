"""Everything a cwd contributes to what the model sees, gathered in one place (pi's resource loader).

`load_resources(cwd)` reads settings (unless given), SYSTEM.md / APPEND_SYSTEM.md, context files, skills and
prompt templates, and returns them as a frozen `Resources` with every problem as a diagnostic: a broken
file never raises, it is reported and left out. `ResourceLoader` keeps the latest `Resources` for a cwd and
rebuilds them on `reload()` (the `/reload` command, or a session moving to another project's cwd).
"""

from __future__ import annotations

import asyncio
import datetime
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pi_tui.config.paths import pi_tui_home, shipped_path
from pi_tui.config.project_trust import UntrustedProject
from pi_tui.config.settings import Settings
from pi_tui.config.settings_files import SETTINGS_FILE_NAME, SettingsDiagnostic, load_settings
from pi_tui.context.context_files import (
    APPEND_SYSTEM_FILE_NAME,
    SYSTEM_FILE_NAME,
    ContextFile,
    PromptFile,
    discover_context_files,
    find_prompt_file,
)
from pi_tui.context.prompt_templates import (
    PromptTemplate,
    expand_prompt_template,
    load_templates,
    template_dirs,
)
from pi_tui.context.resource_diagnostics import ResourceDiagnostic
from pi_tui.context.skill_discovery import builtin_skills_dir, load_skills, skill_locations
from pi_tui.context.skills import Skill, expand_skill_command
from pi_tui.context.system_prompt import SystemPrompt, ToolPrompt, build_system_prompt

README_NAME = "README.md"


def package_readme_path() -> Path | None:
    """pi-tui's README (shipped in the wheel, or at the top of a source checkout), if present."""
    found = shipped_path(README_NAME)
    return found if found is not None and found.is_file() else None


@dataclass(frozen=True)
class Resources:
    """The resources of one cwd at one moment. Plain data: equal inputs give equal prompts."""

    cwd: Path
    settings: Settings
    custom_prompt: PromptFile | None
    append_prompt: PromptFile | None
    context_files: tuple[ContextFile, ...]
    skills: tuple[Skill, ...]
    templates: tuple[PromptTemplate, ...]
    diagnostics: tuple[ResourceDiagnostic, ...]
    settings_diagnostics: tuple[SettingsDiagnostic, ...] = ()
    untrusted_project: UntrustedProject | None = None
    """The project settings' code-running keys left out until the user trusts the project."""

    def system_prompt(
        self, *, tools: Sequence[ToolPrompt], date: datetime.date, readme_path: Path | None = None
    ) -> SystemPrompt:
        """The system prompt for these resources and the given active tools (`date`: the session's start)."""
        readme = readme_path or package_readme_path()
        return build_system_prompt(
            cwd=str(self.cwd),
            date=date,
            tools=tools,
            custom_prompt=self.custom_prompt.content if self.custom_prompt else None,
            append_prompt=self.append_prompt.content if self.append_prompt else None,
            context_files=self.context_files,
            skills=self.skills,
            readme_path=str(readme) if readme else None,
        )

    def problems(self) -> list[str]:
        """Every problem found while loading, one line each, settings first: a skill or template that was
        left out is named here (shown when a session starts and after `/reload`)."""
        return [str(problem) for problem in (*self.settings_diagnostics, *self.diagnostics)]

    def expand_input(self, text: str) -> str:
        """User text after `/skill:` expansion (when `enableSkillCommands`) and prompt-template expansion."""
        if self.settings.enable_skill_commands:
            expanded = expand_skill_command(text, self.skills)
            if expanded != text:
                return expanded
        return expand_prompt_template(text, self.templates)


def load_resources(
    cwd: str | os.PathLike[str],
    *,
    settings: Settings | None = None,
    home: Path | None = None,
    agent_home: Path | None = None,
    builtin_dir: Path | None = None,
    include_builtin: bool = True,
    context_ceiling: Path | None = None,
) -> Resources:
    """Gather every resource for `cwd`; never raises on bad files.

    `settings`: use these instead of reading the settings files. `home` replaces `~` (for `~/.agents/skills`
    and `~/` in skill paths), `agent_home` replaces `PI_TUI_HOME`; `context_ceiling` stops the ancestor
    walk for context files (tests). Built-in skills come from `builtin_dir` or the package's `skills/`.
    """
    root = Path(cwd).resolve()
    user_home = home or Path.home()
    global_dir = agent_home or pi_tui_home()
    settings_diagnostics: tuple[SettingsDiagnostic, ...] = ()
    untrusted: UntrustedProject | None = None
    if settings is None:
        loaded = load_settings(
            root, global_path=agent_home / SETTINGS_FILE_NAME if agent_home else None, trust_home=agent_home
        )
        settings, settings_diagnostics = loaded.settings, tuple(loaded.diagnostics)
        untrusted = loaded.untrusted
    diagnostics: list[ResourceDiagnostic] = []
    custom = find_prompt_file(root, global_dir, SYSTEM_FILE_NAME, diagnostics)
    append = find_prompt_file(root, global_dir, APPEND_SYSTEM_FILE_NAME, diagnostics)
    context_files = discover_context_files(root, global_dir, diagnostics, ceiling=context_ceiling)
    builtin = (builtin_dir or builtin_skills_dir()) if include_builtin else None
    locations = skill_locations(
        root, pi_tui_home=global_dir, home=user_home, extra_paths=settings.skills, builtin_dir=builtin
    )
    skills, skill_diagnostics = load_skills(locations)
    templates, template_diagnostics = load_templates(template_dirs(root, global_dir))
    return Resources(
        cwd=root,
        settings=settings,
        custom_prompt=custom,
        append_prompt=append,
        context_files=tuple(context_files),
        skills=tuple(skills),
        templates=tuple(templates),
        diagnostics=(*diagnostics, *skill_diagnostics, *template_diagnostics),
        settings_diagnostics=settings_diagnostics,
        untrusted_project=untrusted,
    )


class ResourceLoader:
    """Holds the current `Resources` of a cwd; `reload()` re-reads everything (settings included)."""

    def __init__(
        self,
        cwd: str | os.PathLike[str],
        *,
        home: Path | None = None,
        agent_home: Path | None = None,
        include_builtin: bool = True,
    ) -> None:
        self._cwd = Path(cwd)
        self._home = home
        self._agent_home = agent_home
        self._include_builtin = include_builtin
        self._resources = self.reload()

    @property
    def resources(self) -> Resources:
        return self._resources

    def reload(self) -> Resources:
        self._resources = load_resources(
            self._cwd, home=self._home, agent_home=self._agent_home, include_builtin=self._include_builtin
        )
        return self._resources

    async def areload(self) -> Resources:
        """`reload()` off the event loop (it reads many small files)."""
        resources = await asyncio.to_thread(
            load_resources,
            self._cwd,
            home=self._home,
            agent_home=self._agent_home,
            include_builtin=self._include_builtin,
        )
        self._resources = resources
        return resources
