"""`pi-tui -p --session F` where F is a file pi-tui cannot add to: refused before the request, on one
`pi-tui: ` line, with the file untouched. An empty F is started as a session, and continues cleanly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_tui.ai.messages import AssistantMessage, UserMessage
from pi_tui.session_file.entries import MessageEntry
from pi_tui.session_file.store import SessionStore
from tests.support.cli_process import configure_model, run_pi_tui
from tests.support.openai_server import OpenAIServer, text_reply
from tests.support.session_files import assistant, header, user

UNUSABLE = {
    "garbage first line": ("this is not json\n", "no session header"),
    "not a header": (json.dumps(user("u1", None, "hi")) + "\n", "no session header"),
    "newer format": (json.dumps(header(version=4)) + "\n", "format version 4 is newer than 3"),
    "invalid header": (json.dumps(header(timestamp=12)) + "\n", "invalid session header"),
}


@pytest.mark.parametrize(
    ("case", "output"),
    [*((case, "text") for case in UNUSABLE), ("newer format", "json")],
    ids=[*UNUSABLE, "newer format, json"],
)
async def test_a_session_that_cannot_be_added_to_is_refused_before_the_request(
    openai_server: OpenAIServer, tmp_path: Path, case: str, output: str
) -> None:
    model = configure_model(openai_server)
    text, reason = UNUSABLE[case]
    if case != "garbage first line":  # a valid header needs an existing cwd to be opened at all
        text = text.replace("/home/user/project", str(tmp_path))
    session = tmp_path / "mine.jsonl"
    session.write_text(text)
    openai_server.enqueue(text_reply("an answer nobody would keep"))

    run = await run_pi_tui("-p", "--mode", output, "--session", str(session), "hi", *model, cwd=tmp_path)

    assert (run.code, run.out) == (1, "")
    assert run.err == (
        f"pi-tui: cannot continue session {session} ({reason}): nothing was sent; pi-tui only adds to "
        "session files it fully understands, start a new session instead\n"
    )
    assert openai_server.requests == []
    assert session.read_text() == text


@pytest.mark.parametrize("content", ["", "\n"], ids=["empty", "one blank line"])
async def test_an_empty_session_file_is_started_and_continues(
    openai_server: OpenAIServer, tmp_path: Path, content: str
) -> None:
    model = configure_model(openai_server)
    session = tmp_path / "mine.jsonl"
    session.write_text(content)
    openai_server.enqueue(text_reply("first answer"), text_reply("second answer"))

    first = await run_pi_tui("-p", "--session", str(session), "one", *model, cwd=tmp_path)
    second = await run_pi_tui("-p", "--session", str(session), "two", *model, cwd=tmp_path)

    assert (first.code, first.out, first.err) == (0, "first answer\n", "")
    assert (second.code, second.out, second.err) == (0, "second answer\n", "")
    store = SessionStore.open(session)
    assert store.diagnostics == [] and store.writable and store.cwd == str(tmp_path)
    roles = [
        entry.message.role
        for entry in store.entries
        if isinstance(entry, MessageEntry) and isinstance(entry.message, UserMessage | AssistantMessage)
    ]
    assert roles == ["user", "assistant", "user", "assistant"]
    # The second request continued the first exchange, read back from the file.
    sent = [message["role"] for message in openai_server.requests[1].body["messages"]]
    assert sent == ["system", "user", "assistant", "user"]


async def test_a_usable_session_is_still_continued(openai_server: OpenAIServer, tmp_path: Path) -> None:
    """The refusal is about the file, not about `--session`: a good file takes the turn."""
    model = configure_model(openai_server)
    session = tmp_path / "mine.jsonl"
    lines = [header(cwd=str(tmp_path)), user("u1", None, "hi"), assistant("a1", "u1", "hello")]
    session.write_text("".join(json.dumps(line) + "\n" for line in lines))
    openai_server.enqueue(text_reply("again"))

    run = await run_pi_tui("-p", "--session", str(session), "more", *model, cwd=tmp_path)

    assert (run.code, run.out, run.err) == (0, "again\n", "")
    assert len(SessionStore.open(session).entries) > len(lines) - 1
