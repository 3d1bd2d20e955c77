"""The Context pane and the inspector's counts see pi 1.6's edited context: a replaced entry is marked
edited and shows what is sent, an entry left out has a row of its own with what it was, and counts as
nothing; the token counts are those of the edited context."""

from __future__ import annotations

from pi_tui.ai import tokens
from pi_tui.config.settings import Settings
from pi_tui.session.inspector import build_inspector_data
from pi_tui.session_file.context_rebuild import build_session_context, entry_messages
from pi_tui.session_file.store import SessionStore
from pi_tui.tui.inspector_view import segment_texts
from tests.support.pi_corpora import PI_1_6

REDACTED, LEFT_OUT, DRAFT = "f0e73a80", "74e55b26", "b94f1f4c"


def test_edited_entries_are_shown_as_edited_with_what_they_were() -> None:
    store = SessionStore.open(PI_1_6.session("y-context-edit-tools"))
    context = store.build_context()

    texts = segment_texts("prompt", [], context.messages, context.entry_ids, projection=context.projection)

    rows = {row.key: row for row in texts.messages}
    assert rows[REDACTED].preview.startswith("(edited) ")
    assert "[tool output redacted by extension]" in rows[REDACTED].text
    assert "SECRET-TOKEN-4242" not in rows[REDACTED].text
    for key, was in ((LEFT_OUT, "DROP-ME-77"), (DRAFT, "DRAFT-ANSWER")):
        assert rows[key].preview.startswith("(edited out) ")
        assert rows[key].tokens == 0
        assert was in rows[key].text and rows[key].text.startswith("Left out of every request")
    order = [row.key for row in texts.messages]
    assert order.index("cde11c5f") < order.index(LEFT_OUT) < order.index("1f21316b")
    assert all(row.role != "system" for row in texts.messages)


def test_the_inspector_counts_the_edited_context() -> None:
    store = SessionStore.open(PI_1_6.session("y-context-edit-tools"))
    context = build_session_context(store.entries)

    data = build_inspector_data(store, Settings(), None)

    sent = [message for message in context.messages if message.role != "system"]
    assert data.message_count == len(sent)
    assert data.context_tokens == sum(tokens.count_message(message) for message in sent)
    unedited = [
        message
        for projected in context.projection
        for message in entry_messages(projected.entry)
        if message.role != "system"
    ]
    assert data.context_tokens < sum(tokens.count_message(message) for message in unedited)
