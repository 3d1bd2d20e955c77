"""Golden files written by the real pi (0.73.1 and 1.6.0): load, re-serialise, rebuild as pi does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_tui.session_file.context_rebuild import build_session_context
from pi_tui.session_file.entries import entry_line
from pi_tui.session_file.loader import read_session_file
from pi_tui.session_file.store import SessionStore
from tests.support.json_canon import canonical
from tests.support.pi_corpora import CORPORA, CORPUS_FILES, PiCorpus, PiFile


@pytest.fixture(params=CORPUS_FILES)
def pi_file(request: pytest.FixtureRequest) -> PiFile:
    chosen: PiFile = request.param
    return chosen


@pytest.mark.parametrize("corpus", CORPORA, ids=lambda corpus: corpus.version)
def test_every_fixture_file_is_covered(corpus: PiCorpus) -> None:
    assert sorted(path.stem for path in corpus.sessions.glob("*.jsonl")) == sorted(corpus.names)
    assert sorted(path.name for path in corpus.contexts.glob("*.context.json")) == sorted(
        f"{name}.context.json" for name in corpus.names
    )


def test_fixture_loads_without_diagnostics(pi_file: PiFile) -> None:
    loaded = read_session_file(pi_file.path)
    assert loaded.diagnostics == []
    assert loaded.writable
    assert loaded.header is not None and loaded.header.version == 3
    assert not loaded.migrated


def test_fixture_lines_reserialise_byte_for_byte(pi_file: PiFile) -> None:
    path = pi_file.path
    loaded = read_session_file(path)
    assert loaded.header is not None
    original = path.read_text(encoding="utf-8").splitlines()
    written = [entry_line(loaded.header)] + [entry_line(entry) for entry in loaded.entries]
    assert len(written) == len(original)
    for ours, theirs in zip(written, original, strict=True):
        assert canonical(ours) == canonical(theirs)  # same values, same number text
        assert ours == theirs  # and the same key order and spacing


def test_fixture_context_equals_pi_context(pi_file: PiFile) -> None:
    expected = json.loads(pi_file.context_path.read_text())
    store = SessionStore.open(pi_file.path)
    assert store.leaf_id == expected["leafId"]
    context = build_session_context(store.entries, store.leaf_id)
    assert [message.to_json_obj() for message in context.messages] == expected["messages"]
    assert context.thinking_level == expected["thinkingLevel"]
    model = expected["model"]
    assert context.model is not None and model is not None
    assert (context.model.provider, context.model.model_id) == (model["provider"], model["modelId"])
    assert store.get_session_name() == expected["sessionName"]
    if "projection" in expected:  # pi 1.6 records how many messages each entry of the context gave
        projection = [(p.entry.id, len(p.messages)) for p in context.projection]
        assert projection == [(entry["id"], entry["messages"]) for entry in expected["projection"]]


def test_opening_a_fixture_never_writes(pi_file: PiFile, tmp_path: Path) -> None:
    copy = tmp_path / f"{pi_file.name}.jsonl"
    copy.write_bytes(pi_file.path.read_bytes())
    before = copy.stat().st_mtime_ns
    store = SessionStore.open(copy)
    store.build_context()
    store.get_tree()
    assert copy.stat().st_mtime_ns == before
    assert list(tmp_path.iterdir()) == [copy]
