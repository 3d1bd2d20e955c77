"""Reading pi's display diff back as coloured lines: pi's own session files and ours."""

from __future__ import annotations

import json
from pathlib import Path

from pi_tui.tools.diff_lines import DiffLine, diff_of, first_changed_line, parse_diff


def pi_diffs(pi_fixtures: Path) -> list[str]:
    diffs = []
    for source in sorted((pi_fixtures / "pi-sessions").glob("*.jsonl")):
        for line in source.read_text().splitlines():
            message = json.loads(line).get("message", {})
            diff = diff_of(message.get("toolName", ""), message.get("details"))
            if diff:
                diffs.append(diff)
    return diffs


def test_every_line_of_pis_diffs_is_classified_and_shown_unchanged(pi_fixtures: Path) -> None:
    diffs = pi_diffs(pi_fixtures)
    assert len(diffs) >= 3
    for diff in diffs:
        lines = parse_diff(diff)
        assert [line.display for line in lines] == diff.split("\n")
        assert all(line.gutter for line in lines)  # pi's format throughout


def test_a_one_line_replacement_marks_the_words_that_changed() -> None:
    lines = parse_diff(
        "  4 class LRUCache:\n- 5     def __init__(self, maxsize=128):\n"
        "+ 5     def __init__(self, maxsize=128, ttl=60):\n+ 6         self.ttl = ttl\n    ..."
    )
    assert [line.kind for line in lines] == ["context", "remove", "add", "add", "context"]
    assert lines[0] == DiffLine("context", "  4 ", "class LRUCache:")
    assert lines[-1] == DiffLine("context", "    ", "...")
    # Two added lines follow one removed line: no pairing, as pi pairs only one line with one line.
    assert all(not line.changed for line in lines)
    single = parse_diff("-2     return 'Hello ' + name\n+2     return f'Hello, {name}!'")
    removed, added = single

    def unmarked(line: DiffLine) -> str:
        kept, position = [], 0
        for start, end in line.changed:
            kept.append(line.text[position:start])
            position = end
        return "".join([*kept, line.text[position:]])

    assert removed.changed and added.changed
    # What is not marked is what the two lines share, word for word (spaces aside).
    assert unmarked(removed).split() == unmarked(added).split() == ["return", "'Hello", "'"]


def test_indentation_is_not_marked_as_a_change() -> None:
    removed, added = parse_diff("-1 x = 1\n+1     x = 2")
    assert [added.text[a:b] for a, b in added.changed] == ["2"]  # the new indentation is not lit up
    assert [removed.text[a:b] for a, b in removed.changed] == ["1"]


def test_tabs_and_lines_outside_the_format() -> None:
    lines = parse_diff("+1 \tindented\nno sign here")
    assert lines[0].text == "   indented"
    assert lines[1] == DiffLine("context", "", "no sign here")


def test_only_edit_and_write_results_have_a_diff() -> None:
    details = {"diff": "+1 a", "firstChangedLine": 1}
    assert diff_of("edit", details) == "+1 a" and diff_of("write", details) == "+1 a"
    assert diff_of("bash", details) is None and diff_of("write", None) is None
    assert diff_of("edit", {"diff": ""}) is None and diff_of("edit", {"diff": 3}) is None
    assert first_changed_line(details) == 1 and first_changed_line({"firstChangedLine": True}) is None
