"""The inspector's table fills only while the pane is on screen, a batch of rows per frame."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_tui.tui.inspector_view import table_rows
from pi_tui.tui.widgets import context_inspector
from pi_tui.tui.widgets.context_inspector import ContextInspector

from .test_context_inspector import SIZE, InspectorHost, inspect, run_session, table_keys


async def test_rows_arrive_in_batches_until_the_table_is_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(context_inspector, "FILL_BATCH", 2)
    inspected = inspect(await run_session(tmp_path))
    expected = [row.key for row in table_rows(inspected.data, inspected.texts)]
    assert len(expected) > 4
    app = InspectorHost()
    async with app.run_test(size=SIZE) as pilot:
        inspector = app.query_one(ContextInspector)
        inspector.show(inspected.data, inspected.texts)
        assert table_keys(inspector) == expected[:2]
        for _ in range(len(expected)):
            await pilot.pause()
        assert table_keys(inspector) == expected


async def test_a_hidden_pane_fills_its_table_when_shown(tmp_path: Path) -> None:
    inspected = inspect(await run_session(tmp_path))
    app = InspectorHost()
    async with app.run_test(size=SIZE) as pilot:
        inspector = app.query_one(ContextInspector)
        inspector.display = False
        await pilot.pause()
        inspector.show(inspected.data, inspected.texts)
        assert inspector.table.row_count == 0
        inspector.display = True
        await pilot.pause()
        await pilot.pause()
        assert table_keys(inspector) == [row.key for row in table_rows(inspected.data, inspected.texts)]
