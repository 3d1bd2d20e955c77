"""The approval mode switch (issue #27): F5 and /approval cycle off / edits / all, the footer shows
the mode, and --keep writes the user's own settings only, never the project's `.pi-tui/`."""

from __future__ import annotations

import json
from pathlib import Path

from textual.widgets import Static

from pi_tui.ai.scripted import ScriptedReply, ScriptedToolCall
from pi_tui.config.paths import settings_path
from pi_tui.config.project_trust import project_key
from pi_tui.config.settings import Settings
from pi_tui.config.settings_files import load_settings, project_settings_path
from pi_tui.tui.screens.approval_dialog import ApprovalDialog
from pi_tui.tui.widgets.message_blocks import NoticeBlock
from tests.support.waiting import until

from .chat_fixtures import make_chat_app
from .pilot_helpers import settle

SIZE = (80, 24)


def footer_model(app: object) -> str:
    return str(app.screen.query_one("#footer-model", Static).render())  # type: ignore[attr-defined]


async def test_f5_cycles_the_modes_and_the_footer_shows_each(tmp_path: Path) -> None:
    app, session, _ = make_chat_app(tmp_path, [])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert session.approval.mode == "off" and "approval" not in footer_model(app)
        seen = []
        for _ in range(3):
            await pilot.press("f5")
            await settle(pilot)
            seen.append((session.approval.mode, footer_model(app).split(" • ")[0]))
        assert seen == [("edits", "approval edits"), ("all", "approval all"), ("off", "scripted-model")]


async def test_approval_all_asks_before_ls_and_the_choice_holds_over_reload(tmp_path: Path) -> None:
    ls = ScriptedReply(tool_calls=[ScriptedToolCall(name="ls", arguments={"path": "."})])
    tools = Settings(default_tools=["read", "bash", "edit", "write", "ls"])
    app, session, _ = make_chat_app(tmp_path, [ls, ScriptedReply(text="listed")], settings=tools)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press(*"/approval all", "enter")
        await until(lambda: session.approval.mode == "all", pilot=pilot, what="approval all")
        assert "approval all" in footer_model(app)
        await session.reload()  # settings read again: the run's choice stays
        assert session.approval.mode == "all"

        await pilot.press(*"list", "enter")
        await until(lambda: isinstance(app.screen, ApprovalDialog), pilot=pilot, what="ls asking first")
        await pilot.press("y")
        await until(lambda: not session.is_running, pilot=pilot, what="the run to end")
        assert not settings_path().exists() or "approvalByProject" not in settings_path().read_text()


async def test_keep_writes_the_users_settings_for_this_project_only(tmp_path: Path) -> None:
    app, session, _ = make_chat_app(tmp_path, [])
    cwd = session.resources.cwd
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press(*"/approval edits --keep", "enter")
        await until(lambda: session.approval.mode == "edits", pilot=pilot, what="approval edits")
        await settle(pilot)
    document = json.loads(settings_path().read_text())
    assert document["approvalByProject"] == {project_key(cwd): "edits"}
    assert not project_settings_path(cwd).exists()
    assert load_settings(cwd).settings.approval == "edits"
    assert load_settings(tmp_path / "elsewhere").settings.approval == "off"


async def test_a_wrong_argument_says_the_usage_and_changes_nothing(tmp_path: Path) -> None:
    app, session, _ = make_chat_app(tmp_path, [])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press(*"/approval sometimes", "enter")
        await settle(pilot)
        assert session.approval.mode == "off"
        notice = str(app.screen.query(NoticeBlock).last().render())
        assert "usage: /approval [off|edits|all] [--keep]" in notice
