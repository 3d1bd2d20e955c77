"""Section-by-section diff of two summaries."""

from __future__ import annotations

from pi_tui.context.compaction.summary_diff import diff_summaries, format_summary_diff, split_sections

OLD = "## Goal\nShip it\n\n## Progress\n- [x] a\n\n## Next Steps\n1. b\n\n<read-files>\nx.py\n</read-files>"
NEW = "## Goal\nShip it\n\n## Progress\n- [x] a\n- [x] b\n\n## Critical Context\n- port 8080"


def test_split_keeps_order_and_tags_are_sections() -> None:
    sections = split_sections("intro\n" + OLD)
    assert list(sections) == ["(preamble)", "## Goal", "## Progress", "## Next Steps", "<read-files>"]
    assert sections["## Goal"] == ["## Goal", "Ship it"]


def test_changed_added_removed_and_unchanged() -> None:
    diffs = {item.heading: item for item in diff_summaries(OLD, NEW)}
    assert diffs["## Goal"].status == "unchanged" and diffs["## Goal"].diff == []
    assert diffs["## Progress"].status == "changed"
    assert "+- [x] b" in diffs["## Progress"].diff
    assert diffs["## Critical Context"].status == "added"
    assert diffs["## Next Steps"].status == "removed"
    assert "-1. b" in diffs["## Next Steps"].diff
    assert diffs["<read-files>"].status == "removed"


def test_text_rendering_names_unchanged_sections() -> None:
    text = format_summary_diff(diff_summaries(OLD, NEW))
    assert "## Progress (changed)\n--- previous\n+++ current\n" in text
    assert text.endswith("Unchanged: ## Goal\n")
    assert format_summary_diff(diff_summaries("## Goal\nx", "## Goal\nx")) == "Unchanged: ## Goal\n"
    assert format_summary_diff([]) == "No differences.\n"
