"""SVG snapshots of the start page at 120x40 (plain `def` tests: snap_compare runs its own loop)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from pi_tui.tui.app import PiTuiApp

from .conftest import PROJECT
from .pilot_helpers import settle

SIZE = (120, 40)


async def highlight_tree_session(pilot: Pilot[Any]) -> None:
    await settle(pilot)
    await pilot.press("down", "down")
    await settle(pilot)


@pytest.mark.parametrize("theme", ["textual-dark", "textual-light"])
def test_start_page(snap_compare: Any, pi_session_root: Path, tmp_path: Path, theme: str) -> None:
    app = PiTuiApp(
        cwd=Path(PROJECT),
        session_root=tmp_path / "ours",
        pi_session_root=pi_session_root,
        setup_notice="No model configured. Set OPENAI_API_KEY, or describe your models in models.json.",
    )
    app.theme = theme
    assert snap_compare(app, terminal_size=SIZE, run_before=highlight_tree_session)
