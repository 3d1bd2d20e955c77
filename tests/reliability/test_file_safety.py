"""Hostile file systems, through `pi-tui -p` in a real subprocess against the loopback server.

pi-tui sets the mode only of folders it makes (0700); a folder that exists keeps its mode, with one
warning when others may write in it. A spill folder that is a symbolic link is never written through.
A write that fails halfway (a full disk, here a file size limit) leaves the session file as it was and
is reported on one `pi-tui: ` line.
"""

from __future__ import annotations

import json
import stat
from pathlib import Path

from pi_tui.ai.messages import ToolResultMessage
from pi_tui.session_file.entries import MessageEntry
from pi_tui.session_file.store import SessionStore
from tests.support.cli_process import configure_model, run_pi_tui
from tests.support.openai_server import OpenAIServer, bash_call_reply, text_reply
from tests.support.session_files import HEADER_ID, assistant, header, user, write_jsonl


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def folder_with_mode(folder: Path, folder_mode: int) -> Path:
    folder.mkdir()
    folder.chmod(folder_mode)  # whatever the umask
    return folder


def project_with_mode(tmp_path: Path, folder_mode: int) -> Path:
    return folder_with_mode(tmp_path / "project", folder_mode)


def existing_session(project: Path) -> Path:
    """A v3 session of one exchange, in the project folder, whose id (and so spill folder) is known."""
    return write_jsonl(
        project / "mine.jsonl",
        [header(cwd=str(project)), user("u1", None, "first"), assistant("a1", "u1", "answer one")],
    )


async def test_a_session_in_an_existing_folder_leaves_the_folder_mode_alone(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    model = configure_model(openai_server)
    project = project_with_mode(tmp_path, 0o755)
    openai_server.enqueue(text_reply("answer"))

    run = await run_pi_tui("-p", "--session", "./mine.jsonl", "hi", *model, cwd=project)

    assert (run.code, run.out, run.err) == (0, "answer\n", "")
    assert mode(project) == 0o755  # was turned into 0700
    assert mode(project / "mine.jsonl") == 0o600


async def test_folders_made_for_a_session_are_private(openai_server: OpenAIServer, tmp_path: Path) -> None:
    model = configure_model(openai_server)
    project = project_with_mode(tmp_path, 0o755)
    openai_server.enqueue(text_reply("answer"))

    run = await run_pi_tui("-p", "--session", "./new/deeper/mine.jsonl", "hi", *model, cwd=project)

    assert (run.code, run.err) == (0, "")
    assert [mode(project / "new"), mode(project / "new" / "deeper")] == [0o700, 0o700]
    assert mode(project) == 0o755


async def test_a_folder_others_may_write_in_is_kept_with_one_warning(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    model = configure_model(openai_server)
    project = project_with_mode(tmp_path, 0o777)
    openai_server.enqueue(text_reply("one"), text_reply("two"))

    run = await run_pi_tui("-p", "--session", "./mine.jsonl", "hi", "again", *model, cwd=project)

    assert (run.code, run.out) == (0, "two\n")
    assert run.err == (
        f"pi-tui: warning: {project} may be written by others (mode 777); pi-tui keeps this session's "
        "files there but leaves the folder's mode as it is\n"
    )
    assert mode(project) == 0o777


async def test_a_linked_spill_folder_is_not_written_through(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    model = configure_model(openai_server, settings={"tools": {"maxLines": 20}})
    project = project_with_mode(tmp_path, 0o755)
    session = existing_session(project)
    elsewhere = folder_with_mode(tmp_path / "elsewhere", 0o755)
    (project / "spill").mkdir()
    (project / "spill" / HEADER_ID).symlink_to(elsewhere, target_is_directory=True)
    openai_server.enqueue(bash_call_reply("seq 1 200"), text_reply("done"))

    run = await run_pi_tui("-p", "--session", str(session), "count", *model, cwd=project)

    assert (run.code, run.out, run.err) == (0, "done\n", "")
    assert list(elsewhere.iterdir()) == [] and mode(elsewhere) == 0o755
    note = (
        f"Full output not kept: {project / 'spill' / HEADER_ID} is a symbolic link or not a folder; "
        "pi-tui does not write through it."
    )
    # The preview and the reason reach the model and the file: nothing of the turn is lost.
    [result] = [
        entry.message
        for entry in SessionStore.open(session).entries
        if isinstance(entry, MessageEntry) and isinstance(entry.message, ToolResultMessage)
    ]
    # The last 20 lines of 200 (pi 1.6 counts no empty line after the final newline).
    assert result.content[0].text.startswith("181\n") and result.content[0].text.endswith(f"{note}]")
    assert note in json.dumps(openai_server.requests[1].body)


async def test_a_full_disk_leaves_the_session_file_whole_and_says_so(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    model = configure_model(openai_server)
    project = project_with_mode(tmp_path, 0o755)
    session = existing_session(project)
    before = session.read_bytes()

    run = await run_pi_tui(
        "-p", "--session", str(session), "next", *model, cwd=project, file_size_limit=len(before) + 60
    )

    assert (run.code, run.out) == (1, "")
    assert run.err == (
        f"pi-tui: cannot write session file {session}: File too large; the file was left as it was\n"
    )
    assert session.read_bytes() == before  # the 60 bytes that fitted were cut off again
    assert openai_server.requests == []  # a turn the file cannot take is not sent


async def test_a_subcommand_that_cannot_write_reports_one_line(tmp_path: Path) -> None:
    project = project_with_mode(tmp_path, 0o755)
    session = existing_session(project)
    before = session.read_bytes()

    run = await run_pi_tui(
        "tree", str(session), "--label", "u1", "start", cwd=project, file_size_limit=len(before) + 10
    )

    assert (run.code, run.out) == (1, "")
    assert run.err == (
        f"pi-tui: cannot write session file {session}: File too large; the file was left as it was\n"
    )
    assert session.read_bytes() == before
