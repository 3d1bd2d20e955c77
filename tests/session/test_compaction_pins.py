"""Pins stored as `pi-tui.pin` custom entries, resolved over the whole file."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_tui.ai.messages import BashExecutionMessage
from pi_tui.context.compaction.pins import PIN_CUSTOM_TYPE, Pin
from pi_tui.session.compaction_pins import active_pins, message_pin_text, pin_message, pin_text, unpin
from pi_tui.session_file.entries import CustomEntry
from pi_tui.session_file.store import SessionError, SessionStore
from tests.context.compaction.session_support import long_session, reply, user


def test_pins_are_custom_entries_and_survive_reopen(tmp_path: Path) -> None:
    store = long_session(tmp_path)
    question = store.append_message(user("Use port 8080 only"))
    entry = pin_message(store, question.id)
    assert isinstance(entry, CustomEntry) and entry.custom_type == PIN_CUSTOM_TYPE
    assert entry.data == {
        "action": "pin",
        "kind": "message",
        "text": "Use port 8080 only",
        "entryId": question.id,
    }
    pin_text(store, "path", "src/mod1.py")
    assert store.path is not None
    assert active_pins(SessionStore.open(store.path)) == [
        Pin("message", "Use port 8080 only", question.id),
        Pin("path", "src/mod1.py"),
    ]
    unpin(store, Pin("message", "", question.id))
    assert active_pins(SessionStore.open(store.path)) == [Pin("path", "src/mod1.py")]


def test_pins_from_another_branch_still_apply(tmp_path: Path) -> None:
    store = long_session(tmp_path)
    fork_point = store.entries[3].id
    pin_text(store, "number", "512 MB")
    store.branch(fork_point)
    store.append_message(reply("elsewhere"))
    assert [pin.text for pin in active_pins(store)] == ["512 MB"]


def test_only_messages_with_text_can_be_pinned(tmp_path: Path) -> None:
    store = long_session(tmp_path)
    with pytest.raises(SessionError):
        pin_message(store, store.entries[0].id)  # the model_change entry
    with pytest.raises(SessionError):
        pin_message(store, "missing")
    run = BashExecutionMessage(command="make", output="ok", exit_code=2)
    assert message_pin_text(run) == "Ran `make`\n```\nok\n```\n\nCommand exited with code 2"
