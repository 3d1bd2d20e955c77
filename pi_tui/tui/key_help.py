"""What F1 lists: the chat screen's keys, the editor's, each pane's and the slash commands, one line each.

The keys come from the bindings themselves (their tooltip, or else their description), so the list
cannot drift from what the keys do; the few keys that are not bindings (the editor's, the dialogs')
are listed here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from textual.binding import Binding, BindingType

from pi_tui.tui.slash_commands import SLASH_COMMANDS

EDITOR_KEYS: tuple[tuple[str, str], ...] = (
    ("enter", "Send (while the agent runs: steer)"),
    ("tab", "While the agent runs: queue a follow-up (also alt+enter, /followup)"),
    ("ctrl+j", "New line"),
    ("up / down", "History; up with messages queued: pick one (enter edits, delete drops)"),
    ("pageup / pagedown", "Scroll the conversation a page"),
    ("ctrl+end", "Jump to the end of the conversation and follow new output again"),
    ("/… / @…", "Complete a command / a file path: up, down choose, tab or enter accept, esc closes"),
    ("esc esc", "Session tree (idle, empty editor)"),
    ("ctrl+p", "Command palette"),
)
DIALOG_KEYS: tuple[tuple[str, str], ...] = (
    ("/resume", "ctrl+s sort, tab this directory / all, type to search"),
    ("/tree", "Type to search, ctrl+o / ctrl+shift+o filter, ctrl+l label"),
)
KEY_NAMES = {"slash": "/", "escape": "esc", "space": "space"}


@dataclass(frozen=True)
class HelpSection:
    title: str
    rows: tuple[tuple[str, str], ...]


def key_name(key: str) -> str:
    """`ctrl+o` as typed; `slash` as `/`; alternatives (`N,shift+n`) joined with ` / `."""
    return " / ".join(KEY_NAMES.get(part, part) for part in key.split(","))


def binding_rows(bindings: Iterable[BindingType]) -> list[tuple[str, str]]:
    """One row per described binding (a key bound twice to one action is listed once)."""
    rows: list[tuple[str, str]] = []
    actions: set[str] = set()
    for binding in bindings:
        if not isinstance(binding, Binding) or not binding.description or binding.action in actions:
            continue
        actions.add(binding.action)
        rows.append((key_name(binding.key), binding.tooltip or binding.description))
    return rows


def help_sections(
    screen_bindings: Iterable[BindingType], panes: Sequence[tuple[str, Iterable[BindingType]]]
) -> list[HelpSection]:
    """The screen's keys (pass only those that act here), the editor's, each pane's, the commands."""
    commands = [(f"/{c.name}{' ' + c.usage if c.usage else ''}", c.description) for c in SLASH_COMMANDS]
    commands.append(("!cmd / !!cmd", "run a shell command (!!: keep it out of the context)"))
    return [
        HelpSection("Keys", tuple(binding_rows(screen_bindings))),
        HelpSection("Editor", EDITOR_KEYS),
        *(HelpSection(title, tuple(binding_rows(bindings))) for title, bindings in panes),
        HelpSection("Dialogs", DIALOG_KEYS),
        HelpSection("Commands", tuple(commands)),
    ]


def plain_text(sections: Sequence[HelpSection]) -> str:
    """The sections as text, a key and its meaning per line (what the dialog shows, uncoloured)."""
    lines: list[str] = []
    for section in sections:
        lines.append(section.title)
        lines += [f"  {key}  {text}" for key, text in section.rows]
    return "\n".join(lines)
