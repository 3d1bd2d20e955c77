"""The prompts keep pi's section skeletons and headings exactly, and pi's request layout."""

from __future__ import annotations

import re

from pi_tui.context.compaction.prompts import (
    BRANCH_SUMMARY_PROMPT,
    PINNED_INSTRUCTION,
    SUMMARIZATION_PROMPT,
    TURN_PREFIX_SUMMARIZATION_PROMPT,
    UPDATE_SUMMARIZATION_PROMPT,
    summary_request_text,
    with_focus,
)

CHECKPOINT = [
    "## Goal",
    "## Constraints & Preferences",
    "## Progress",
    "### Done",
    "### In Progress",
    "### Blocked",
    "## Key Decisions",
    "## Next Steps",
    "## Critical Context",
]


def _headings(prompt: str) -> list[str]:
    return re.findall(r"^#{2,3} .+$", prompt, flags=re.MULTILINE)


def test_section_skeletons_match_pi() -> None:
    assert _headings(SUMMARIZATION_PROMPT) == CHECKPOINT
    assert _headings(UPDATE_SUMMARIZATION_PROMPT) == CHECKPOINT
    assert _headings(BRANCH_SUMMARY_PROMPT) == CHECKPOINT[:-1]
    assert _headings(TURN_PREFIX_SUMMARIZATION_PROMPT) == [
        "## Original Request",
        "## Early Progress",
        "## Context for Suffix",
    ]
    for prompt in (SUMMARIZATION_PROMPT, UPDATE_SUMMARIZATION_PROMPT, BRANCH_SUMMARY_PROMPT):
        assert "- [x]" in prompt and "- [ ]" in prompt and "EXACTLY" in prompt
    assert "(none)" in SUMMARIZATION_PROMPT and "(none)" in BRANCH_SUMMARY_PROMPT
    assert "<previous-summary>" in UPDATE_SUMMARIZATION_PROMPT


def test_request_layout() -> None:
    assert summary_request_text("C", "I") == "<conversation>\nC\n</conversation>\n\nI"
    assert summary_request_text("C", "I", previous_summary="P") == (
        "<conversation>\nC\n</conversation>\n\n<previous-summary>\nP\n</previous-summary>\n\nI"
    )
    assert summary_request_text("C", "I", pins=["a b"]) == (
        f"<conversation>\nC\n</conversation>\n\n<pinned>\n- a b\n</pinned>\n\nI\n\n{PINNED_INSTRUCTION}"
    )
    assert with_focus("I", "x") == "I\n\nAdditional focus: x"
    assert with_focus("I", None) == with_focus("I", "") == "I"
