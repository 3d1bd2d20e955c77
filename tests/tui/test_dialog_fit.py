"""Every dialog fits the screen at 80x24: its body scrolls inside the frame to its last row, and its hint
wraps to the frame's width, so nothing is cut off out of reach."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.containers import VerticalScroll

from pi_tui.tui.screens.dialogs import ChoiceDialog, KeysDialog

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
