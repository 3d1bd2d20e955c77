"""The conversation of a session, without pi 1.6's system messages.

Since pi-tui writes the prompt and tools into the session as pi 1.6 does (a `system` message before the
first request and when either changes), tests that count turns look past those checkpoints.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pi_tui.ai.messages import AgentMessage, SystemMessage
from pi_tui.session_file.entries import MessageEntry


def conversation_entries(entries: Iterable[Any]) -> list[MessageEntry]:
    """The message entries that are not system messages, in file order."""
    return [
        entry
        for entry in entries
        if isinstance(entry, MessageEntry) and not isinstance(entry.message, SystemMessage)
    ]


def roles(messages: Iterable[AgentMessage]) -> list[str]:
    """The roles of `messages`, system checkpoints left out."""
    return [message.role for message in messages if not isinstance(message, SystemMessage)]


def system_entries(entries: Iterable[Any]) -> list[MessageEntry]:
    """The system-message entries (pi 1.6's prompt and tool checkpoints), in file order."""
    return [
        entry
        for entry in entries
        if isinstance(entry, MessageEntry) and isinstance(entry.message, SystemMessage)
    ]
