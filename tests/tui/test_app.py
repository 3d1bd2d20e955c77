"""The start page driven as a user would, with Pilot, on real pi session files."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from pi_tui.tui.app import PiTuiApp
from pi_tui.tui.widgets.session_browser import SessionBrowser
from pi_tui.tui.widgets.session_preview import SessionPreview

from .conftest import PROJECT
from .pilot_helpers import settle


def make_app(
    cwd: str, pi_session_root: Path, tmp_path: Path, notice: str = "No model configured."
) -> PiTuiApp:
    return PiTuiApp(
        cwd=Path(cwd),
        session_root=tmp_path / "ours",
        pi_session_root=pi_session_root,
        setup_notice=notice,
    )


def preview_text(app: PiTuiApp) -> str:
    return "\n".join(str(widget.render()) for widget in app.query_one(SessionPreview).query(Static))


async def test_lists_sessions_of_the_cwd_and_previews_the_highlighted_one(
    pi_session_root: Path, tmp_path: Path
) -> None:
    app = make_app(PROJECT, pi_session_root, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        browser = app.query_one(SessionBrowser)
        assert browser.row_count == 4
        assert browser.border_title == "Sessions — this directory (4)"

        await pilot.press("down", "down")
        await settle(pilot)

        text = preview_text(app)
        assert "API cache design" in text
        assert "f-tree.jsonl" in text
        assert "model: fake/fake-model" in text


async def test_other_directory_starts_empty_and_a_lists_everything(
    pi_session_root: Path, tmp_path: Path
) -> None:
    app = make_app(str(tmp_path / "elsewhere"), pi_session_root, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.query_one(SessionBrowser).row_count == 0
        assert "No sessions in this directory yet" in preview_text(app)

        await pilot.press("a")
        await settle(pilot)
        assert app.query_one(SessionBrowser).row_count == 4
        assert app.query_one(SessionBrowser).border_title == "Sessions — all directories (4)"


async def test_preview_reports_corrupt_lines_without_failing(pi_session_root: Path, tmp_path: Path) -> None:
    folder = next(pi_session_root.iterdir())
    damaged = folder / "a-plain.jsonl"
    lines = damaged.read_text().splitlines(keepends=True)
    damaged.write_text("".join([*lines[:4], "{not json\n", *lines[4:]]))
    app = make_app(PROJECT, pi_session_root, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        browser = app.query_one(SessionBrowser)
        row = next(i for i in range(browser.row_count) if "Hi there" in str(browser.get_row_at(i)[3]))
        browser.move_cursor(row=row)
        await settle(pilot)
        text = preview_text(app)
        assert "a-plain.jsonl:5" in text
        assert "Hi there, who are you?" in text


async def test_setup_notice_is_shown(pi_session_root: Path, tmp_path: Path) -> None:
    app = make_app(PROJECT, pi_session_root, tmp_path, notice="No model configured. Set OPENAI_API_KEY")
    async with app.run_test(size=(120, 40)):
        assert "Set OPENAI_API_KEY" in str(app.query_one("#setup-notice", Static).render())
