"""A chat opened on a session file with problems says so below the transcript: the start page is not
always seen (a chat opens straight from `pi-tui --session F`)."""

from __future__ import annotations

from pathlib import Path

from pi_tui.session_file.store import SessionStore
from pi_tui.tui.widgets.conversation import ConversationView
from pi_tui.tui.widgets.message_blocks import NoticeBlock
from tests.support.session_files import assistant, header, user, write_jsonl

from .chat_fixtures import make_chat_app
from .pilot_helpers import settle


def damaged_session(tmp_path: Path) -> SessionStore:
    path = write_jsonl(
        tmp_path / "sessions" / "damaged.jsonl",
        [header(cwd=str(tmp_path / "project")), user("u1", None, "hello"), assistant("a1", "u1", "hi")],
        tail='{"type": "message", "id": "u2"\n',
    )
    with path.open("a") as handle:
        handle.write(path.read_text().splitlines()[1] + "\n")  # u1 again: a duplicated id
    return SessionStore.open(path)


async def test_the_chat_lists_the_files_problems_when_it_opens(tmp_path: Path) -> None:
    (tmp_path / "project").mkdir()
    store = damaged_session(tmp_path)
    app, _, _ = make_chat_app(tmp_path, [], store=store)

    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        notices = [
            str(block.render())
            for block in app.screen.query_one(ConversationView).query(NoticeBlock)
            if block.has_class("-warning")
        ]

    assert notices == [
        "This session file has problems:\n"
        "damaged.jsonl: line 4: line is not valid JSON, skipped\n"
        "damaged.jsonl: line 5: duplicate entry id 'u1'"
    ]
