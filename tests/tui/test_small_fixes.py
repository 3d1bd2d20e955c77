"""Smaller things a daily user meets: the search status follows the selected tool call, a model switch
that changes the thinking level says so, and toasts leave the model name readable."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from textual.widgets._toast import Toast

from pi_tui.ai.scripted import ScriptedReply
from pi_tui.tui.screens.dialogs import ChoiceDialog
from tests.support.waiting import until

from .chat_fixtures import make_chat_app
from .pilot_helpers import settle, shown_notices
from .test_tool_output_viewer import SIZE, ViewerApp, call, opener, viewer_of


async def test_the_search_status_resets_with_the_selection_and_the_view(tmp_path: Path) -> None:
    calls = [call("c1", "alpha\nbeta\nalpha"), call("c2", "gamma\ndelta")]
    async with ViewerApp(calls, opener(tmp_path / "none")).run_test(size=SIZE) as pilot:
        viewer = viewer_of(pilot)
        status = viewer.query_one("#tool-output-status")
        viewer.select("c1")
        await settle(pilot)
        await pilot.press("ctrl+f", *"alpha", "enter")
        await settle(pilot)
        assert viewer.line_view.matches == [0, 2] and str(status.render()) == "1 of 2"
        viewer.select("c2")
        await settle(pilot)
        assert viewer.line_view.matches == [] and str(status.render()) == ""
        await pilot.press("n")  # nothing to step to: no jump into the other call's lines
        assert viewer.line_view.current_match is None
        viewer.select("c1")
        await settle(pilot)
        await pilot.press("ctrl+f", *"beta", "enter")
        await settle(pilot)
        assert str(status.render()) == "1 of 1"
        await pilot.press("t")  # the full view is another text: its own search
        await settle(pilot)
        assert viewer.line_view.matches == [] and str(status.render()) == ""


def plain_model_registry() -> None:
    """models.json with one model that has no thinking levels (never called: only chosen)."""
    home = Path(os.environ["PI_TUI_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    model = {"id": "plain-model", "contextWindow": 8000, "maxTokens": 1000, "reasoning": False}
    provider = {"baseUrl": "http://127.0.0.1:9/v1", "api": "openai-completions", "models": [model]}
    (home / "models.json").write_text(json.dumps({"providers": {"local": provider}}))


async def test_a_model_switch_that_changes_the_thinking_level_says_so(tmp_path: Path) -> None:
    plain_model_registry()
    app, session, _ = make_chat_app(tmp_path, [ScriptedReply(text="hi")])
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await settle(pilot)
        assert session.thinking_level == "medium"
        await pilot.press("ctrl+l")
        await until(lambda: isinstance(app.screen, ChoiceDialog), pilot=pilot, what="the model list")
        await pilot.press(*"plain", "enter")
        await until(lambda: session.model is not None and session.model.id == "plain-model", pilot=pilot)
        await settle(pilot)
        said = "Thinking medium → off: plain-model has no thinking levels."
        await until(lambda: said in shown_notices(app), pilot=pilot, what="the thinking level's change")


@pytest.mark.parametrize("size", [(80, 24), (120, 36)], ids=["80x24", "120x36"])
async def test_a_toast_leaves_the_model_name_readable(tmp_path: Path, size: tuple[int, int]) -> None:
    app, _, _ = make_chat_app(tmp_path, [])
    async with app.run_test(size=size, notifications=True) as pilot:
        await settle(pilot)
        app.notify("Queued as a follow-up for when the agent stops, a long enough text to wrap.")
        await until(lambda: bool(app.screen.query(Toast)), pilot=pilot, what="the toast")
        await pilot.pause()
        model = app.screen.query_one("#footer-model")
        assert "scripted-model" in str(model.render())
        for toast in app.screen.query(Toast):
            assert not toast.region.overlaps(model.region)
            assert toast.region.bottom <= app.screen.query_one("#status").region.y
