"""Every dialog shares one frame: its title is shown as written, Esc answers what the dialog says it does."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from textual.app import App
from textual.widgets import Label

from pi_tui.tui.screens.approval_dialog import ApprovalDialog
from pi_tui.tui.screens.confirm_compaction import ConfirmCompactionDialog
from pi_tui.tui.screens.dialog import Dialog
from pi_tui.tui.screens.dialogs import ChoiceDialog, InfoDialog, KeysDialog, TextDialog
from pi_tui.tui.screens.recompact_dialog import RecompactDialog
from pi_tui.tui.screens.session_picker import SessionPicker
from pi_tui.tui.screens.tree_dialog import TreeDialog
from tests.support.waiting import until

SIZE = (100, 30)
ESCAPE_ANSWERS: dict[str, tuple[Callable[[], Dialog[Any]], object]] = {
    "choice": (lambda: ChoiceDialog("Model", [("a", "Alpha")]), None),
    "info": (lambda: InfoDialog("Session", "- one"), None),
    "keys": (lambda: KeysDialog([]), None),
    "text": (lambda: TextDialog("Name"), None),
    "recompact": (lambda: RecompactDialog("c0ffee12"), None),
    "picker": (lambda: SessionPicker("/nowhere", lambda cwd: []), None),
    "tree": (lambda: TreeDialog(lambda mode: [], lambda entry, text: None), None),
    "approval": (lambda: ApprovalDialog("bash", {"command": "ls"}), "no"),
    "confirm": (lambda: ConfirmCompactionDialog("threshold", 100, seconds=3600), False),
}


@pytest.mark.parametrize("name", ESCAPE_ANSWERS)
async def test_escape_dismisses_every_dialog_with_its_answer(name: str) -> None:
    make, expected = ESCAPE_ANSWERS[name]
    answers: list[object] = []
    app: App[None] = App()
    async with app.run_test(size=SIZE) as pilot:
        dialog = make()
        app.push_screen(dialog, callback=answers.append)
        await until(lambda: app.screen is dialog and dialog.is_mounted, pilot=pilot, what="the dialog")
        await pilot.press("escape")
        await until(lambda: answers, pilot=pilot, what="the answer")
        assert answers == [expected]
        assert app.screen is not dialog


async def test_a_title_quoting_the_users_text_is_shown_as_written() -> None:
    # A session named "[b]draft[/b]": as markup the brackets would vanish and the name read "draft".
    app: App[None] = App()
    async with app.run_test(size=SIZE) as pilot:
        dialog = TextDialog("Rename: [b]draft[/b]")
        app.push_screen(dialog)
        await until(lambda: dialog.is_mounted, pilot=pilot, what="the dialog")
        assert str(dialog.query_one("#dialog-title", Label).render()) == "Rename: [b]draft[/b]"
