"""Pin records resolved latest-wins, and pins forced into a summary's `## Pinned` section."""

from __future__ import annotations

from pi_tui.context.compaction.pins import Pin, ensure_pinned, resolve_pins


def test_latest_record_wins_and_message_pins_are_keyed_by_entry() -> None:
    records = [
        Pin("path", "src/a.py").record("pin"),
        Pin("message", "first text", "e1").record("pin"),
        {"action": "pin", "kind": "number"},  # malformed: ignored
        Pin("number", "512 MB").record("pin"),
        Pin("path", "src/a.py").record("unpin"),
        Pin("message", "edited text", "e1").record("pin"),
        "garbage",
    ]
    assert resolve_pins(records) == [Pin("message", "edited text", "e1"), Pin("number", "512 MB")]
    assert resolve_pins([*records, Pin("message", "", "e1").record("unpin")]) == [Pin("number", "512 MB")]


def test_record_shape() -> None:
    assert Pin("message", "t", "e1").record("pin") == {
        "action": "pin",
        "kind": "message",
        "text": "t",
        "entryId": "e1",
    }
    assert Pin("path", "a").record("unpin") == {"action": "unpin", "kind": "path", "text": "a"}


def test_ensure_pinned_appends_only_missing_pins() -> None:
    assert ensure_pinned("## Goal\nuse 512 MB", ["512 MB"]) == "## Goal\nuse 512 MB"
    assert ensure_pinned("## Goal\nG\n", ["alpha", "beta"]) == "## Goal\nG\n\n## Pinned\n- alpha\n- beta"
    assert ensure_pinned("", ["alpha"]) == "## Pinned\n- alpha"


def test_ensure_pinned_fills_an_existing_section_before_the_next_heading() -> None:
    summary = "## Pinned\n- alpha\n\n## Critical Context\n- c"
    assert ensure_pinned(summary, ["alpha", "multi\nline"]) == (
        "## Pinned\n- alpha\n- multi\nline\n\n## Critical Context\n- c"
    )
