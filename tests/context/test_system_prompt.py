"""System prompt assembly: exact text, segments that add up to it, byte stability, pi's ordering rules."""

from __future__ import annotations

import datetime
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from pi_tui.context.context_files import ContextFile
from pi_tui.context.resources import load_resources
from pi_tui.context.skills import Skill
from pi_tui.context.system_prompt import ToolPrompt, build_system_prompt, tool_guidelines

DATE = datetime.date(2026, 3, 9)
TOOLS = [
    ToolPrompt("read", "Read file contents", ["Use read to look at files, not cat or sed."]),
    ToolPrompt("bash", "Execute bash commands (ls, grep, find, etc.)"),
    ToolPrompt("edit", "Make precise file edits", ["Keep oldText minimal but unique."]),
    ToolPrompt("write", "Create or overwrite files", ["Use write only for new files or full rewrites."]),
]


def _fixture_tree(tmp_path: Path) -> tuple[Path, Path]:
    home = tmp_path / "home"
    cwd = tmp_path / "proj"
    (home / "skills" / "lint").mkdir(parents=True)
    (cwd / ".pi-tui").mkdir(parents=True)
    (home / "AGENTS.md").write_text("Always answer in English.")
    (cwd / "AGENTS.md").write_text("Run `make test` before finishing.\n")
    (cwd / ".pi-tui" / "APPEND_SYSTEM.md").write_text("Prefer small diffs.")
    (home / "skills" / "lint" / "SKILL.md").write_text(
        "---\nname: lint\ndescription: Fix lint <errors> & warnings\n---\nRun ruff.\n"
    )
    return home, cwd


def test_golden_prompt_for_a_small_tree(tmp_path: Path) -> None:
    home, cwd = _fixture_tree(tmp_path)
    resources = load_resources(
        cwd, home=tmp_path, agent_home=home, include_builtin=False, context_ceiling=tmp_path
    )

    prompt = resources.system_prompt(tools=TOOLS, date=DATE, readme_path=Path("/opt/pi-tui/README.md"))

    expected = (
        "You are pi-tui, a coding assistant working in the user's terminal. You help with software work by "
        "reading files, running commands, editing code and writing new files, and you explain what you did "
        "plainly.\n"
        "\n"
        "Available tools:\n"
        "- read: Read file contents\n"
        "- bash: Execute bash commands (ls, grep, find, etc.)\n"
        "- edit: Make precise file edits\n"
        "- write: Create or overwrite files\n"
        "\n"
        "Other tools may also be available, depending on the project.\n"
        "\n"
        "Guidelines:\n"
        "- Use bash for file operations such as ls, rg and find\n"
        "- Use read to look at files, not cat or sed.\n"
        "- Keep oldText minimal but unique.\n"
        "- Use write only for new files or full rewrites.\n"
        "- Keep your answers short\n"
        "- Name file paths clearly when you work with files\n"
        "\n"
        "pi-tui documentation (read it only when the user asks about pi-tui itself: settings, skills, prompt "
        "templates, themes, sessions, compaction or the inspector):\n"
        "- README: /opt/pi-tui/README.md\n"
        "\n"
        "Prefer small diffs.\n"
        "\n"
        "# Project Context\n"
        "\n"
        "Project-specific instructions and guidelines:\n"
        "\n"
        f"## {home}/AGENTS.md\n"
        "\n"
        "Always answer in English.\n"
        "\n"
        f"## {cwd}/AGENTS.md\n"
        "\n"
        "Run `make test` before finishing.\n"
        "\n"
        "\n"
        "\n"
        "\n"
        "The skills listed below hold detailed instructions for particular kinds of task.\n"
        "When a task fits a skill's description, load that skill's file with the read tool "
        "before you start.\n"
        "Resolve relative paths inside a skill against the skill's own folder; use absolute paths in tool "
        "calls.\n"
        "\n"
        "<available_skills>\n"
        "  <skill>\n"
        "    <name>lint</name>\n"
        "    <description>Fix lint &lt;errors&gt; &amp; warnings</description>\n"
        f"    <location>{home}/skills/lint/SKILL.md</location>\n"
        "  </skill>\n"
        "</available_skills>\n"
        "Current date: 2026-03-09\n"
        f"Current working directory: {cwd}"
    )
    assert prompt.text == expected
    assert [segment.name for segment in prompt.segments] == [
        "base",
        "tools",
        "guidelines",
        "docs",
        "append",
        "context-header",
        f"context-file:{home}/AGENTS.md",
        f"context-file:{cwd}/AGENTS.md",
        "skills",
        "date-cwd",
    ]


def test_segments_concatenate_to_the_prompt_and_builds_are_byte_identical(tmp_path: Path) -> None:
    home, cwd = _fixture_tree(tmp_path)

    def build() -> str:
        resources = load_resources(
            cwd, home=tmp_path, agent_home=home, include_builtin=False, context_ceiling=tmp_path
        )
        prompt = resources.system_prompt(tools=TOOLS, date=DATE)
        assert "".join(segment.text for segment in prompt.segments) == prompt.text
        return prompt.text

    first, second = build(), build()

    assert first.encode() == second.encode()


