"""The rewind's other doors in the app, with Pilot on real files: a compaction restore from the F4
pane bringing the files along, the Tools pane's `u` (this call's files to before it), ticking which
conflicting files to overwrite (at 80x24) and undoing that rewind, and the tree marking points the
checkpoint cap broke."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import OptionList, SelectionList, Static

from pi_tui.session_file.entries import CompactionEntry, CustomEntry
from pi_tui.session_file.tree_listing import FILES_GONE_NOTE
from pi_tui.tui.screens.chat import ChatScreen
from pi_tui.tui.screens.dialogs import ChoiceDialog
from pi_tui.tui.screens.rewind_dialog import RewindDialog
from pi_tui.tui.screens.tree_dialog import TreeDialog
from pi_tui.tui.widgets.compaction_timeline import CompactionTimeline
from pi_tui.tui.widgets.conversation import ConversationView
from pi_tui.tui.widgets.tool_call_block import ToolCallBlock
from pi_tui.tui.widgets.tool_output_viewer import ToolOutputViewer
from tests.support.rewind_story import (
    AFTER_COMPACTION,
    BEFORE_COMPACTION,
    BEFORE_PROMPTS,
    COMPACTION_SETTINGS,
    FOUR_STEPS,
    SUMMARY,
    drop_oldest_object,
)
from tests.support.waiting import until

from .chat_fixtures import make_chat_app
from .pilot_helpers import settle, submit

SIZE = (120, 40)


def plan_text(dialog: object) -> str:
    assert isinstance(dialog, RewindDialog)
    return str(dialog.query_one("#rewind-plan Static", Static).render())


async def test_restoring_a_compaction_brings_the_files_along(tmp_path: Path) -> None:
    replies = [*BEFORE_COMPACTION, SUMMARY, *AFTER_COMPACTION]
    app, session, _ = make_chat_app(tmp_path, replies, settings=COMPACTION_SETTINGS)
    project = Path(session.resources.cwd)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for prompt in BEFORE_PROMPTS:
            await submit(pilot, prompt)
        await submit(pilot, "/compact")
        await until(lambda: any(isinstance(e, CompactionEntry) for e in session.store.entries), pilot=pilot)
        await submit(pilot, "third edit")
        assert (project / "app.py").read_text() == "three\n"

        await pilot.press("f4")
        await settle(pilot)
        app.screen.query_one(CompactionTimeline).query_one("#timeline-table").focus()
        await pilot.press("r")
        await until(lambda: isinstance(app.screen, ChoiceDialog), pilot=pilot)
        await pilot.press("enter")  # restore: continue from before the compaction
        await until(lambda: isinstance(app.screen, RewindDialog), pilot=pilot)
        dialog = app.screen
        assert isinstance(dialog, RewindDialog) and dialog.title_text == "Bring the files along too?"
        shown = plan_text(dialog)
        assert "restore  app.py" in shown and "-three" in shown and "+two" in shown
        assert (project / "app.py").read_text() == "three\n"  # nothing written before the answer
        await pilot.press("enter")
        await until(lambda: (project / "app.py").read_text() == "two\n", pilot=pilot)
        leaf = session.store.get_entry(session.store.leaf_id or "")
        assert isinstance(leaf, CustomEntry) and leaf.custom_type == "pi-tui.rewind"


async def test_u_in_the_tools_pane_restores_that_calls_file_to_before_it(tmp_path: Path) -> None:
    app, session, _ = make_chat_app(tmp_path, list(FOUR_STEPS))
    project = Path(session.resources.cwd)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for prompt in ("write it", "second edit", "third edit", "build"):
            await submit(pilot, prompt)
        blocks = list(app.screen.query_one(ConversationView).query_children(ToolCallBlock))
        assert [block.tool_name for block in blocks] == ["write", "edit", "edit", "write", "bash"]
        await pilot.click(blocks[2])  # edit two → three
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ChatScreen)
        viewer = screen.query_one(ToolOutputViewer)
        notice = str(viewer.query_one("#tool-output-notice").render())
        assert "u: restore to before" in notice
        viewer.focus()
        await pilot.press("u")
        await until(lambda: isinstance(app.screen, RewindDialog), pilot=pilot)
        dialog = app.screen
        assert isinstance(dialog, RewindDialog) and dialog.title_text == "Restore to before this call"
        shown = plan_text(dialog)
        # Only that call's file: notes.md (written by the same turn, deleted by bash) stays out of it.
        assert "restore  app.py" in shown and "-three" in shown and "+two" in shown
        assert "notes.md" not in shown and "out.txt" not in shown
        await pilot.press("enter")
        await until(lambda: (project / "app.py").read_text() == "two\n", pilot=pilot)
        assert (project / "out.txt").read_text() == "built\n" and not (project / "notes.md").exists()


async def test_conflicting_files_are_overwritten_only_when_ticked(tmp_path: Path) -> None:
    app, session, _ = make_chat_app(tmp_path, list(FOUR_STEPS))
    project = Path(session.resources.cwd)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for prompt in ("write it", "second edit", "third edit", "build"):
            await submit(pilot, prompt)
        (project / "app.py").write_text("mine\n")
        (project / "out.txt").write_text("mine too\n")

        await submit(pilot, "/rewind")
        await until(lambda: isinstance(app.screen, ChoiceDialog), pilot=pilot)
        await pilot.press(*"second", "enter")
        await until(lambda: isinstance(app.screen, ChoiceDialog) and app.screen.title_text == "Rewind")
        await pilot.press("down", "down", "enter")  # files only
        await until(lambda: isinstance(app.screen, RewindDialog), pilot=pilot)
        dialog = app.screen
        assert isinstance(dialog, RewindDialog)
        assert plan_text(dialog).count("CONFLICT (changed outside pi-tui since)") == 2
        conflicts = dialog.query_one(SelectionList)
        choices = dialog.query_one("#rewind-choices", OptionList)
        # At 80x24 every part is on screen, none over another: the diff, the choices, the conflicts
        # to tick and the Esc hint.
        parts = [
            dialog.query_one("#rewind-plan").region,
            choices.region,
            conflicts.region,
            dialog.query_one("#rewind-bottom .dialog-hint").region,
        ]
        assert all(part.height > 0 and app.screen.region.contains_region(part) for part in parts)
        assert all(not a.overlaps(b) for i, a in enumerate(parts) for b in parts[i + 1 :])
        assert [str(choices.get_option_at_index(i).prompt) for i in range(choices.option_count)] == [
            "Restore 0 file(s), leave the conflicts",
            "Restore and overwrite all 2 conflict(s)",
        ]
        await pilot.press("tab")  # to the conflicts
        assert conflicts.has_focus
        await pilot.press("space")  # ticks the first, app.py
        await until(lambda: conflicts.selected == ["app.py"], pilot=pilot)
        restore = str(choices.get_option_at_index(0).prompt)
        assert restore == "Restore 0 file(s) and overwrite the 1 ticked conflict(s)"
        await pilot.press("shift+tab", "enter")
        await until(lambda: (project / "app.py").read_text() == "one\n", pilot=pilot)
        await settle(pilot)
        assert (project / "out.txt").read_text() == "mine too\n"  # not ticked: left

        # The rewind kept what it replaced: undoing it brings the overwritten hand edit back.
        await submit(pilot, "/rewind")
        await until(lambda: isinstance(app.screen, ChoiceDialog), pilot=pilot)
        await pilot.press("enter")  # the first choice
        await until(lambda: isinstance(app.screen, RewindDialog), pilot=pilot)
        assert app.screen.title_text == "Undo the last rewind"
        shown = plan_text(app.screen)
        assert "restore  app.py" in shown and "-one" in shown and "+mine" in shown and "out.txt" not in shown
        await pilot.press("enter")
        await until(lambda: (project / "app.py").read_text() == "mine\n", pilot=pilot)
        assert (project / "out.txt").read_text() == "mine too\n"


async def test_the_tree_marks_points_whose_files_the_cap_dropped(tmp_path: Path) -> None:
    app, session, _ = make_chat_app(tmp_path, list(FOUR_STEPS))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for prompt in ("write it", "second edit", "third edit", "build"):
            await submit(pilot, prompt)
        drop_oldest_object(session, b"one\n")
        await submit(pilot, "/tree")
        await until(lambda: isinstance(app.screen, TreeDialog), pilot=pilot)
        options = app.screen.query_one("#tree-options", OptionList)
        texts = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        marked = [text.strip() for text in texts if FILES_GONE_NOTE in text]
        # Every point where app.py was "one": after the write up to just before the second edit.
        one = ("write result", "assistant: wrote", "user: second edit")
        assert marked == [f"• {text}  {FILES_GONE_NOTE}" for text in one]
        await pilot.press("escape")
