"""A chat on a session file pi-tui cannot add to (here a newer format) says so as it opens, and a
prompt is refused before anything is sent: the text goes back to the editor, the file stays as it was."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from pi_tui.ai.scripted import ScriptedReply
from pi_tui.session.open_checks import continue_refusal
from pi_tui.session_file.store import SessionStore
from pi_tui.tui.app import PiTuiApp
from pi_tui.tui.widgets.message_blocks import NoticeBlock
from pi_tui.tui.widgets.prompt_area import PromptArea
from tests.support.session_files import header, user, write_jsonl

from .chat_fixtures import make_chat_app
from .pilot_helpers import settle, submit

SIZE = (120, 40)


def newer_session(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    return write_jsonl(
        tmp_path / "sessions" / "newer.jsonl",
        [header(version=4, cwd=str(project)), user("u1", None, "an old question")],
    )


def notices(app: PiTuiApp) -> list[str]:
    return [str(Static.render(block)) for block in app.screen.query(NoticeBlock)]


async def test_opening_an_unusable_session_says_so_and_a_prompt_is_kept(tmp_path: Path) -> None:
    path = newer_session(tmp_path)
    before = path.read_bytes()
    store = SessionStore.open(path)
    refusal = continue_refusal(store)
    assert refusal is not None and "format version 4 is newer than 3" in refusal
    app, session, provider = make_chat_app(tmp_path, [ScriptedReply(text="never shown")], store=store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert notices(app) == [refusal]

        await submit(pilot, "a new question")

        assert provider.calls == 0
        assert app.screen.query_one(PromptArea).text == "a new question"
        assert notices(app) == [refusal, refusal]  # the warning on opening, then the refused prompt
        assert [message.role for message in session.agent.state.messages] == ["user"]
    assert path.read_bytes() == before


async def test_resuming_an_unusable_session_says_so(tmp_path: Path) -> None:
    path = newer_session(tmp_path)
    app, _session, provider = make_chat_app(tmp_path, [ScriptedReply(text="never shown")])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert notices(app) == []

        session = await app.runtime.switch_session(path)  # what /resume does with the chosen file
        await settle(pilot)
        refusal = continue_refusal(session.store)
        assert refusal is not None and notices(app) == [refusal]

        await submit(pilot, "a new question")
        assert provider.calls == 0 and app.screen.query_one(PromptArea).text == "a new question"
