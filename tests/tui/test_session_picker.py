"""The session picker (`/resume`) and the start page's browser: search, sort, scope, on real session files."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from textual.widgets import Input

from pi_tui.config.paths import cwd_folder_name
from pi_tui.session_file.listing import list_sources
from pi_tui.tui.app import PiTuiApp
from pi_tui.tui.screens.chat import ChatScreen
from pi_tui.tui.screens.dialogs import ChoiceDialog, TextDialog
from pi_tui.tui.screens.session_picker import SessionPicker
from pi_tui.tui.screens.start_page import StartScreen
from pi_tui.tui.themed_app import ThemedApp
from pi_tui.tui.widgets.session_browser import SessionBrowser, SessionRow, arrange
from tests.support.session_files import write_sessions_to_resume
from tests.support.waiting import until

from .chat_fixtures import make_chat_app
from .conftest import PROJECT
from .pilot_helpers import settle, shown_notices
from .test_app import make_app

SIZE = (120, 40)


def titles(browser: SessionBrowser) -> list[str]:
    return [row.title for row in browser.shown]


def test_arrange_filters_on_every_field_and_sorts_four_ways() -> None:
    def row(title: str, count: int, created: int, modified: int, cwd: str = "/p") -> SessionRow:
        return SessionRow(
            key=title,
            modified=datetime(2026, 1, modified, tzinfo=UTC),
            title=title,
            message_count=count,
            source="pi-tui",
            created=datetime(2026, 1, created, tzinfo=UTC),
            session_id=f"id-{title.lower()}",
            cwd=cwd,
            first_message=f"first of {title}",
        )

    rows = [row("Beta", 5, 1, 9), row("alpha", 9, 3, 4), row("Gamma", 1, 2, 2, cwd="/elsewhere")]
    assert [r.title for r in arrange(rows, "modified")] == ["Beta", "alpha", "Gamma"]
    assert [r.title for r in arrange(rows, "created")] == ["alpha", "Gamma", "Beta"]
    assert [r.title for r in arrange(rows, "name")] == ["alpha", "Beta", "Gamma"]
    assert [r.title for r in arrange(rows, "messages")] == ["alpha", "Beta", "Gamma"]
    assert [r.title for r in arrange(rows, "modified", "ELSEWHERE")] == ["Gamma"]
    assert [r.title for r in arrange(rows, "modified", "id-beta")] == ["Beta"]
    assert [r.title for r in arrange(rows, "modified", "first alpha")] == ["alpha"]
    assert arrange(rows, "modified", "first nothing") == []


@pytest.fixture
def homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """pi-tui's and pi's session roots under `tmp_path`; three sessions, two of them in the project."""
    monkeypatch.setenv("PI_TUI_HOME", str(tmp_path / "pi-tui-home"))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "pi-agent"))
    project = str(tmp_path / "project")
    write_sessions_to_resume(
        tmp_path / "pi-tui-home" / "sessions", tmp_path / "pi-agent" / "sessions", project
    )
    return tmp_path


async def test_resume_picker_searches_sorts_widens_and_opens(homes: Path) -> None:
    app, session, _ = make_chat_app(homes, [])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press(*"/resume", "enter")
        await settle(pilot)
        await pilot.press("down", "escape")  # Esc: back, nothing changed
        await settle(pilot)
        assert isinstance(app.screen, ChatScreen) and app.runtime.session is session  # type: ignore[union-attr]

        await pilot.press(*"/resume", "enter")
        await settle(pilot)
        picker = app.screen
        assert isinstance(picker, SessionPicker)
        browser = picker.query_one(SessionBrowser)
        assert titles(browser) == ["parser", "add caching"]  # this directory, newest first

        await pilot.press("ctrl+s")
        assert browser.sort_mode == "created" and titles(browser) == ["add caching", "parser"]
        await pilot.press("ctrl+s")
        assert browser.sort_mode == "name" and titles(browser) == ["add caching", "parser"]
        await pilot.press("ctrl+s")
        assert browser.sort_mode == "messages" and titles(browser) == ["parser", "add caching"]
        assert "sorted by messages" in str(picker.query_one("#dialog-title").render())

        await pilot.press("tab")  # every directory, pi's sessions included
        await settle(pilot)
        assert titles(browser) == ["deploy notes", "parser", "add caching"]
        assert "(/srv/other)" in str(browser.get_row_at(0)[3])

        await pilot.press(*"srv")  # the directory is searched too
        assert titles(browser) == ["deploy notes"]
        search = picker.query_one(Input)
        search.value = "its tests"  # only the first message is searched, not every message
        await pilot.pause()
        assert titles(browser) == []
        search.value = "fix"  # ... the first message of a named session
        await pilot.pause()
        assert titles(browser) == ["parser"]

        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ChatScreen)
        assert app.runtime is not None and app.runtime.session.store.session_id == "aaaa1111"


async def test_start_page_sorts_with_s_and_searches_after_a_slash(
    pi_session_root: Path, tmp_path: Path
) -> None:
    app = make_app(PROJECT, pi_session_root, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        browser = app.query_one(SessionBrowser)
        by_modified = titles(browser)
        await pilot.press("s", "s", "s")
        assert browser.sort_mode == "messages"
        counts = [row.message_count for row in browser.shown]
        assert counts == sorted(counts, reverse=True) and titles(browser) != by_modified
        assert "sort: messages" in str(browser.border_subtitle)

        # Typed into the table: the start page's own letter keys (a: all directories) do not fire.
        await pilot.press("slash", *"api")
        await settle(pilot)
        assert titles(browser) == ["API cache design"] and not start_page(app).show_all
        assert browser.row_count == 1 and "search: api" in str(browser.border_subtitle)
        await pilot.press("enter", "a")  # Enter ends typing; the keys are the page's again
        await settle(pilot)
        assert start_page(app).show_all and titles(browser) == ["API cache design"]

        await pilot.press("slash", "escape")  # Esc clears the search
        assert browser.row_count == 4 and browser.query_text == ""


def start_page(app: PiTuiApp) -> StartScreen:
    screen = app.screen
    assert isinstance(screen, StartScreen)
    return screen


class PickerHost(ThemedApp[None]):
    """The picker alone over an empty screen, as `/resume` shows it while `current` is open."""

    def __init__(self, cwd: str, current: Path) -> None:
        super().__init__()
        self.picker = SessionPicker(cwd, list_sources, current=current)

    def on_mount(self) -> None:
        self.push_screen(self.picker)


async def test_picker_filters_named_renames_and_deletes_like_pis(
    homes: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(homes / "no-trash-here"))  # deleted for good, never to a real trash
    project = str(homes / "project")
    folder = homes / "pi-tui-home" / "sessions" / cwd_folder_name(project)
    app = PickerHost(project, current=folder / "aaaa1111.jsonl")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        picker = app.picker
        browser = picker.query_one(SessionBrowser)
        assert titles(browser) == ["parser", "add caching"]

        await pilot.press("ctrl+n")
        assert titles(browser) == ["parser"] and "named only" in str(browser.border_subtitle)
        assert "named sessions, this directory (1)" in str(picker.query_one("#dialog-title").render())
        await pilot.press("ctrl+n")
        assert titles(browser) == ["parser", "add caching"]

        await pilot.press("down", "ctrl+r")
        await settle(pilot)
        assert isinstance(app.screen, TextDialog)
        await pilot.press(*"caching [wip]", "enter")
        await settle(pilot)
        assert app.screen is picker and titles(browser) == ["parser", "caching [wip]"]
        info = json.loads((folder / "bbbb2222.jsonl").read_text().splitlines()[-1])
        assert (info["type"], info["name"]) == ("session_info", "caching [wip]")
        # Shown as typed: read as markup, "[wip]" would be dropped.
        await until(lambda: "Named 'caching [wip]'" in shown_notices(app), pilot=pilot, what="the new name")

        await pilot.press("up", "ctrl+d")  # the open session
        await settle(pilot)
        assert app.screen is picker and (folder / "aaaa1111.jsonl").exists()
        await until(
            lambda: any("cannot be deleted" in notice for notice in shown_notices(app)),
            pilot=pilot,
            what="why the open session stays",
        )

        await pilot.press("down", "ctrl+d")
        await settle(pilot)
        assert isinstance(app.screen, ChoiceDialog)
        await pilot.press("escape")  # changed its mind
        await settle(pilot)
        assert (folder / "bbbb2222.jsonl").exists()

        await pilot.press("ctrl+d")
        await settle(pilot)
        await pilot.press("enter")  # "Delete it" is first, as Enter confirms in pi
        await settle(pilot)
        assert not (folder / "bbbb2222.jsonl").exists()
        assert app.screen is picker and titles(browser) == ["parser"]
        await until(lambda: "Session deleted" in shown_notices(app), pilot=pilot, what="the deletion said")
