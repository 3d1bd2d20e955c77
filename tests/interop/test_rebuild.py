"""pi-tui's context rebuild agrees with pi's rules at every position of every pi file, not just the leaf."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from pi_tui.session_file.context_rebuild import build_session_context
from pi_tui.session_file.entries import parse_entry
from tests.interop.conftest import SOURCES
from tests.interop.pi_reference import pi_projection, read_entries
from tests.interop.test_handmade_entries import build


def variants(pi_fixtures: Path) -> dict[str, list[dict[str, Any]]]:
    files = {name: read_entries(source) for name, source in SOURCES.items()}
    files["handmade"] = build("/home/user/project")[0][1:]
    # pi's edge rules: a compaction whose first kept entry is not on the path keeps nothing before it;
    # an empty branch summary adds no message.
    lost = copy.deepcopy(files["c-auto-compaction"])
    for entry in lost:
        if entry["type"] == "compaction":
            entry["firstKeptEntryId"] = "deadbeef"
    files["compaction keeping an unknown entry"] = lost
    empty = copy.deepcopy(files["f-tree"])
    for entry in empty:
        if entry["type"] == "branch_summary":
            entry["summary"] = ""
    files["empty branch summary"] = empty
    # pi 1.6: an edit whose target is missing changes nothing; an edit on another branch (here: the
    # draft's edit moved under the system message before it) applies only below itself.
    missing = copy.deepcopy(files["pi16-y-context-edit-tools"])
    for entry in missing:
        if entry["type"] == "context_edit" and entry["replacement"] is None:
            entry["targetId"] = "deadbeef"
    files["context edit of a missing entry"] = missing
    elsewhere = copy.deepcopy(files["pi16-y-context-edit-tools"])
    edit = next(entry for entry in elsewhere if entry["id"] == "aaa0a6dd")
    edit["parentId"] = "c1d3fcf1"
    files["context edit on another branch"] = elsewhere
    return files


def test_every_leaf_rebuilds_as_pi_would(pi_fixtures: Path) -> None:
    checked = 0
    for name, raw in variants(pi_fixtures).items():
        entries = [parse_entry(entry) for entry in raw]
        for entry in raw:
            expected = pi_projection(raw, entry["id"])
            ours = build_session_context(entries, entry["id"])
            where = f"{name} at {entry['id']}"
            assert [message.to_json_obj() for message in ours.messages] == expected["messages"], where
            projection = [(projected.entry.id, len(projected.messages)) for projected in ours.projection]
            assert projection == expected["projection"], where
            assert ours.thinking_level == expected["thinkingLevel"], where
            model = (
                None
                if ours.model is None
                else {"provider": ours.model.provider, "modelId": ours.model.model_id}
            )
            assert model == expected["model"], where
            checked += 1
    assert checked == 8 + 21 + 51 + 22 + 18 + 51 + 22 + (9 + 22 + 52 + 23 + 20 + 9 + 25) + 25 + 25