def test_fingerprints_change_only_for_the_edited_segment(tmp_path: Path) -> None:
    files = [ContextFile(tmp_path / "a.md", "one", 3)]
    before = build_system_prompt(cwd="/w", date=DATE, tools=TOOLS, context_files=files)
    files = [ContextFile(tmp_path / "a.md", "two", 3)]
    after = build_system_prompt(cwd="/w", date=DATE, tools=TOOLS, context_files=files)

    changed = [
        old.name
        for old, new in zip(before.segments, after.segments, strict=True)
        if old.fingerprint != new.fingerprint
    ]

    assert changed == [f"context-file:{tmp_path / 'a.md'}"]


def test_custom_prompt_replaces_the_body_but_keeps_the_rest() -> None:
    skill = Skill("s", "d", Path("/s/SKILL.md"), Path("/s"), "user")
    prompt = build_system_prompt(
        cwd="C:\\work\\proj",
        date=DATE,
        tools=TOOLS,
        custom_prompt="You are a pirate.",
        append_prompt="Arr.",
        skills=[skill],
    )

    assert prompt.text.startswith("You are a pirate.\n\nArr.\n\nThe skills listed below")
    assert "Available tools" not in prompt.text
    assert [segment.kind for segment in prompt.segments] == ["custom", "append", "skills", "date-cwd"]
    assert prompt.text.endswith("\nCurrent date: 2026-03-09\nCurrent working directory: C:/work/proj")


def test_skills_need_the_read_tool_and_an_invocable_skill() -> None:
    hidden = Skill("h", "d", Path("/h/SKILL.md"), Path("/h"), "user", disable_model_invocation=True)
    visible = Skill("v", "d", Path("/v/SKILL.md"), Path("/v"), "user")
    no_read = [tool for tool in TOOLS if tool.name != "read"]

    assert build_system_prompt(cwd="/", date=DATE, tools=no_read, skills=[visible]).segment("skills") is None
    assert build_system_prompt(cwd="/", date=DATE, tools=TOOLS, skills=[hidden]).segment("skills") is None
    shown = build_system_prompt(cwd="/", date=DATE, tools=TOOLS, skills=[hidden, visible]).segment("skills")
    assert shown is not None and "<name>v</name>" in shown.text and "<name>h</name>" not in shown.text


def test_tools_without_snippets_are_not_listed_and_none_says_none() -> None:
    tools = [ToolPrompt("secret", None), ToolPrompt("ls", "List directory contents")]

    listed = build_system_prompt(cwd="/", date=DATE, tools=tools).segment("tools")
    empty = build_system_prompt(cwd="/", date=DATE, tools=[]).segment("tools")

    assert (
        listed is not None and "- ls: List directory contents" in listed.text and "secret" not in listed.text
    )
    assert empty is not None and "Available tools:\n(none)\n" in empty.text


def test_guideline_rules_follow_the_active_tools() -> None:
    bash = ToolPrompt("bash", "x")
    grep = ToolPrompt("grep", "y", ["Shared rule"])
    edit = ToolPrompt("edit", "z", ["Shared rule"])

    only_bash = tool_guidelines([bash])
    with_grep = tool_guidelines([bash, grep, edit])
    without_bash = tool_guidelines([grep])

    assert only_bash[0].startswith("Use bash for file operations")
    assert with_grep[0].startswith("Prefer the grep/find/ls tools")
    assert with_grep.count("Shared rule") == 1
    assert not any("bash" in rule for rule in without_bash)
    assert with_grep[-2:] == ["Keep your answers short", "Name file paths clearly when you work with files"]


def test_no_docs_segment_without_a_readme() -> None:
    prompt = build_system_prompt(cwd="/", date=DATE, tools=TOOLS)

    assert prompt.segment("docs") is None
    assert "documentation" not in prompt.text


@given(
    custom=st.none() | st.text(max_size=30),
    append=st.none() | st.text(max_size=30),
    contents=st.lists(st.text(max_size=20), max_size=3),
    tool_names=st.lists(st.sampled_from(["read", "bash", "grep", "edit", "x"]), unique=True),
)
def test_segments_always_add_up_to_the_prompt(
    custom: str | None, append: str | None, contents: list[str], tool_names: list[str]
) -> None:
    files = [
        ContextFile(Path(f"/p{index}/AGENTS.md"), text, len(text)) for index, text in enumerate(contents)
    ]
    tools = [ToolPrompt(name, f"{name} snippet", [f"{name} rule"]) for name in tool_names]
    skills = [Skill("s", "d", Path("/s/SKILL.md"), Path("/s"), "user")]

    def build() -> tuple[str, str]:
        prompt = build_system_prompt(
            cwd="/w",
            date=DATE,
            tools=tools,
            custom_prompt=custom,
            append_prompt=append,
            context_files=files,
            skills=skills,
            readme_path="/r",
        )
        return prompt.text, "".join(segment.text for segment in prompt.segments)

    first, joined = build()
    assert first == joined
    assert build()[0] == first
    names = [segment.name for segment in build_system_prompt(cwd="/w", date=DATE, tools=tools).segments]
    assert len(names) == len(set(names))
