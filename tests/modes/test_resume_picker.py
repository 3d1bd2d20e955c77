"""`-r` (a numbered picker on stderr, the choice on stdin), `--here`, and continuing pi's own sessions,
through the real CLI in a subprocess against the loopback server."""

from __future__ import annotations

import io
import json
import os
import shutil
from datetime import UTC, datetime
from pathlib import Path

from pi_tui.ai.messages import AssistantMessage, TextContent, UserMessage
from pi_tui.config.api_key_option import API_KEY_VISIBLE_WARNING
from pi_tui.config.paths import cwd_folder_name, pi_sessions_root
from pi_tui.modes.resume_picker import NO_CHOICE, NO_SESSIONS, PickerError, parse_choice, pick_session
from pi_tui.session_file.store import SessionStore
from tests.modes.test_print_mode import endpoint, run_cli, session_files, text_of
from tests.support.openai_server import OpenAIServer, text_reply


def test_parse_choice_accepts_only_listed_numbers() -> None:
    assert parse_choice("2\n", 3) == 1
    assert parse_choice("", 3) == PickerError(NO_CHOICE)
    assert isinstance(parse_choice("4", 3), PickerError)
    assert isinstance(parse_choice("x", 3), PickerError)


def test_pick_session_lists_newest_first_and_reads_one_line(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    folder = root / cwd_folder_name(str(tmp_path))
    older = _write_session(folder, "older question", "2026-01-01T10:00:00.000Z")
    newer = _write_session(folder, "newer question", "2026-02-01T10:00:00.000Z")
    err = io.StringIO()

    picked = pick_session(
        str(tmp_path), stdin=io.StringIO("2\n"), stderr=err, root=root, pi_root=tmp_path / "pi"
    )

    assert picked == older
    lines = err.getvalue().splitlines()
    assert lines[0].startswith("1) ") and "newer question" in lines[0]
    assert lines[1].startswith("2) ") and "older question" in lines[1]
    assert lines[2] == "Resume which session? [1-2] "
    assert newer.is_file()
    empty = pick_session(str(tmp_path / "x"), stdin=io.StringIO(""), stderr=err, root=root, pi_root=root)
    assert empty == PickerError(NO_SESSIONS)


def _write_session(folder: Path, text: str, stamp: str) -> Path:
    store = SessionStore.create("/somewhere", folder)
    store.append_message(_user(text, stamp))
    store.append_message(_assistant(stamp))
    assert store.path is not None
    return store.path


def _ms(stamp: str) -> int:
    return int(datetime.fromisoformat(stamp.replace("Z", "+00:00")).astimezone(UTC).timestamp() * 1000)


def _user(text: str, stamp: str) -> UserMessage:
    return UserMessage(content=[TextContent(text=text)], timestamp=_ms(stamp))


def _assistant(stamp: str) -> AssistantMessage:
    return AssistantMessage(content=[TextContent(text="ok")], timestamp=_ms(stamp) + 1)


async def test_resume_by_number_from_piped_stdin(openai_server: OpenAIServer, tmp_path: Path) -> None:
    openai_server.enqueue(text_reply("first"), text_reply("second"), text_reply("continued"))
    await run_cli("-p", "older chat", *endpoint(openai_server), cwd=tmp_path)
    await run_cli("-p", "newer chat", *endpoint(openai_server), cwd=tmp_path)

    code, out, err = await run_cli("-r", "-p", "go on", *endpoint(openai_server), cwd=tmp_path, stdin=b"2\n")

    assert (code, out) == (0, "continued\n"), err
    listing = [
        line for line in err.splitlines() if line != API_KEY_VISIBLE_WARNING
    ]  # `endpoint` uses --api-key
    assert "1) " in err and "newer chat" in listing[0]
    sent = [text_of(message.get("content")) for message in openai_server.requests[-1].body["messages"][1:]]
    assert sent == ["older chat", "first", "go on"]
    assert len(session_files(tmp_path)) == 2


async def test_resume_without_a_choice_lists_and_exits(openai_server: OpenAIServer, tmp_path: Path) -> None:
    openai_server.enqueue(text_reply("first"))
    await run_cli("-p", "a chat", *endpoint(openai_server), cwd=tmp_path)

    code, out, err = await run_cli("-r", *endpoint(openai_server), cwd=tmp_path)

    assert (code, out) == (1, "")
    assert "a chat" in err and NO_CHOICE in err
    assert len(openai_server.requests) == 1

    code, out, _ = await run_cli("-r", cwd=tmp_path, stdin=b"1\n")
    assert (code, out) == (0, f"{session_files(tmp_path)[0]}\n")


async def test_continuing_a_pi_session_appends_pi_entries(
    openai_server: OpenAIServer, tmp_path: Path, pi_fixtures: Path
) -> None:
    folder = pi_sessions_root() / cwd_folder_name(str(tmp_path))
    folder.mkdir(parents=True)
    target = folder / "a-plain.jsonl"
    shutil.copyfile(pi_fixtures / "pi-sessions" / "a-plain.jsonl", target)
    original = target.read_bytes()
    openai_server.enqueue(text_reply("continued in pi-tui"))

    # The fixture's cwd (/home/user/project) does not exist here: refused with the way out named.
    code, _, err = await run_cli(
        "-p", "--session", "01a2298d", "more", *endpoint(openai_server), cwd=tmp_path
    )
    assert code == 1 and "no longer exists: /home/user/project" in err and "--here" in err

    code, out, err = await run_cli(
        "-p", "--here", "--session", "01a2298d", "more", *endpoint(openai_server), cwd=tmp_path
    )

    assert (code, out) == (0, "continued in pi-tui\n"), err
    data = target.read_bytes()
    assert data.startswith(original)
    added = [json.loads(line) for line in data[len(original) :].decode().splitlines()]
    # pi-tui's request record is a `custom` entry, which pi ignores.
    assert [line["type"] for line in added] == ["model_change", "message", "message", "message", "custom"]
    assert added[1]["parentId"] == added[0]["id"] and added[0]["parentId"] is not None
    roles = [line["message"]["role"] for line in added[1:4]]
    assert roles == ["system", "user", "assistant"]  # pi 1.6's prompt checkpoint first
    assert SessionStore.open(target).build_context().messages[-1].role == "assistant"
    sent = openai_server.requests[0].body["messages"]
    assert text_of(sent[1]["content"]) == "Hi there, who are you?"
    assert f"Current working directory: {tmp_path}" in sent[0]["content"]
    assert os.listdir(folder) == ["a-plain.jsonl"]
