"""A tool block's seconds count while a command prints nothing (`sleep 6; echo done` stayed at
"[running 0.0s]" while the status line counted)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_tui.ai.scripted import ScriptedReply, ScriptedToolCall
from pi_tui.tui.widgets import conversation
from pi_tui.tui.widgets.tool_call_block import ToolCallBlock
from tests.support.waiting import until

from .chat_fixtures import make_chat_app
from .pilot_helpers import settle
from .test_activity_line import GATED, SIZE, FakeClock


async def test_a_silent_commands_block_counts_its_seconds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = FakeClock()
    monkeypatch.setattr(conversation, "clock", fake)
    call = ScriptedToolCall(name="bash", arguments={"command": GATED}, id="gated")
    app, session, _ = make_chat_app(tmp_path, [ScriptedReply(tool_calls=[call]), ScriptedReply(text="done")])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.screen.query_one("#prompt").text = "wait"  # type: ignore[attr-defined]
        await pilot.press("enter")
        await until(lambda: app.screen.query(ToolCallBlock), pilot=pilot, what="the tool block")
        block = app.screen.query_one(ToolCallBlock)
        fake.now += 3
        await until(lambda: "[running 3.0s]" in block._head(), pilot=pilot, what="the block's seconds")
        (tmp_path / "project" / "release").write_text("")
        await session.wait_for_idle()
        await settle(pilot)
        assert "[done" in block._head()
