"""`/export` in the chat screen, driven with Pilot: the page (or JSONL) is written and the path notified."""

from __future__ import annotations

from pathlib import Path

from pi_tui.ai.scripted import ScriptedReply
from pi_tui.tui.widgets.message_blocks import NoticeBlock
from tests.support.waiting import until
from tests.tui.chat_fixtures import make_chat_app
from tests.tui.pilot_helpers import settle, shown_notices, submit

SIZE = (120, 40)


async def test_export_writes_the_page_and_says_where(tmp_path: Path) -> None:
    app, session, _ = make_chat_app(tmp_path, [ScriptedReply(text="An **answer** <script>x()</script>")])
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        await submit(pilot, "a question <b>bold?</b>")
        await submit(pilot, "/export")
        # Beside the session, not in the project the session works on.
        assert session.store.path is not None
        page = session.store.path.parent / "exports" / f"{session.store.session_id}.html"
        assert page.is_file() and (page.parent.stat().st_mode & 0o777) == 0o700
        assert list((tmp_path / "project").iterdir()) == []
        text = page.read_text()
        assert "<strong>answer</strong>" in text and "&lt;script&gt;x()&lt;/script&gt;" in text
        assert "a question &lt;b&gt;bold?&lt;/b&gt;" in text
        said = lambda: any(str(page) in notice for notice in shown_notices(app))  # noqa: E731
        await until(said, pilot=pilot, what="where the page went")

        await submit(pilot, "/export out/branch.jsonl")
        assert not (tmp_path / "project" / "out" / "branch.jsonl").exists()
        errors = [str(block.content) for block in app.screen.query(NoticeBlock)]
        assert any("cannot write" in text for text in errors), errors

        await submit(pilot, f"/export {tmp_path / 'branch.jsonl'}")
        lines = (tmp_path / "branch.jsonl").read_text().splitlines()
        assert len(lines) == 1 + len(session.store.get_branch())
