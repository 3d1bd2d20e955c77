"""Compaction reads pi 1.6's edited context: what a context edit removed never reaches the summary call,
its file lists or the loss audit (a redacted output is summarised redacted, a left-out one not at all)."""

from __future__ import annotations

import json

from pi_tui.ai.messages import SystemMessage
from pi_tui.config.settings import CompactionSettings
from pi_tui.context.compaction.loss_audit import audit_span
from pi_tui.context.compaction.preparation import prepare_compaction
from pi_tui.session_file.store import SessionStore
from tests.support.pi_corpora import PI_1_6

REMOVED = ("SECRET-TOKEN-4242\\n", "DROP-ME-77\\nnotes.txt", "DRAFT-ANSWER")
"""The outputs and the draft the edits removed, as JSON text (the calls' arguments stay: pi sends them)."""


def test_the_summarised_span_is_the_edited_one() -> None:
    store = SessionStore.open(PI_1_6.session("y-context-edit-tools"))
    items = store.get_branch()

    prepared = prepare_compaction(items, CompactionSettings(keep_recent_tokens=1))

    assert prepared is not None
    span = [part.message for part in prepared.span]
    wire = json.dumps([message.to_json_obj() for message in span])
    assert not any(removed in wire for removed in REMOVED)
    assert "[tool output redacted by extension]" in wire
    assert not any(isinstance(message, SystemMessage) for message in span)
    audit = audit_span(prepared.span, "a summary")
    assert not any("DRAFT-ANSWER" in item.text or "notes.txt\n" in item.text for item in audit.items)
