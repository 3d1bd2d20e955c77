"""Golden files written by the real pi: load, re-serialise and rebuild exactly as pi does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_tui.session_file.context_rebuild import build_session_context
from pi_tui.session_file.entries import entry_line
from pi_tui.session_file.loader import read_session_file
from pi_tui.session_file.store import SessionStore
from tests.support.json_canon import canonical

FIXTURE_NAMES = ["a-plain", "b-tools", "c-auto-compaction", "f-tree"]


@pytest.fixture(params=FIXTURE_NAMES)
def fixture_name(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    return name


def _session_path(pi_fixtures: Path, name: str) -> Path:
    return pi_fixtures / "pi-sessions" / f"{name}.jsonl"


def test_every_fixture_file_is_covered(pi_fixtures: Path) -> None:
    on_disk = sorted(path.stem for path in (pi_fixtures / "pi-sessions").glob("*.jsonl"))
    assert on_disk == sorted(FIXTURE_NAMES)


def test_fixture_loads_without_diagnostics(pi_fixtures: Path, fixture_name: str) -> None:
    loaded = read_session_file(_session_path(pi_fixtures, fixture_name))
    assert loaded.diagnostics == []
    assert loaded.writable
    assert loaded.header is not None and loaded.header.version == 3
    assert not loaded.migrated


def test_fixture_lines_reserialise_byte_for_byte(pi_fixtures: Path, fixture_name: str) -> None:
    path = _session_path(pi_fixtures, fixture_name)
    loaded = read_session_file(path)
    assert loaded.header is not None
    original = path.read_text(encoding="utf-8").splitlines()
    written = [entry_line(loaded.header)] + [entry_line(entry) for entry in loaded.entries]
    assert len(written) == len(original)
    for ours, theirs in zip(written, original, strict=True):
        assert canonical(ours) == canonical(theirs)  # same values, same number text
        assert ours == theirs  # and the same key order and spacing


def test_fixture_context_equals_pi_context(pi_fixtures: Path, fixture_name: str) -> None:
    expected = json.loads((pi_fixtures / "pi-contexts" / f"{fixture_name}.context.json").read_text())
    store = SessionStore.open(_session_path(pi_fixtures, fixture_name))
    assert store.leaf_id == expected["leafId"]
    context = build_session_context(store.entries, store.leaf_id)
    assert [message.to_json_obj() for message in context.messages] == expected["messages"]
    assert context.thinking_level == expected["thinkingLevel"]
    model = expected["model"]
    assert context.model is not None and model is not None
    assert (context.model.provider, context.model.model_id) == (model["provider"], model["modelId"])
    assert store.get_session_name() == expected["sessionName"]


def test_opening_a_fixture_never_writes(pi_fixtures: Path, fixture_name: str, tmp_path: Path) -> None:
    copy = tmp_path / f"{fixture_name}.jsonl"
    copy.write_bytes(_session_path(pi_fixtures, fixture_name).read_bytes())
    before = copy.stat().st_mtime_ns
    store = SessionStore.open(copy)
    store.build_context()
    store.get_tree()
    assert copy.stat().st_mtime_ns == before
    assert list(tmp_path.iterdir()) == [copy]
