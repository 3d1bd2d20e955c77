"""Pins stored in the session (beyond pi): `pi-tui.pin` custom entries, latest wins.

Pins are resolved over the whole file in file order, not just the current branch: a pin is the
user's decision about the session, and it should survive a restore onto a new branch.
"""

from __future__ import annotations

from pi_tui.ai.convert import bash_execution_text
from pi_tui.ai.messages import (
    AgentMessage,
    AssistantMessage,
    BashExecutionMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    ToolResultMessage,
    UserMessage,
    user_text,
)
from pi_tui.context.compaction.pins import MESSAGE_PIN_KIND, PIN_CUSTOM_TYPE, Pin, resolve_pins
from pi_tui.session_file.context_rebuild import entry_message
from pi_tui.session_file.entries import CustomEntry
from pi_tui.session_file.store import SessionError, SessionStore


def message_pin_text(message: AgentMessage) -> str:
    """The text a pinned message carries into summaries."""
    if isinstance(message, UserMessage | CustomMessage):
        return user_text(message)
    if isinstance(message, AssistantMessage | ToolResultMessage):
        return message.text
    if isinstance(message, BashExecutionMessage):
        return bash_execution_text(message)
    if isinstance(message, BranchSummaryMessage | CompactionSummaryMessage):
        return message.summary
    return ""


def active_pins(store: SessionStore) -> list[Pin]:
    """Pins in force, in the order they were first pinned."""
    records = [
        entry.data
        for entry in store.entries
        if isinstance(entry, CustomEntry) and entry.custom_type == PIN_CUSTOM_TYPE
    ]
    return resolve_pins(records)


def pin_text(store: SessionStore, kind: str, text: str) -> CustomEntry:
    """Pin an extracted item (an audit item's kind and text)."""
    return store.append_custom(PIN_CUSTOM_TYPE, Pin(kind, text).record("pin"))


def pin_message(store: SessionStore, entry_id: str) -> CustomEntry:
    """Pin a message entry: its text is carried verbatim. Raises SessionError for non-message entries."""
    entry = store.get_entry(entry_id)
    message = entry_message(entry) if entry is not None else None
    text = message_pin_text(message) if message is not None else ""
    if not text:
        raise SessionError(f"entry {entry_id} has no message text to pin")
    return store.append_custom(PIN_CUSTOM_TYPE, Pin(MESSAGE_PIN_KIND, text, entry_id).record("pin"))


def unpin(store: SessionStore, pin: Pin) -> CustomEntry:
    return store.append_custom(PIN_CUSTOM_TYPE, pin.record("unpin"))
