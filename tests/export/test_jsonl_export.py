"""The branch as a linear session file: it loads back, and its context is the branch's context."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_tui.ai.messages import UserMessage
from pi_tui.export.exporter import export_session
from pi_tui.export.jsonl_export import render_jsonl
from pi_tui.session_file.loader import read_session_file
from pi_tui.session_file.store import SessionStore
from tests.support.pi_corpora import CORPUS_FILES, PiFile
from tests.support.session_files import read_objects

from .hostile_session import hostile_session


def contexts_match(original: SessionStore, exported: Path) -> None:
    loaded = SessionStore.open(exported)
    assert not loaded.diagnostics
    mine, theirs = original.build_context(), loaded.build_context()
    assert [m.to_json_obj() for m in theirs.messages] == [m.to_json_obj() for m in mine.messages]
    assert theirs.model == mine.model and theirs.thinking_level == mine.thinking_level


def test_branch_of_a_pi_tree_loads_back_linear(tmp_path: Path, pi_fixtures: Path) -> None:
    store = SessionStore.open(pi_fixtures / "pi-sessions" / "f-tree.jsonl", migrate=False)
    store.branch("5db7cdd6")
    result = export_session(store, tmp_path / "branch.jsonl")
    assert result.format == "jsonl"
    objects = read_objects(result.path)
    assert objects[0]["type"] == "session" and objects[0]["id"] == store.session_id
    ids = [obj["id"] for obj in objects[1:]]
    assert ids == [entry.id for entry in store.get_branch()]
    assert [obj["parentId"] for obj in objects[1:]] == [None, *ids[:-1]]
    contexts_match(store, result.path)


@pytest.mark.parametrize("pi_file", CORPUS_FILES)
def test_every_pi_fixture_round_trips(tmp_path: Path, pi_file: PiFile) -> None:
    store = SessionStore.open(pi_file.path, migrate=False)
    out = tmp_path / f"{pi_file.name}.jsonl"
    export_session(store, out)
    assert not read_session_file(out).diagnostics
    contexts_match(store, out)
    # Every field pi wrote is kept on the exported copy, the ones pi-tui does not use too (pi 1.6's
    # `rawStopReason`, `durationMs`, `thinkingLevel`, a usage's `reasoning`, a cost's `totalFromProvider`).
    exported = {obj["id"]: obj for obj in read_objects(out)[1:]}
    for obj in read_objects(pi_file.path)[1:]:
        if obj["id"] in exported:
            assert exported[obj["id"]] == obj


def test_compactions_and_the_side_branch(tmp_path: Path) -> None:
    hostile = hostile_session(tmp_path)
    out = export_session(hostile.store, tmp_path / "main.jsonl").path
    contexts_match(hostile.store, out)
    text = out.read_text()
    assert hostile.compactions[1] in text and hostile.side_entry not in text
    hostile.store.branch(hostile.side_entry)
    side = export_session(hostile.store, tmp_path / "side.jsonl").path
    contexts_match(hostile.store, side)
    assert hostile.side_entry in side.read_text() and hostile.compactions[0] not in side.read_text()


def test_keys_are_redacted_in_the_lines(tmp_path: Path) -> None:
    store = SessionStore.in_memory(str(tmp_path))
    store.append_message(UserMessage(content="my key is sk-abcdefgh12345678", timestamp=1))
    text = render_jsonl(store, ["sk-abcdefgh12345678"])
    assert "sk-abcdefgh12345678" not in text and "my key is [redacted]" in text
