"""The README's keys table and the keys F1 lists (built from the bindings themselves) say the same: every
key in the table is bound with that meaning, and every described key of the chat and its editor is in
the table."""

from __future__ import annotations

import re
from pathlib import Path

from textual.binding import Binding

from pi_tui.tui.app import PiTuiApp
from pi_tui.tui.key_help import HelpSection, help_sections
from pi_tui.tui.screens.chat import ChatScreen
from pi_tui.tui.widgets.compaction_detail import CompactionDetail
from pi_tui.tui.widgets.compaction_timeline import CompactionTimeline
from pi_tui.tui.widgets.context_inspector import ContextInspector
from pi_tui.tui.widgets.line_view import LineView
from pi_tui.tui.widgets.tool_output_viewer import ToolOutputViewer

README = Path(__file__).resolve().parents[2] / "README.md"
SHORT_WORDS = 4


def readme_key_rows() -> list[tuple[list[str], str]]:
    """(keys, action) of each row of the README's "## Keys" table."""
    section = README.read_text(encoding="utf-8").split("\n## Keys\n", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")] if line.startswith("|") else []
        if len(cells) != 2 or cells[0] in ("key", "---"):
            continue
        keys = [key.lower() for key in re.findall(r"`([^`]+)`", cells[0])]
        rows.append(([part for key in keys for part in key.split(" / ")], cells[1]))
    return rows


def sections() -> list[HelpSection]:
    """What F1 shows on the chat, with the app's own keys (quit)."""
    app_keys = [b for b in PiTuiApp.BINDINGS if isinstance(b, Binding) and b.priority]
    panes = [
        ("Context pane", ContextInspector.BINDINGS),
        ("Tools pane", [*ToolOutputViewer.BINDINGS, *LineView.BINDINGS]),
        ("Compactions pane", [*CompactionTimeline.BINDINGS, *CompactionDetail.BINDINGS]),
    ]
    return help_sections([*ChatScreen.BINDINGS, *app_keys], panes)


def meanings(wanted: set[str]) -> dict[str, str]:
    """Each single key of the wanted sections, with what F1 says it does."""
    found: dict[str, str] = {}
    for section in sections():
        if section.title in wanted:
            for keys, text in section.rows:
                for key in keys.lower().split(" / "):
                    found.setdefault(key, text)
    return found


def words(text: str) -> set[str]:
    return {word for word in re.findall(r"[a-z]+", text.lower()) if len(word) >= SHORT_WORDS}


def test_every_key_in_the_readme_is_bound_with_that_meaning() -> None:
    bound = meanings({"Keys", "Editor"})
    rows = readme_key_rows()
    assert len(rows) > 10
    for keys, action in rows:
        for key in keys:
            assert key in bound, f"README lists `{key}`, which F1 does not"
            assert words(bound[key]) & words(action), f"`{key}`: README says {action!r}, F1 {bound[key]!r}"


def test_every_described_key_of_the_chat_and_its_editor_is_in_the_readme() -> None:
    listed = {key for keys, _ in readme_key_rows() for key in keys}
    missing = sorted(set(meanings({"Keys", "Editor"})) - listed)
    assert missing == []
