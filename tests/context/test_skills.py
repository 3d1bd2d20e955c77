"""One skill file: validation as pi, the prompt index with XML escaping, `/skill:` expansion."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_tui.context.skills import (
    Skill,
    escape_xml,
    expand_skill_command,
    format_skills_block,
    load_skill_file,
)


def _skill_file(tmp_path: Path, folder: str, text: str) -> Path:
    path = tmp_path / folder / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_valid_skill_loads_without_warnings(tmp_path: Path) -> None:
    path = _skill_file(
        tmp_path, "pdf-tools", "---\nname: pdf-tools\ndescription: Work with PDFs\n---\nBody\n"
    )

    skill, diagnostics = load_skill_file(path, "user")

    assert diagnostics == []
    assert skill == Skill("pdf-tools", "Work with PDFs", path, path.parent, "user", False)


def test_name_defaults_to_the_folder(tmp_path: Path) -> None:
    path = _skill_file(tmp_path, "deploy", "---\ndescription: Ship it\n---\n")

    skill, diagnostics = load_skill_file(path, "project")

    assert skill is not None and skill.name == "deploy"
    assert diagnostics == []


@pytest.mark.parametrize(
    "front", ["", "---\nname: x\n---\n", "---\ndescription: '   '\n---\n", "---\ndescription: true\n---\n"]
)
def test_missing_description_skips_the_skill_with_a_warning(tmp_path: Path, front: str) -> None:
    path = _skill_file(tmp_path, "x", front + "Body")

    skill, diagnostics = load_skill_file(path, "user")

    assert skill is None
    assert any("description is required" in d.message for d in diagnostics)


def test_name_and_length_problems_warn_but_load(tmp_path: Path) -> None:
    long_description = "d" * 1025
    path = _skill_file(
        tmp_path, "folder", f"---\nname: -Bad--Name-\ndescription: {long_description}\nextra: 1\n---\n"
    )

    skill, diagnostics = load_skill_file(path, "user")

    messages = [d.message for d in diagnostics]
    assert skill is not None and skill.name == "-Bad--Name-"
    assert all(d.kind == "warning" for d in diagnostics)
    assert 'unknown frontmatter field "extra"' in messages
    assert "description exceeds 1024 characters (1025)" in messages
    assert 'name "-Bad--Name-" does not match parent directory "folder"' in messages
    assert any("invalid characters" in m for m in messages)
    assert "name must not start or end with a hyphen" in messages
    assert "name must not contain consecutive hyphens" in messages


def test_too_long_name_warns(tmp_path: Path) -> None:
    name = "a" * 65
    path = _skill_file(tmp_path, name, "---\ndescription: d\n---\n")

    _, diagnostics = load_skill_file(path, "user")

    assert [d.message for d in diagnostics] == ["name exceeds 64 characters (65)"]


def test_broken_yaml_is_an_error_and_the_skill_is_skipped(tmp_path: Path) -> None:
    path = _skill_file(tmp_path, "x", "---\nname: x\ndescription: Use when: always\n---\n")

    skill, [diagnostic] = load_skill_file(path, "user")

    assert skill is None
    assert diagnostic.kind == "error" and diagnostic.line == 3
    assert diagnostic.message.startswith("invalid frontmatter")


def test_disable_model_invocation(tmp_path: Path) -> None:
    path = _skill_file(tmp_path, "x", "---\ndescription: d\ndisable-model-invocation: true\n---\n")

    skill, _ = load_skill_file(path, "user")

    assert skill is not None and skill.disable_model_invocation


def test_xml_escaping_covers_the_five_characters() -> None:
    assert escape_xml("a & b < c > d \" e ' f") == "a &amp; b &lt; c &gt; d &quot; e &apos; f"


def test_prompt_block_format() -> None:
    skill = Skill("a&b", "Use <it> for \"x\" 'y'", Path("/s/a&b/SKILL.md"), Path("/s/a&b"), "user")

    block = format_skills_block([skill])

    assert block.startswith("\n\n")
    lines = block.split("\n")
    assert lines[2:5] == [
        "The skills listed below hold detailed instructions for particular kinds of task.",
        "When a task fits a skill's description, load that skill's file with the read tool before you start.",
        "Resolve relative paths inside a skill against the skill's own folder; "
        "use absolute paths in tool calls.",
    ]
    assert lines[5:] == [
        "",
        "<available_skills>",
        "  <skill>",
        "    <name>a&amp;b</name>",
        "    <description>Use &lt;it&gt; for &quot;x&quot; &apos;y&apos;</description>",
        "    <location>/s/a&amp;b/SKILL.md</location>",
        "  </skill>",
        "</available_skills>",
    ]
    assert format_skills_block([]) == ""


def test_skill_command_expansion_with_and_without_args(tmp_path: Path) -> None:
    path = _skill_file(
        tmp_path, "review", "---\ndescription: Review code\n---\n\n  Check tests.\nThen style.\n\n"
    )
    skill, _ = load_skill_file(path, "user")
    assert skill is not None
    header = f'<skill name="review" location="{path}">\nReferences are relative to {path.parent}.\n\n'

    assert expand_skill_command("/skill:review", [skill]) == header + "Check tests.\nThen style.\n</skill>"
    assert (
        expand_skill_command("/skill:review  src/app.py  please ", [skill])
        == header + "Check tests.\nThen style.\n</skill>\n\nsrc/app.py  please"
    )


def test_skill_command_reads_the_file_at_expansion_time(tmp_path: Path) -> None:
    path = _skill_file(tmp_path, "x", "---\ndescription: d\n---\nold\n")
    skill, _ = load_skill_file(path, "user")
    assert skill is not None
    path.write_text("---\ndescription: d\n---\nnew\n")

    assert "\nnew\n</skill>" in expand_skill_command("/skill:x", [skill])


def test_unknown_skill_or_plain_text_passes_through(tmp_path: Path) -> None:
    path = _skill_file(tmp_path, "x", "---\ndescription: d\n---\n")
    skill, _ = load_skill_file(path, "user")
    assert skill is not None

    assert expand_skill_command("/skill:nope args", [skill]) == "/skill:nope args"
    assert expand_skill_command("hello /skill:x", [skill]) == "hello /skill:x"
    path.unlink()
    assert expand_skill_command("/skill:x", [skill]) == "/skill:x"
