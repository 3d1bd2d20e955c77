"""`/rewind` and the tree's "bring the files along" on the chat screen, driven with Pilot on real
files: three edits and a bash change, back to before the second edit (the diff shown), a new branch,
back to the first branch with its files, and a file edited by hand in between left as a conflict."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from pi_tui.ai.scripted import ScriptedReply
from pi_tui.tui.screens.dialogs import ChoiceDialog
from pi_tui.tui.screens.rewind_dialog import RewindDialog
from pi_tui.tui.screens.tree_dialog import TreeDialog
from pi_tui.tui.widgets.prompt_area import PromptArea
from tests.support.rewind_story import FOUR_STEPS, edit
from tests.support.waiting import until

from .chat_fixtures import make_chat_app
from .pilot_helpers import settle, submit

SIZE = (120, 40)


async def test_rewind_then_a_new_branch_then_the_first_branch_with_its_files(tmp_path: Path) -> None:
    extra = [ScriptedReply(tool_calls=[edit("app.py", "one", "uno")]), ScriptedReply(text="ok")]
    app, session, _ = make_chat_app(tmp_path, FOUR_STEPS + extra)
    project = Path(session.resources.cwd)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for prompt in ("write it", "second edit", "third edit", "build"):
            await submit(pilot, prompt)
            await until(lambda: not session.agent.is_running)
        await settle(pilot)
        assert (project / "app.py").read_text() == "three\n"

        await submit(pilot, "/rewind")
        await until(lambda: isinstance(app.screen, ChoiceDialog))
        await pilot.press(*"second", "enter")
        await until(lambda: isinstance(app.screen, ChoiceDialog) and app.screen.title_text == "Rewind")
        await pilot.press("enter")  # files and conversation
        await until(lambda: isinstance(app.screen, RewindDialog))
        shown = str(app.screen.query_one("#rewind-plan Static", Static).render())
        assert "restore  app.py" in shown and "-three" in shown and "delete  out.txt" in shown
        await pilot.press("enter")
        await until(lambda: (project / "app.py").read_text() == "one\n")
        assert not (project / "out.txt").exists()
        await until(lambda: app.screen.query_one(PromptArea).text == "second edit")

        app.screen.query_one(PromptArea).text = ""
        await submit(pilot, "another second edit")
        await until(lambda: (project / "app.py").read_text() == "uno\n" and not session.agent.is_running)
        await settle(pilot)

        await submit(pilot, "/tree")
        await until(lambda: isinstance(app.screen, TreeDialog))
        await pilot.press(*"ran", "enter")
        await until(lambda: isinstance(app.screen, ChoiceDialog))
        await pilot.press("enter")  # no summary
        await until(lambda: isinstance(app.screen, RewindDialog))
        await pilot.press("enter")  # bring the files along
        await until(lambda: (project / "app.py").read_text() == "three\n")
        assert (project / "out.txt").read_text() == "built\n"
        await settle(pilot)

        # A file edited by hand in between is a conflict: listed, and left as it is.
        (project / "app.py").write_text("by hand\n")
        await submit(pilot, "/tree")
        await until(lambda: isinstance(app.screen, TreeDialog))
        await pilot.press(*"another", "enter")
        await until(lambda: isinstance(app.screen, ChoiceDialog))
        await pilot.press("enter")  # no summary
        await until(lambda: isinstance(app.screen, RewindDialog))
        shown = str(app.screen.query_one("#rewind-plan Static", Static).render())
        assert "CONFLICT (changed outside pi-tui since)  app.py" in shown and "delete  out.txt" in shown
        await pilot.press("enter")  # restore, leave the conflicts
        await until(lambda: not (project / "out.txt").exists())
        await settle(pilot)
        assert (project / "app.py").read_text() == "by hand\n"
