"""Every dialog fits the screen at 80x24: its body scrolls inside the frame to its last row, and its hint
wraps to the frame's width, so nothing is cut off out of reach."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from textual.containers import VerticalScroll
from textual.widgets import DataTable, OptionList

from pi_tui.session_file.listing import SessionSummary
from pi_tui.tui.screens.dialog import Dialog
from pi_tui.tui.screens.dialogs import ChoiceDialog, KeysDialog
from pi_tui.tui.screens.session_picker import SessionPicker
from pi_tui.tui.themed_app import ThemedApp
from tests.support.waiting import until

from .readme_pictures import AUTO_COMPACTION
from .scenarios import fix_world, keys_then_steady
from .screen_capture import screen_text

SIZE = (80, 24)


def framed_words(text: str) -> str:
    """The words inside the dialog's frame (between a row's outer `│`s), rows joined, so a sentence
    wrapped over rows reads whole."""
    inside = [row[row.index("│") + 1 : row.rindex("│")] for row in text.splitlines() if row.count("│") >= 2]
    return " ".join(" ".join(inside).split())


async def test_keys_dialog_scrolls_to_its_last_row(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fix_world(monkeypatch, tmp_path)
    app = AUTO_COMPACTION(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await keys_then_steady("f1", wait_for=KeysDialog)(pilot)
        assert "!cmd / !!cmd" not in screen_text(app)
        body = app.screen.query_one(VerticalScroll)
        body.focus()
        await pilot.press("end")
        await pilot.pause()
        assert body.scroll_y == body.max_scroll_y > 0
        assert "!cmd / !!cmd" in screen_text(app)


async def test_restore_confirmation_shows_its_whole_explanation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fix_world(monkeypatch, tmp_path)
    app = AUTO_COMPACTION(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await keys_then_steady("f4", "r", wait_for=ChoiceDialog)(pilot)
        dialog = app.screen
        assert isinstance(dialog, ChoiceDialog) and len(dialog.hint) > SIZE[0]
        assert " ".join(dialog.hint.split()) in framed_words(screen_text(app))


class DialogHost(ThemedApp[None]):
    def __init__(self, dialog: Dialog[str | None]) -> None:
        super().__init__()
        self.dialog = dialog

    def on_mount(self) -> None:
        self.push_screen(self.dialog)


async def _moved_down(app: DialogHost, rows: int, list_type: type[OptionList | DataTable[Any]]) -> str:
    """The screen once the dialog is up and the highlight has moved `rows` rows down its list."""
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: app.screen is app.dialog and app.dialog.query(list_type), pilot=pilot)
        listed = app.dialog.query_one(list_type)

        def count() -> int:
            return listed.option_count if isinstance(listed, OptionList) else listed.row_count

        def highlighted() -> int | None:
            return listed.highlighted if isinstance(listed, OptionList) else listed.cursor_row

        await until(lambda: count() > rows, pilot=pilot, what="the list filled")
        for _ in range(rows):
            await pilot.press("down")
        await until(lambda: highlighted() == rows, pilot=pilot)
        await pilot.pause()
        return screen_text(app)


async def test_a_long_choice_list_keeps_its_title_filter_hint_and_highlighted_row_in_sight() -> None:
    models = [(f"m{n}", f"model number {n}") for n in range(40)]
    app = DialogHost(ChoiceDialog("Pick a model", models, hint="enter picks · esc cancels"))
    text = await _moved_down(app, 15, OptionList)
    for shown in ("Pick a model", "type to filter", "model number 15", "enter picks · esc cancels"):
        assert shown in text


async def test_a_long_session_list_keeps_its_highlighted_row_in_sight() -> None:
    def sessions(cwd: str | None) -> list[SessionSummary]:
        when = datetime(2026, 1, 1, tzinfo=UTC)
        return [
            SessionSummary(Path(f"/s/{n}.jsonl"), f"id{n}", "/p", None, None, when, when, 2, f"prompt {n:02}")
            for n in range(30)
        ]

    app = DialogHost(SessionPicker("/p", sessions))
    text = await _moved_down(app, 15, DataTable)
    assert "search name" in text and "prompt 15" in text  # same times: listed in the lister's order


async def test_a_long_title_wraps_inside_the_frame() -> None:
    app = DialogHost(SessionPicker("/p", lambda cwd: []))
    async with app.run_test(size=SIZE) as pilot:
        picker = app.dialog
        await until(lambda: isinstance(picker, SessionPicker) and picker.loaded, pilot=pilot)
        await pilot.pause()
        assert len(picker.title_text) > SIZE[0]
        assert " ".join(picker.title_text.split()) in framed_words(screen_text(app))
