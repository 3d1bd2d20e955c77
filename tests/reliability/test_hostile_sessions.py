"""Hostile session files, round two (issue #26 items 6, 13, 15, 16, 17; docs/reliability.md, section 14):
`pi-tui` as a real subprocess against the loopback server, with real files."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest

from tests.support.cli_process import configure_model, run_pi_tui
from tests.support.openai_server import OpenAIServer, StreamReply, chunk, text_reply, tool_call_delta
from tests.support.session_files import assistant, header, user, write_jsonl


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
