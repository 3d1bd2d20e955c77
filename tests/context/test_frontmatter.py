"""The frontmatter subset: what is accepted, and that anything else is an error with a line."""

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


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("---\nname: x\n", 1),  # never closed
        ("---\nname: x\ndescription: a: b\n---\n", 3),  # YAML forbids a second ': ' in a plain value
        ("---\nname: x\n  stray: indented\n---\n", 2),  # a continuation line holding ': '
        ("---\nname: 'x\n  more'\n---\n", 2),
        ("---\nthis is not yaml\n---\n", 2),
        ('---\ndescription: "unterminated\n---\n', 2),
        ("---\nname: a\nname: b\n---\n", 3),
        ("---\n\tname: x\n---\n", 2),
        ("---\nanchor: &a value\n---\n", 2),
    ],
)
def test_malformed_frontmatter_reports_the_line(text: str, line: int) -> None:
    with pytest.raises(FrontmatterError) as caught:
        parse_frontmatter(text)

    assert caught.value.line == line


def test_strip_frontmatter_keeps_text_when_broken() -> None:
    assert strip_frontmatter("---\nname: x\n---\nbody") == "body"
    assert strip_frontmatter("---\nbroken: a: b\n---\nbody") == "---\nbroken: a: b\n---\nbody"
