"""The app hears when another program wrote to its session file (docs/reliability.md, section 14):
the entries are kept and a notice says so."""

from __future__ import annotations

import json
from pathlib import Path

from pi_tui.ai.scripted import ScriptedReply
from pi_tui.session_file.store import SessionStore
from tests.support.session_files import assistant, header, user, write_jsonl
from tests.support.waiting import until

from .chat_fixtures import make_chat_app
from .pilot_helpers import settle, shown_notices, submit

SIZE = (120, 36)


async def test_a_turn_another_program_appends_is_kept_and_the_app_says_so(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    path = write_jsonl(
        tmp_path / "sessions" / "s.jsonl",
        [header(cwd=str(project)), user("u1", None, "first"), assistant("a1", "u1", "one")],
    )
    app, session, _ = make_chat_app(tmp_path, [ScriptedReply(text="mine")], store=SessionStore.open(path))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        with path.open("a") as file:  # pi, on the same file, meanwhile
            for obj in (user("b1", "a1", "from pi"), assistant("b2", "b1", "answer pi")):
                file.write(json.dumps(obj) + "\n")

        await submit(pilot, "go")

        await until(
            lambda: any("another process wrote 2 entries" in text for text in shown_notices(app)),
            pilot=pilot,
            what="the notice about the other writer",
        )
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    ids = [line.get("id") for line in lines]
    assert ids[1:3] == ["u1", "a1"] and ids.index("b2") == ids.index("b1") + 1  # kept, in place
    texts = [
        line["message"]["content"][0]["text"]
        for line in lines
        if line.get("type") == "message" and line["message"]["role"] != "system"  # pi 1.6's checkpoints
    ]
    assert texts[-2:] == ["go", "mine"]
    assert session.store.notices and session.store.path == path
