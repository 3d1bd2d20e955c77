"""Which files a summarised span read and changed (pi's file lists), appended to every summary.

Only `read`, `write` and `edit` tool calls with a string `path` count; paths are kept exactly as the
model passed them. The lists are cumulative: a compaction starts from the previous pi-generated
summary's `details` (an extension's summary, `fromHook`, is not trusted).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pi_tui.ai.messages import AgentMessage, AssistantMessage
from pi_tui.context.compaction.js_strings import js_sort_key

READ_FILES_KEY = "readFiles"
MODIFIED_FILES_KEY = "modifiedFiles"


@dataclass
class FileOps:
    read: set[str] = field(default_factory=set)
    written: set[str] = field(default_factory=set)
    edited: set[str] = field(default_factory=set)

    def add_details(self, details: Any) -> None:
        """Seed from a previous summary's `{readFiles, modifiedFiles}` (modified counts as edited)."""
        if not isinstance(details, dict):
            return
        read, modified = details.get(READ_FILES_KEY), details.get(MODIFIED_FILES_KEY)
        if isinstance(read, list):
            self.read.update(path for path in read if isinstance(path, str))
        if isinstance(modified, list):
            self.edited.update(path for path in modified if isinstance(path, str))

    def add_message(self, message: AgentMessage) -> None:
        """Record the file tool calls of an assistant message; other messages carry none."""
        if not isinstance(message, AssistantMessage):
            return
        for call in message.tool_calls:
            path = call.arguments.get("path")
            if not isinstance(path, str) or not path:
                continue
            if call.name == "read":
                self.read.add(path)
            elif call.name == "write":
                self.written.add(path)
            elif call.name == "edit":
                self.edited.add(path)

    def add_messages(self, messages: Iterable[AgentMessage]) -> None:
        for message in messages:
            self.add_message(message)

    def lists(self) -> tuple[list[str], list[str]]:
        """pi's `computeFileLists`: (read-only files, modified files), each sorted as JavaScript sorts."""
        modified = sorted(self.edited | self.written, key=js_sort_key)
        read = sorted(self.read - set(modified), key=js_sort_key)
        return read, modified


def format_file_operations(read_files: list[str], modified_files: list[str]) -> str:
    """The tags appended to a summary: empty when both lists are empty, else a blank line first."""
    sections: list[str] = []
    if read_files:
        sections.append("<read-files>\n" + "\n".join(read_files) + "\n</read-files>")
    if modified_files:
        sections.append("<modified-files>\n" + "\n".join(modified_files) + "\n</modified-files>")
    if not sections:
        return ""
    return "\n\n" + "\n\n".join(sections)
