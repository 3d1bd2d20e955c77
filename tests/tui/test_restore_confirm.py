"""Restoring from the Compactions pane says what it brings back and asks first; afterwards the pane says
that automatic compaction is paused."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from pi_tui.ai.scripted import ScriptedReply
from pi_tui.config.settings import CompactionSettings, Settings
from pi_tui.session.restore_hold import restore_hold
from pi_tui.session_file.entries import CompactionEntry
from pi_tui.tui.screens.dialogs import ChoiceDialog
from pi_tui.tui.timeline_view import PAUSED_AFTER_RESTORE
from pi_tui.tui.widgets.compaction_timeline import CompactionTimeline
from tests.support.waiting import until

from .chat_fixtures import make_chat_app
from .pilot_helpers import settle, submit

SIZE = (140, 44)


async def test_restore_is_confirmed_with_its_cost_and_the_pane_says_compaction_is_paused(
    tmp_path: Path,
) -> None:
    replies = [ScriptedReply(text="answer " * 400), ScriptedReply(text="answer two " * 300)]
    replies += [ScriptedReply(text="## Goal\nShip it."), ScriptedReply(text="## Original Request\nx")]
    settings = Settings(compaction=CompactionSettings(strategy="serialize", keep_recent_tokens=1_000))
    app, session, _ = make_chat_app(tmp_path, replies, settings=settings)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await submit(pilot, "first " * 300)
        await submit(pilot, "second " * 300)
        await submit(pilot, "/compact")
        await until(lambda: any(isinstance(e, CompactionEntry) for e in session.store.entries), pilot=pilot)
        leaf = session.store.leaf_id
        await pilot.press("f4")
        await settle(pilot)
        timeline = app.screen.query_one(CompactionTimeline)
        timeline.query_one("#timeline-table").focus()
        await pilot.press("r")
        await until(lambda: isinstance(app.screen, ChoiceDialog), pilot=pilot)
        dialog = app.screen
        assert isinstance(dialog, ChoiceDialog) and dialog.title_text == "Restore before this compaction?"
        assert dialog.hint.startswith("Brings back the ") and "the context becomes about" in dialog.hint

        await pilot.press("escape")  # cancelled: nothing moved
        await settle(pilot)
        assert session.store.leaf_id == leaf and restore_hold(session.store) is None

        timeline.query_one("#timeline-table").focus()
        await pilot.press("r")
        await until(lambda: isinstance(app.screen, ChoiceDialog), pilot=pilot)
        await pilot.press("enter")  # the first choice: restore
        await until(lambda: restore_hold(session.store) is not None, pilot=pilot)
        await settle(pilot)

        def paused_shown() -> bool:
            return any(
                str(widget.render()) == PAUSED_AFTER_RESTORE
                for widget in app.screen.query(".preview-paused").results(Static)
            )

        await pilot.press("v")  # a fresh preview of the next compaction
        await until(paused_shown, pilot=pilot)
