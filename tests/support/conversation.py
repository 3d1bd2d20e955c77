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


def replay_checkpoints(entries: Iterable[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """pi 1.6's `getCurrentSystemMessage` over a file's raw entries (as JSON): the sections joined as
    pi-tui writes them (each carries its own separators) and the tool declarations in force."""
    sections: dict[str, str] = {}
    tools: dict[str, dict[str, Any]] = {}
    for entry in entries:
        message = entry.get("message") or {}
        if entry.get("type") != "message" or message.get("role") != "system":
            continue
        for name, text in (message.get("sections") or {}).items():
            if text is None:
                sections.pop(name, None)
            else:
                sections[name] = text
        for tool in message.get("toolsRemoved", []):
            tools.pop(tool["name"], None)
        for tool in message.get("toolsAdded", []):
            tools[tool["name"]] = tool
    return "".join(sections.values()), list(tools.values())
