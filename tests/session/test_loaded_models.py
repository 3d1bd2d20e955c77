"""Loaded entries share their field-name sets and empty extras to save memory: each must still behave
as an independent pydantic model when it is changed, copied or dumped."""

from __future__ import annotations

import copy
import pickle
from pathlib import Path

import pytest

from pi_tui.ai.messages import AssistantMessage, Cost, Usage
from pi_tui.session_file.entries import MessageEntry, entry_line
from pi_tui.session_file.loader import read_session_file
from tests.support.big_session import write_big_session


def _two_replies(tmp_path: Path) -> tuple[AssistantMessage, AssistantMessage]:
    path = tmp_path / "s.jsonl"
    write_big_session(path, 8)
    replies = [
        entry.message
        for entry in read_session_file(path).entries
        if isinstance(entry, MessageEntry) and isinstance(entry.message, AssistantMessage)
    ]
    assert len(replies) == 4
    return replies[0], replies[1]


def test_setting_a_field_changes_only_that_model(tmp_path: Path) -> None:
    first, second = _two_replies(tmp_path)
    assert first.model_fields_set == second.model_fields_set
    assert "response_id" not in first.model_fields_set
    first.response_id = "r1"
    first.usage.cost.total = 2.5
    assert "response_id" in first.model_fields_set
    assert "response_id" not in second.model_fields_set
    assert second.response_id is None and second.usage.cost.total == 0
    assert first.to_json_obj()["responseId"] == "r1" and "responseId" not in second.to_json_obj()


def test_an_unknown_key_set_on_one_model_stays_on_it(tmp_path: Path) -> None:
    first, second = _two_replies(tmp_path)
    first.usage.note = "mine"  # type: ignore[attr-defined]
    assert first.usage.to_json_obj()["note"] == "mine"
    assert "note" not in second.usage.to_json_obj() and second.usage.model_extra == {}
    assert Usage().model_extra == {}


def test_copies_get_their_own_fields_and_unknown_keys(tmp_path: Path) -> None:
    first, second = _two_replies(tmp_path)
    changed = first.usage.cost.model_copy(update={"total": 9.0, "currency": "EUR"})
    assert changed.to_json_obj()["currency"] == "EUR" and changed.total == 9.0
    assert "currency" not in first.usage.cost.to_json_obj() and "currency" not in Cost().to_json_obj()
    assert "total" in changed.model_fields_set
    deep = copy.deepcopy(second)
    deep.usage.extra_key = 1  # type: ignore[attr-defined]
    assert deep.usage.to_json_obj()["extra_key"] == 1
    assert "extra_key" not in second.usage.to_json_obj()
    restored = pickle.loads(pickle.dumps(second))
    assert restored == second and restored.to_json_obj() == second.to_json_obj()
    restored.usage.other = 2  # type: ignore[attr-defined]
    assert "other" not in second.usage.to_json_obj()


def test_changing_shared_empty_extras_in_place_fails_loudly(tmp_path: Path) -> None:
    first, _ = _two_replies(tmp_path)
    extras = first.usage.model_extra
    assert extras is not None
    with pytest.raises(TypeError):
        extras["sneaky"] = 1
    assert Usage().model_extra == {}


def test_loaded_lines_still_reserialise_exactly(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    write_big_session(path, 40)
    lines = path.read_text(encoding="utf-8").splitlines()[1:]
    assert [entry_line(entry) for entry in read_session_file(path).entries] == lines
