"""Hostile session files, round two (issue #26 items 6, 13, 15, 16, 17; docs/reliability.md, section 14):
`pi-tui` as a real subprocess against the loopback server, with real files."""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from pi_tui.session_file.loader import read_session_file
from tests.reliability.test_hostile_text import only_session, prompt, write_config
from tests.support.cli_process import configure_model, run_pi_tui
from tests.support.openai_server import OpenAIServer, StreamReply, chunk, text_reply, tool_call_delta
from tests.support.session_files import assistant, header, user, write_jsonl
from tests.support.waiting import until


def bash_call(command: str) -> StreamReply:
    arguments = json.dumps({"command": command})
    delta = tool_call_delta(0, call_id="call_1", name="bash", arguments=arguments)
    return StreamReply([chunk(tool_calls=[delta]), chunk(finish_reason="tool_calls")])


def session_with_id(path: Path, session_id: str, cwd: Path) -> Path:
    objects = [
        header(session_id=session_id, cwd=str(cwd)),
        user("u1", None, "hi"),
        assistant("a1", "u1", "yo"),
    ]
    return write_jsonl(path, objects)


# --- item 6: the header's id builds no path ----------------------------------------------------------


@pytest.mark.parametrize("kind", ["relative", "absolute"])
async def test_a_header_id_that_is_a_path_creates_nothing_outside(
    openai_server: OpenAIServer, tmp_path: Path, kind: str
) -> None:
    model = configure_model(openai_server)
    project = tmp_path / "project"
    project.mkdir()
    outside = tmp_path / "outside"
    # spill/<id> beside the session file: `sessions/spill/../../outside` is `outside`.
    session_id = "../../outside" if kind == "relative" else str(outside)
    session = session_with_id(tmp_path / "sessions" / "s.jsonl", session_id, project)
    before = session.read_bytes()
    openai_server.enqueue(bash_call("seq 200000"), text_reply("done"))

    run = await run_pi_tui("-p", "--session", str(session), "go", *model, cwd=project)

    assert run.code == 1, run.err
    [line] = run.err.splitlines()
    assert line.startswith("pi-tui: cannot continue session") and "is not a session id" in line, run.err
    assert session_id in line
    assert not outside.exists()
    assert openai_server.requests == [] and session.read_bytes() == before
    assert sorted(p.name for p in (tmp_path / "sessions").iterdir()) == ["s.jsonl"]


