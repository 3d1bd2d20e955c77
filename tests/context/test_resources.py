"""The resource loader: everything for a cwd, with diagnostics instead of exceptions, and reload."""

from __future__ import annotations

import datetime
import json
from pathlib import Path

from pi_tui.config.settings import Settings
from pi_tui.context.resources import ResourceLoader, load_resources, package_readme_path
from pi_tui.context.system_prompt import ToolPrompt

READ = [ToolPrompt("read", "Read file contents")]


def _dirs(tmp_path: Path) -> tuple[Path, Path]:
    home = tmp_path / "agent"
    cwd = tmp_path / "proj"
    home.mkdir()
    (cwd / ".pi-tui").mkdir(parents=True)
    return home, cwd


def test_gathers_every_kind_of_resource(tmp_path: Path) -> None:
    home, cwd = _dirs(tmp_path)
    (home / "SYSTEM.md").write_text("Custom body.")
    (cwd / ".pi-tui" / "APPEND_SYSTEM.md").write_text("Appended.")
    (cwd / "AGENTS.md").write_text("rules")
    (home / "skills" / "fmt").mkdir(parents=True)
    (home / "skills" / "fmt" / "SKILL.md").write_text(
        "---\ndescription: Format code\n---\nRun the formatter.\n"
    )
    (home / "prompts").mkdir()
    (home / "prompts" / "hi.md").write_text("Hello $1")

    resources = load_resources(
        cwd, home=tmp_path, agent_home=home, include_builtin=False, context_ceiling=tmp_path
    )

    assert resources.cwd == cwd.resolve()
    assert resources.custom_prompt is not None and resources.custom_prompt.content == "Custom body."
    assert resources.append_prompt is not None and resources.append_prompt.content == "Appended."
    assert [f.content for f in resources.context_files] == ["rules"]
    assert [s.name for s in resources.skills] == ["fmt"]
    assert [t.name for t in resources.templates] == ["hi"]
    assert resources.diagnostics == ()
    text = resources.system_prompt(tools=READ, date=datetime.date(2026, 1, 2)).text
    assert text.startswith("Custom body.\n\nAppended.\n\n# Project Context")
    assert "<name>fmt</name>" in text


def test_bad_files_become_diagnostics_never_exceptions(tmp_path: Path) -> None:
    home, cwd = _dirs(tmp_path)
    (home / "settings.json").write_text('{"theme": ')
    (cwd / "AGENTS.md").write_text("x" * (5 * 1024 * 1024))
    (home / "skills" / "broken").mkdir(parents=True)
    (home / "skills" / "broken" / "SKILL.md").write_text("---\ndescription: a: b\n---\n")
    (home / "prompts").mkdir()
    (home / "prompts" / "bad.md").write_text("---\nunclosed: 'x\n---\n")

    resources = load_resources(
        cwd, home=tmp_path, agent_home=home, include_builtin=False, context_ceiling=tmp_path
    )

    assert [d.line for d in resources.settings_diagnostics] == [1]
    assert resources.settings == Settings()
    by_kind = {d.kind: d for d in resources.diagnostics}
    assert by_kind["large"].size == 5 * 1024 * 1024
    assert by_kind["large"].path == cwd.resolve() / "AGENTS.md"
    errors = sorted(str(d.path) for d in resources.diagnostics if d.kind == "error")
    assert errors == sorted([str(home / "skills" / "broken" / "SKILL.md"), str(home / "prompts" / "bad.md")])
    assert resources.skills == () and resources.templates == ()
    assert len(resources.context_files[0].content) == 5 * 1024 * 1024


def test_settings_skill_paths_and_builtin_skills(tmp_path: Path) -> None:
    home, cwd = _dirs(tmp_path)
    extra = tmp_path / "extra" / "mine"
    extra.mkdir(parents=True)
    (extra / "SKILL.md").write_text("---\ndescription: Mine\n---\n")
    (cwd / ".pi-tui" / "settings.json").write_text(json.dumps({"skills": ["../extra"]}))

    resources = load_resources(cwd, home=tmp_path, agent_home=home, context_ceiling=tmp_path)

    names = [s.name for s in resources.skills]
    assert names[0] == "mine"
    assert resources.skills[0].file_path == extra / "SKILL.md"  # "../extra" normalised
    assert {"context-budget", "git-commit"} <= set(names)  # built-ins come last
    assert resources.skills[-1].source == "builtin"


def test_expand_input_runs_skills_then_templates(tmp_path: Path) -> None:
    home, cwd = _dirs(tmp_path)
    (home / "skills" / "fmt").mkdir(parents=True)
    (home / "skills" / "fmt" / "SKILL.md").write_text("---\ndescription: Format\n---\nUse ruff.\n")
    (home / "prompts").mkdir()
    (home / "prompts" / "go.md").write_text("Go to $1")
    kwargs = {"home": tmp_path, "agent_home": home, "include_builtin": False, "context_ceiling": tmp_path}

    enabled = load_resources(cwd, **kwargs)  # type: ignore[arg-type]
    disabled = load_resources(cwd, settings=Settings(enable_skill_commands=False), **kwargs)  # type: ignore[arg-type]

    assert enabled.expand_input("/skill:fmt now").endswith("Use ruff.\n</skill>\n\nnow")
    assert enabled.expand_input("/go home") == "Go to home"
    assert enabled.expand_input("plain") == "plain"
    assert disabled.expand_input("/skill:fmt now") == "/skill:fmt now"


async def test_loader_reload_picks_up_changes(tmp_path: Path) -> None:
    home, cwd = _dirs(tmp_path)
    loader = ResourceLoader(cwd, home=tmp_path, agent_home=home, include_builtin=False)
    assert loader.resources.templates == ()

    (home / "prompts").mkdir()
    (home / "prompts" / "new.md").write_text("New")
    assert loader.resources.templates == ()  # nothing changes until a reload
    assert [t.name for t in loader.reload().templates] == ["new"]

    (home / "settings.json").write_text(json.dumps({"theme": "light"}))
    resources = await loader.areload()
    assert resources.settings.theme == "light"
    assert loader.resources is resources


def test_package_readme_is_found_in_a_checkout() -> None:
    readme = package_readme_path()

    assert readme is not None and readme.name == "README.md" and readme.is_file()


def test_a_missing_cwd_loads_empty_resources(tmp_path: Path) -> None:
    home, _ = _dirs(tmp_path)
    gone = tmp_path / "deleted" / "project"

    resources = load_resources(
        gone, home=tmp_path, agent_home=home, include_builtin=False, context_ceiling=tmp_path
    )

    assert resources.diagnostics == () and resources.settings_diagnostics == ()
    assert resources.context_files == () and resources.skills == () and resources.templates == ()
    assert resources.system_prompt(tools=READ, date=datetime.date(2026, 1, 2)).text.endswith(
        f"Current working directory: {gone}"
    )
