"""The side panel is a widget of its own: the workers that build its panes are its, and end with it."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from textual.worker import WorkerState

from pi_tui.tui.screens.chat import ChatScreen
from pi_tui.tui.widgets.side_panel import SidePanel
from tests.support.waiting import until

from .chat_fixtures import make_chat_app
from .pilot_helpers import settle

SIZE = (120, 36)


async def test_a_context_refresh_runs_on_the_panel_and_is_cancelled_when_the_panel_goes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app, _, _ = make_chat_app(tmp_path, [])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ChatScreen)
        panel = screen.side_panel
        building = threading.Event()
        release = threading.Event()
        build = screen.session.inspector_data

        def held(cache: Any = None, **kwargs: Any) -> Any:
            if cache is panel._inspector_cache:  # not the footer's count
                building.set()
                release.wait(timeout=30)
            return build(cache, **kwargs)

        monkeypatch.setattr(screen.session, "inspector_data", held)
        worker = panel.refresh_context_pane()
        await until(building.is_set, pilot=pilot, what="the refresh to start")
        assert worker.node is panel and isinstance(worker.node, SidePanel)
        try:
            await panel.remove()
            await until(lambda: worker.state is WorkerState.CANCELLED, pilot=pilot, what="the cancellation")
        finally:
            release.set()
