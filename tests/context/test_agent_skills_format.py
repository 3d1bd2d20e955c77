"""Real SKILL.md files of the Agent Skills format (tests/fixtures/skills/): folded and literal descriptions,
multi-line quoted values, `allowed-tools` lists, `metadata` maps with lists of maps. Each valid one loads
with its full description; a broken one is reported by its name (where the user reads that:
`tests/modes/test_print_mode_skills.py`, `/reload` in `tests/tui/test_chat_commands.py`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_tui.context.frontmatter import parse_frontmatter
from pi_tui.context.skill_discovery import SkillLocation, load_skills
from pi_tui.context.skills import load_skill_file

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "skills"
VALID = ("api-client-update", "release-notes", "sql-review")


@pytest.mark.parametrize("name", VALID)
def test_each_valid_fixture_loads_without_diagnostics(name: str) -> None:
    path = FIXTURES / name / "SKILL.md"

    skill, diagnostics = load_skill_file(path, "path")

    assert diagnostics == []
    assert skill is not None and skill.name == name


def test_folded_description_and_block_lists() -> None:
    fields = parse_frontmatter((FIXTURES / "release-notes" / "SKILL.md").read_text()).fields

    assert fields["description"] == (
        "Draft release notes from the merged pull requests since the last tag. Use when the user asks for"
        " a changelog, release notes or a summary of what changed between two versions.\n"
    )
    assert fields["allowed-tools"] == ["Read", "Bash(git log:*)", "Bash(git tag:*)"]
    assert fields["metadata"] == {
        "author": "docs-team",
        "version": "2.1",
        "reviewed": "2025-03-14",
        "audiences": ["maintainers", "users"],
    }


def test_literal_description_and_flow_collections() -> None:
    fields = parse_frontmatter((FIXTURES / "sql-review" / "SKILL.md").read_text()).fields

    assert fields["description"] == (
        "Review SQL migrations before they run in production.\n"
        "Checks: locking statements on large tables, missing indexes on new\n"
        "foreign keys, and irreversible data changes.\n"
    )
    assert fields["allowed-tools"] == ["Read", "Grep", "Bash(psql:*)"]
    assert fields["metadata"] == {"owner": "data-platform", "tier": 1, "on-call": True}
    assert fields["disable-model-invocation"] is False


def test_multi_line_quoted_description_and_lists_of_maps() -> None:
    fields = parse_frontmatter((FIXTURES / "api-client-update" / "SKILL.md").read_text()).fields

    description = fields["description"]
    assert isinstance(description, str)
    assert description.startswith("Regenerate the typed API client after the OpenAPI document changed, then")
    assert description.endswith("the user mentions: openapi.yaml, the generated client, or 'schema drift'.")
    metadata = fields["metadata"]
    assert isinstance(metadata, dict)
    assert metadata["generators"] == [
        {"name": "openapi-generator", "version": "7.4.0"},
        {"name": "datamodel-codegen", "flags": ["--use-annotated", "--strict-nullable"]},
    ]
    assert metadata["reviewers"] == ["api-team", "sdk-team"]


def test_the_fixture_folder_loads_every_valid_skill_and_names_the_broken_one() -> None:
    skills, diagnostics = load_skills([SkillLocation(FIXTURES, "agents", "path")])

    assert sorted(skill.name for skill in skills) == sorted(VALID)
    [problem] = diagnostics
    assert problem.kind == "error" and problem.line == 6
    assert problem.path == FIXTURES / "broken-indentation" / "SKILL.md"
    assert 'skill "broken-indentation" not loaded' in str(problem)
