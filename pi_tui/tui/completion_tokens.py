"""What the editor completes and with what: the token at the cursor, slash commands, `@` paths.

Pure Python (no Textual): the editor asks `token_at` on every change, and a `Completer` for the items.
A slash command completes only as the editor's first word; an `@path` anywhere, as the word at the
cursor. An accepted path with whitespace is quoted (`@"my notes.md"`) so it stays one word: the editor's
`@path`s reach the model as text (its tools strip the `@`); only print mode's arguments attach files.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

from pi_tui.context.resources import Resources
from pi_tui.context.skills import SKILL_COMMAND_PREFIX
from pi_tui.tui.file_candidates import FileIndex, list_outside, names_outside
from pi_tui.tui.slash_commands import SLASH_COMMANDS

TokenKind = Literal["slash", "file"]


@dataclass(frozen=True)
class CompletionItem:
    value: str
    """The text that replaces the token."""
    description: str = ""
    keep_open: bool = False
    """A folder: accepting it inserts no space, so the popup goes on listing its contents."""


@dataclass(frozen=True)
class Token:
    kind: TokenKind
    start: int
    """Column where the token starts on the cursor's line."""
    text: str
    """The token up to the cursor: `/co`, `@src/wi`."""

    @property
    def query(self) -> str:
        return self.text[1:].removeprefix('"')


def token_at(line: str, column: int, row: int) -> Token | None:
    """The completable token ending at the cursor, or None."""
    before = line[:column]
    start = max(before.rfind(" "), before.rfind("\t")) + 1
    word = before[start:]
    if row == 0 and start == 0 and word.startswith("/"):
        return Token("slash", 0, word)
    if word.startswith("@"):
        return Token("file", start, word)
    return None


def slash_items(prefix: str, resources: Resources | None) -> list[CompletionItem]:
    """Built-ins, then skills (`/skill:name`), then prompt templates: those starting with `prefix`."""
    items = [CompletionItem(f"/{command.name}", command.description) for command in SLASH_COMMANDS]
    if resources is not None:
        if resources.settings.enable_skill_commands:
            items += [
                CompletionItem(f"{SKILL_COMMAND_PREFIX}{skill.name}", skill.description)
                for skill in resources.skills
            ]
        items += [
            CompletionItem(f"/{template.name}", template.description) for template in resources.templates
        ]
    needle = prefix.lower()
    return [item for item in items if item.value.lower().startswith(needle)]


def path_text(path: str) -> str:
    """`@path` as inserted into the editor; a path with whitespace is quoted."""
    return f'@"{path}"' if any(char.isspace() for char in path) else f"@{path}"


def accepted_text(item: CompletionItem) -> str:
    """What replaces the token: the value plus a space, except after a folder (keep completing in it)."""
    return item.value if item.keep_open else item.value + " "


class Completer(Protocol):
    def slash(self, prefix: str) -> list[CompletionItem]: ...

    def files(self, query: str, should_stop: Callable[[], bool]) -> list[CompletionItem]:
        """Blocking: called in a thread worker."""
        ...


class ResourceCompleter:
    """Completes from a session's resources (read on each call: `/reload` or a switch changes them)."""

    def __init__(self, resources: Callable[[], Resources]) -> None:
        self._resources = resources
        self._index: FileIndex | None = None

    def slash(self, prefix: str) -> list[CompletionItem]:
        return slash_items(prefix, self._resources())

    def files(self, query: str, should_stop: Callable[[], bool]) -> list[CompletionItem]:
        root = Path(self._resources().cwd).resolve()
        if names_outside(query):
            candidates = list_outside(root, query)
        else:
            index = self._index
            if index is None or index.root != root:
                index = self._index = FileIndex(root)
            candidates = index.find(query, should_stop=should_stop)
        return [
            CompletionItem(
                path_text(candidate.path),
                "folder" if candidate.is_dir else "",
                keep_open=candidate.is_dir and not any(char.isspace() for char in candidate.path),
            )
            for candidate in candidates
        ]
