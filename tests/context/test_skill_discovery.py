"""Skill discovery: locations and precedence, scan rules, .gitignore, collisions, the built-in skills."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pi_tui.context.skill_discovery import SkillLocation, builtin_skills_dir, load_skills, skill_locations


def _skill(folder: Path, name: str | None = None, description: str = "does things") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    front = f"name: {name}\n" if name else ""
    path = folder / "SKILL.md"
    path.write_text(f"---\n{front}description: {description}\n---\nBody of {folder.name}\n")
    return path


@pytest.fixture
def layout(tmp_path: Path) -> dict[str, Path]:
    repo = tmp_path / "repo"
    cwd = repo / "sub"
    cwd.mkdir(parents=True)
    (repo / ".git").mkdir()
    return {"tmp": tmp_path, "repo": repo, "cwd": cwd, "home": tmp_path / "home", "agent": tmp_path / "agent"}


def _locations(
    layout: dict[str, Path], extra: tuple[str, ...] = (), builtin: Path | None = None
) -> list[SkillLocation]:
    return skill_locations(
        layout["cwd"],
        pi_tui_home=layout["agent"],
        home=layout["home"],
        extra_paths=extra,
        builtin_dir=builtin,
    )


def test_locations_in_precedence_order(layout: dict[str, Path]) -> None:
    cwd, repo, home, agent = layout["cwd"], layout["repo"], layout["home"], layout["agent"]

    locations = _locations(layout, extra=("~/mine", "rel/dir", "/abs/dir"), builtin=Path("/builtin"))

    assert [(loc.path, loc.mode, loc.source) for loc in locations] == [
        (cwd / ".pi-tui" / "skills", "pi", "project"),
        (cwd / ".agents" / "skills", "agents", "project"),
        (repo / ".agents" / "skills", "agents", "project"),  # stops at the git root
        (agent / "skills", "pi", "user"),
        (home / ".agents" / "skills", "agents", "user"),
        (home / "mine", "pi", "path"),
        (cwd / "rel" / "dir", "pi", "path"),
        (Path("/abs/dir"), "pi", "path"),
        (Path("/builtin"), "agents", "builtin"),
    ]


def test_first_location_wins_and_collisions_are_reported(layout: dict[str, Path]) -> None:
    project = _skill(layout["cwd"] / ".pi-tui" / "skills" / "fmt", description="project fmt")
    user = _skill(layout["agent"] / "skills" / "fmt", description="user fmt")
    _skill(layout["repo"] / ".agents" / "skills" / "lint")

    skills, diagnostics = load_skills(_locations(layout))

    assert [(s.name, s.description, s.source) for s in skills] == [
        ("fmt", "project fmt", "project"),
        ("lint", "does things", "project"),
    ]
    [collision] = [d for d in diagnostics if d.kind == "collision"]
    assert collision.path == user and collision.winner == project


def test_same_file_through_a_symlink_is_deduplicated_silently(layout: dict[str, Path]) -> None:
    real = _skill(layout["tmp"] / "shared" / "fmt")
    (layout["agent"] / "skills").mkdir(parents=True)
    os.symlink(real.parent, layout["agent"] / "skills" / "fmt")
    (layout["home"] / ".agents" / "skills").mkdir(parents=True)
    os.symlink(real.parent, layout["home"] / ".agents" / "skills" / "fmt")

    skills, diagnostics = load_skills(_locations(layout))

    assert [s.name for s in skills] == ["fmt"]
    assert diagnostics == []


def test_pi_mode_takes_top_level_markdown_agents_mode_does_not(layout: dict[str, Path]) -> None:
    pi_dir = layout["cwd"] / ".pi-tui" / "skills"
    pi_dir.mkdir(parents=True)
    (pi_dir / "quick.md").write_text("---\nname: quick\ndescription: a loose file\n---\n")
    agents_dir = layout["cwd"] / ".agents" / "skills"
    agents_dir.mkdir(parents=True)
    (agents_dir / "loose.md").write_text("---\nname: loose\ndescription: ignored here\n---\n")

    skills, _ = load_skills(_locations(layout))

    assert [s.name for s in skills] == ["quick"]


def test_skill_root_stops_recursion_and_nested_folders_are_found(layout: dict[str, Path]) -> None:
    top = layout["agent"] / "skills"
    _skill(top / "outer")
    _skill(top / "outer" / "inner")  # below a skill root: not a separate skill
    _skill(top / "group" / "deep" / "nested")
    (top / "group" / "notes.md").write_text("---\ndescription: not at the top\n---\n")

    skills, _ = load_skills(_locations(layout))

    assert sorted(s.name for s in skills) == ["nested", "outer"]


def test_dot_entries_node_modules_and_gitignored_paths_are_skipped(layout: dict[str, Path]) -> None:
    top = layout["agent"] / "skills"
    _skill(top / ".hidden")
    _skill(top / "node_modules" / "pkg")
    _skill(top / "drafts" / "wip")
    _skill(top / "kept")
    (top / "scratch.md").write_text("---\ndescription: scratch\n---\n")
    (top / ".gitignore").write_text("drafts/\nscratch.md\n")

    skills, _ = load_skills(_locations(layout))

    assert [s.name for s in skills] == ["kept"]


def test_nested_gitignore_applies_below_its_folder(layout: dict[str, Path]) -> None:
    top = layout["agent"] / "skills"
    _skill(top / "group" / "private")
    _skill(top / "group" / "public")
    (top / "group" / ".ignore").write_text("private\n")

    skills, _ = load_skills(_locations(layout))

    assert [s.name for s in skills] == ["public"]


def test_settings_paths_accept_files_and_report_missing_ones(layout: dict[str, Path]) -> None:
    single = layout["tmp"] / "one" / "solo.md"
    single.parent.mkdir()
    single.write_text("---\nname: solo\ndescription: a single file\n---\n")
    text_file = layout["tmp"] / "notes.txt"
    text_file.write_text("x")

    skills, diagnostics = load_skills(_locations(layout, extra=(str(single), "/no/such/dir", str(text_file))))

    assert [s.name for s in skills] == ["solo"]
    messages = {(d.path, d.message) for d in diagnostics if d.kind == "warning"}
    assert (Path("/no/such/dir"), "skill path does not exist") in messages
    assert (text_file, "skill path is not a markdown file") in messages


def test_broken_skill_is_skipped_and_the_rest_load(layout: dict[str, Path]) -> None:
    top = layout["agent"] / "skills"
    _skill(top / "good")
    broken = top / "bad" / "SKILL.md"
    broken.parent.mkdir(parents=True)
    broken.write_text("---\ndescription: [unclosed\n---\n")

    skills, diagnostics = load_skills(_locations(layout))

    assert [s.name for s in skills] == ["good"]
    assert [(d.kind, d.path, d.line) for d in diagnostics] == [("error", broken, 2)]


def test_builtin_skills_ship_and_load_cleanly() -> None:
    directory = builtin_skills_dir()
    assert directory is not None

    skills, diagnostics = load_skills([SkillLocation(directory, "agents", "builtin")])

    names = {s.name for s in skills}
    assert {"context-budget", "git-commit"} <= names
    assert diagnostics == []
    for skill in skills:
        assert skill.source == "builtin"
        assert len(skill.description) > 40
        assert len(skill.file_path.read_text()) > 1000  # a real body, not a stub