async def test_deleting_or_exporting_a_session_with_such_an_id_touches_nothing_outside(
    tmp_path: Path,
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    exported = session_with_id(tmp_path / "sessions" / "e.jsonl", "../exported", work)

    run = await run_pi_tui("export", str(exported), cwd=work)

    assert run.code == 0, run.err
    assert (work / "session.html").is_file()  # not work/../exported.html
    assert not (tmp_path / "exported.html").exists()

    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("mine")
    # Its spill folder would be `sessions/spill/../../victim`: `victim`.
    deleted = session_with_id(tmp_path / "sessions" / "d.jsonl", "../../victim", work)

    run = await run_pi_tui("sessions", "--delete", str(deleted), "--yes", cwd=work)

    assert run.code == 0, run.err
    assert not deleted.exists()
    assert (victim / "keep.txt").read_text() == "mine"


def test_pi_shaped_ids_are_session_ids() -> None:
    from pi_tui.session_file.ids import is_session_id, uuid7

    assert is_session_id(uuid7()) and is_session_id("01A2353E-54FB-732A-8A8F-DAF74C571382")
    assert is_session_id("aaaa1111") and is_session_id("0190bbbb-newer") and is_session_id("s_2")
    for bad in (
        "",
        "/tmp/x",
        "../../x",
        "a/b",
        "a\\b",
        "a\x00b",
        "0" * 129,
        "-0",
        "_a",
        ".",
        "..",
        "01a2 353e",
    ):
        assert not is_session_id(bad), bad


# --- items 16 and 17: a dangling link as --session, a working directory that was removed ------------


async def test_a_dangling_symlink_as_session_is_refused_naming_the_link_and_its_target(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    model = configure_model(openai_server)
    link = tmp_path / "mine.jsonl"
    link.symlink_to(tmp_path / "elsewhere" / "gone.jsonl")

    run = await run_pi_tui("-p", "--session", "./mine.jsonl", "hi", *model, cwd=tmp_path)

    assert run.code == 1
    [line] = run.err.splitlines()
    assert line == (
        f"pi-tui: {link} is a symbolic link to {tmp_path / 'elsewhere' / 'gone.jsonl'}, which does not "
        "exist: pi-tui does not create a session file through a link; give the target's path instead, "
        "or remove the link"
    )
    assert openai_server.requests == []  # refused before anything was sent
    assert link.is_symlink() and not (tmp_path / "elsewhere").exists()


@pytest.mark.parametrize("command", [["-p", "hi"], ["tree", "x"], ["--mode", "json", "hi"]])
async def test_a_removed_working_directory_is_named(tmp_path: Path, command: list[str]) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    # The shell stands in the folder as it is removed, so pi-tui starts in a directory that is gone.
    script = 'cd "$1" && rmdir "$1" && shift && exec "$@"'
    process = await asyncio.create_subprocess_exec(
        "/bin/sh",
        "-c",
        script,
        "sh",
        str(gone),
        sys.executable,
        "-m",
        "pi_tui",
        *command,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=dict(os.environ),
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout=60)

    assert process.returncode == 1 and out == b""
    assert err.decode() == (
        f"pi-tui: the current directory ({gone}) no longer exists: change to a directory that exists "
        "and run again\n"
    )


# --- items 13 and 15: a second writer, a truncation, while a request is in flight ------------------


async def start_prompt(*args: str, cwd: Path) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "pi_tui",
        "-p",
        "--model",
        "loop/m",
        *args,
        cwd=cwd,
        env=dict(os.environ),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )


async def finish(process: asyncio.subprocess.Process) -> tuple[int, str, str]:
    out, err = await asyncio.wait_for(process.communicate(), timeout=90)
    assert process.returncode is not None
    assert "Traceback" not in err.decode(), err.decode()
    return process.returncode, out.decode(), err.decode()


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def texts(path: Path) -> list[str]:
    found = []
    for obj in lines_of(path):
        if obj.get("type") == "message":
            found += [block["text"] for block in obj["message"]["content"] if block.get("type") == "text"]
    return found


async def a_session_with_a_run_in_flight(
    server: OpenAIServer, cwd: Path
) -> tuple[Path, asyncio.subprocess.Process, asyncio.Event]:
    """One finished turn in a session of `cwd`, then `-p -c` run A waiting for its reply (it comes when
    the returned event is set); A's prompt is in the file by then."""
    write_config(server)
    server.enqueue(text_reply("first answer"))
    code, _, err = await prompt("first", cwd=cwd)
    assert code == 0, err
    session = only_session(cwd)
    gate = asyncio.Event()
    server.enqueue(StreamReply(text_reply("answer A").chunks, release=gate))
    run_a = await start_prompt("-c", "from A", cwd=cwd)
    await until(lambda: len(server.requests) == 2, what="run A's request")
    assert "from A" in texts(session)
    return session, run_a, gate


async def test_a_second_run_on_a_session_in_use_is_refused_before_it_sends(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    session, run_a, gate = await a_session_with_a_run_in_flight(openai_server, tmp_path)
    lock = session.with_name(session.name + ".lock")
    assert lock.read_text().strip() == str(run_a.pid)

    code, out, err = await prompt("-c", "from B", cwd=tmp_path)

    assert (code, out) == (1, b"")
    assert err == (
        f"pi-tui: session {session} is being written by another pi-tui run (pid {run_a.pid}): nothing was "
        f"sent; wait for that run to end, or continue a copy of the session with --fork {session}\n"
    )
    assert len(openai_server.requests) == 2  # B sent nothing
    gate.set()
    assert await finish(run_a) == (0, "answer A\n", "")
    assert texts(session) == ["first", "first answer", "from A", "answer A"]
    chain = lines_of(session)[1:]
    assert all(b["parentId"] == a["id"] for a, b in itertools.pairwise(chain))  # one branch, no fork
    assert not lock.exists()


async def test_entries_another_writer_appends_meanwhile_are_kept_and_said(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    session, run_a, gate = await a_session_with_a_run_in_flight(openai_server, tmp_path)
    # pi (which takes no lock) adds a turn of its own to the same file meanwhile.
    last = lines_of(session)[-1]["id"]
    with session.open("a") as file:
        for obj in (user("b0000001", last, "from pi"), assistant("b0000002", "b0000001", "answer pi")):
            file.write(json.dumps(obj) + "\n")
    gate.set()

    code, out, err = await finish(run_a)

    assert (code, out) == (0, "answer A\n"), err
    assert err == (
        f"pi-tui: another process wrote 2 entries to {session} while pi-tui had it open; they are kept in "
        "it, and this session's turns go on from its own last entry, on a branch beside theirs (see /tree "
        "or pi-tui tree)\n"
    )
    assert texts(session) == ["first", "first answer", "from A", "from pi", "answer pi", "answer A"]
    by_text = {
        obj["message"]["content"][0]["text"]: obj
        for obj in lines_of(session)
        if obj["type"] == "message" and obj["message"]["role"] != "system"  # pi 1.6's checkpoints
    }
    assert by_text["answer A"]["parentId"] == by_text["from A"]["id"]  # A's reply under A's prompt
    loaded = read_session_file(session)
    assert loaded.writable and not loaded.diagnostics


async def test_a_session_file_emptied_during_a_request_is_rewritten_whole(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    session, run_a, gate = await a_session_with_a_run_in_flight(openai_server, tmp_path)
    session.write_bytes(b"")  # `: > session.jsonl` while the request is in flight
    gate.set()

    code, out, err = await finish(run_a)

    assert (code, out) == (0, "answer A\n"), err
    assert err.startswith(f"pi-tui: {session} was emptied by another process while pi-tui was writing it;")
    assert "rewritten whole" in err and "nothing is lost" in err
    objects = lines_of(session)
    assert objects[0]["type"] == "session"  # never a headerless file
    assert texts(session) == ["first", "first answer", "from A", "answer A"]
    assert read_session_file(session).writable


async def test_a_session_file_cut_short_during_a_request_is_left_and_the_session_moves(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    session, run_a, gate = await a_session_with_a_run_in_flight(openai_server, tmp_path)
    data = session.read_bytes()
    session.write_bytes(data[: len(data) // 2])  # someone cut it to a part of itself
    cut = session.read_bytes()
    gate.set()

    code, out, err = await finish(run_a)

    assert (code, out) == (0, "answer A\n"), err
    [moved] = [path for path in session.parent.glob("*.jsonl") if path != session]
    assert err == (
        f"pi-tui: {session} was cut short by another process while pi-tui was writing it; nothing more is "
        f"written there: this session, with every entry pi-tui held, continues in {moved}\n"
    )
    assert session.read_bytes() == cut  # left as the other writer left it
    header_line = lines_of(moved)[0]
    assert header_line["type"] == "session" and header_line["parentSession"] == str(session)
    assert texts(moved) == ["first", "first answer", "from A", "answer A"]
    assert read_session_file(moved).writable

    # The next -c continues the moved session, which is now the newest.
    openai_server.enqueue(text_reply("later"))
    code, out, err = await prompt("-c", "later", cwd=tmp_path)
    assert (code, out) == (0, b"later\n"), err
    assert texts(moved)[-2:] == ["later", "later"]
