"""Frontmatter as YAML 1.2 (core schema): what is accepted, and that anything else is an error with a line."""

from __future__ import annotations

import pytest

from pi_tui.context.frontmatter import FrontmatterError, parse_frontmatter, strip_frontmatter


def test_no_frontmatter_is_all_body() -> None:
    parsed = parse_frontmatter("# Title\n\ntext")

    assert parsed.fields == {} and not parsed.has_frontmatter
    assert parsed.body == "# Title\n\ntext"


def test_scalars_quotes_booleans_and_numbers() -> None:
    text = (
        "---\n"
        "name: my-skill\n"
        'description: "Say \\"hi\\" & more"  # comment\n'
        "single: 'it''s'\n"
        "flag: true\n"
        "off: False\n"
        "count: 42\n"
        "nothing: ~\n"
        "plain: value # trailing comment\n"
        "tools: [read, bash]\n"
        "---\n"
        "Body\n"
    )

    parsed = parse_frontmatter(text)

    assert parsed.fields == {
        "name": "my-skill",
        "description": 'Say "hi" & more',
        "single": "it's",
        "flag": True,
        "off": False,
        "count": 42,
        "nothing": None,
        "plain": "value",
        "tools": ["read", "bash"],
    }
    assert parsed.body == "Body\n"


def test_block_scalars_literal_and_folded() -> None:
    text = (
        "---\n"
        "literal: |\n"
        "  line one\n"
        "    indented\n"
        "\n"
        "  after blank\n"
        "folded: >-\n"
        "  joined\n"
        "  together\n"
        "\n"
        "  new paragraph\n"
        "---\n"
    )

    fields = parse_frontmatter(text).fields

    assert fields["literal"] == "line one\n  indented\n\nafter blank\n"
    assert fields["folded"] == "joined together\nnew paragraph"


def test_plain_value_continued_on_indented_lines() -> None:
    text = "---\ndescription: Use this skill when\n  the task is long\n\n  new line\nname: x\n---\n"

    fields = parse_frontmatter(text).fields

    assert fields == {"description": "Use this skill when the task is long\nnew line", "name": "x"}


def test_nested_mapping_and_list() -> None:
    text = "---\nmetadata:\n  author: me\n  version: 2\nallowed-tools:\n  - read\n  - bash\n---\n"

    fields = parse_frontmatter(text).fields

    assert fields["metadata"] == {"author": "me", "version": 2}
    assert fields["allowed-tools"] == ["read", "bash"]


def test_crlf_and_bom_are_tolerated() -> None:
    parsed = parse_frontmatter("\ufeff---\r\nname: x\r\n---\r\nbody\r\n")

    assert parsed.fields == {"name": "x"}
    assert parsed.body == "body\n"


def test_yaml_that_a_line_based_subset_rejected() -> None:
    text = (
        "---\n"
        "quoted: 'x\n"
        "  more'\n"
        'double: "one\n'
        '  two"\n'
        "metadata: {a: 1, b: [x, y]}\n"
        "steps:\n"
        "  - name: lint\n"
        "    run: [ruff, mypy]\n"
        "  - name: test\n"
        "anchor: &shared value\n"
        "alias: *shared\n"
        "ratio: 1.5\n"
        "---\n"
    )

    fields = parse_frontmatter(text).fields

    assert fields == {
        "quoted": "x more",
        "double": "one two",
        "metadata": {"a": 1, "b": ["x", "y"]},
        "steps": [{"name": "lint", "run": ["ruff", "mypy"]}, {"name": "test"}],
        "anchor": "value",
        "alias": "value",
        "ratio": 1.5,
    }


def test_core_schema_only_dates_stay_strings_and_keys_become_strings() -> None:
    """YAML 1.2 has no timestamps and no yes/no booleans; keys as pi's JavaScript objects hold them."""
    text = "---\nreviewed: 2025-03-14\nanswer: yes\nmap: {2: two, false: f, null: n}\n---\n"

    fields = parse_frontmatter(text).fields

    assert fields == {
        "reviewed": "2025-03-14",
        "answer": "yes",
        "map": {"2": "two", "false": "f", "null": "n"},
    }


def test_empty_frontmatter_has_no_fields() -> None:
    parsed = parse_frontmatter("---\n---\nbody")

    assert parsed.fields == {} and parsed.has_frontmatter and parsed.body == "body"


def test_shared_aliases_are_converted_once() -> None:
    """Ten levels of nine aliases name 9**10 values; they are read as shared values, not copied out."""
    levels = ["l0: &l0 [x, x, x, x, x, x, x, x, x]"]
    levels += [f"l{n}: &l{n} [{', '.join([f'*l{n - 1}'] * 9)}]" for n in range(1, 10)]

    fields = parse_frontmatter("---\n" + "\n".join(levels) + "\n---\n").fields

    level = fields["l9"]
    for _ in range(9):
        assert isinstance(level, list) and len(level) == 9 and level[0] is level[8]
        level = level[0]
    assert level == ["x"] * 9


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        ("---\nname: x\n", 1, "not closed"),
        ("---\nname: x\ndescription: a: b\n---\n", 3, "mapping values are not allowed here"),
        ("---\nname: x\n  stray: indented\n---\n", 3, "mapping values are not allowed here"),
        ("---\nthis is not yaml\n---\n", 2, "must be 'key: value' fields"),
        ("---\n- a\n- b\n---\n", 2, "must be 'key: value' fields"),
        ('---\nname: x\ndescription: "unterminated\n---\n', 3, "end of stream"),
        ("---\nname: a\nname: b\n---\n", 3, "duplicate key"),
        ("---\n\tname: x\n---\n", 2, "cannot start any token"),
        ("---\nname: x\nicon: !!binary aGVsbG8=\n---\n", 3, "could not determine a constructor"),
        ("---\nname: x\nkind: !custom value\n---\n", 3, "could not determine a constructor"),
        ("---\nname: x\nloop: &a [*a]\n---\n", 2, "contains it"),
        ("---\nname: x\n...\nother: y\n---\n", 4, "another document"),
        ("---\nnested: " + "[" * 2000 + "]" * 2000 + "\n---\n", 2, "nested too deeply"),
    ],
)
def test_malformed_frontmatter_reports_the_line(text: str, line: int, reason: str) -> None:
    with pytest.raises(FrontmatterError) as caught:
        parse_frontmatter(text)

    assert caught.value.line == line
    assert reason in caught.value.reason and "\n" not in caught.value.reason


def test_strip_frontmatter_keeps_text_when_broken() -> None:
    assert strip_frontmatter("---\nname: x\n---\nbody") == "body"
    assert strip_frontmatter("---\nbroken: a: b\n---\nbody") == "---\nbroken: a: b\n---\nbody"
