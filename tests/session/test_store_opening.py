"""Opening a session store: the interactive TUI (`create_runtime`) and the headless print mode open the
same store for every command line (`-c`, `--session` by id or path, a pi file, a new session), through
`store_opening.open_store`, and refuse a session whose working directory is gone alike."""

from __future__ import annotations

import io
import os
import shutil
from pathlib import Path

import pytest

from pi_tui.config.paths import session_dir_for_cwd
from pi_tui.modes.print_mode import run_print_mode
from pi_tui.modes.run_options import RunOptions
from pi_tui.session.factory import ModelChoice, create_runtime
from pi_tui.session.store_opening import (
    SessionChoice,
    SessionCwdMissingError,
    new_store,
    open_session_file,
    open_store,
)
from pi_tui.session_file.store import SessionStore
from tests.support.openai_server import OpenAIServer, text_reply
from tests.support.session_files import assistant, header, read_objects, user, write_jsonl


def _session(path: Path, session_id: str, cwd: Path, mtime: int) -> Path:
    objects = [
        header(session_id=session_id, cwd=str(cwd)),
        user("u1", None, "hi"),
        assistant("a1", "u1", "yo"),
    ]
    write_jsonl(path, objects)
    os.utime(path, (mtime, mtime))
    return path


class Project:
    """A working directory, its sessions root with two sessions in its folder, and a pi session file
    whose working directory does not exist here."""

    def __init__(self, tmp_path: Path, pi_fixtures: Path) -> None:
        self.cwd = tmp_path / "project"
        self.cwd.mkdir()
        self.root = tmp_path / "sessions"
        self.folder = session_dir_for_cwd(str(self.cwd), self.root)
        self.older = _session(self.folder / "older.jsonl", "0190aaaa-older", self.cwd, 1000)
        self.newer = _session(self.folder / "newer.jsonl", "0190bbbb-newer", self.cwd, 2000)
        self.pi_file = tmp_path / "from-pi" / "a-plain.jsonl"
        self.pi_file.parent.mkdir()
        shutil.copyfile(pi_fixtures / "pi-sessions" / "a-plain.jsonl", self.pi_file)

    def choice(self, **fields: object) -> SessionChoice:
        return SessionChoice(session_dir=str(self.root), **fields)  # type: ignore[arg-type]


@pytest.fixture
def project(tmp_path: Path, pi_fixtures: Path) -> Project:
    return Project(tmp_path, pi_fixtures)


async def _tui_store(
    project: Project, server: OpenAIServer, choice: SessionChoice, *, here: bool = False
) -> SessionStore | str:
    """The store the interactive front end starts on (or its problem lines)."""
    model = ModelChoice(ref="m", base_url=server.base_url, api_key="k")
    setup = create_runtime(str(project.cwd), model=model, choice=choice, cwd_override=here)
    if setup.runtime is None:
        return "\n".join(setup.problems)
    store = setup.runtime.session.store
    await setup.runtime.dispose()
    return store


async def _headless_run(
    project: Project, server: OpenAIServer, choice: SessionChoice, *, here: bool = False
) -> tuple[int, str]:
    server.enqueue(text_reply("done"))
    options = RunOptions(
        messages=["again"],
        print_mode=True,
        base_url=server.base_url,
        model="m",
        api_key="k",
        session=choice,
        cwd_override=here,
    )
    out, err = io.StringIO(), io.StringIO()
    code = await run_print_mode(options, cwd=str(project.cwd), stdin_text=None, stdout=out, stderr=err)
    return code, err.getvalue()


def _last_reply(path: Path) -> str:
    """The text of the file's last assistant message."""
    messages = [obj["message"] for obj in read_objects(path) if obj["type"] == "message"]
    replies = [message for message in messages if message["role"] == "assistant"]
    return "".join(block.get("text", "") for block in replies[-1]["content"])


@pytest.mark.parametrize(
    ("flags", "expected"),
    [({"continue_recent": True}, "newer"), ({"session": "0190aaaa"}, "older")],
    ids=["-c", "--session id"],
)
async def test_both_front_ends_continue_the_same_file(
    openai_server: OpenAIServer, project: Project, flags: dict[str, object], expected: str
) -> None:
    target = project.folder / f"{expected}.jsonl"
    choice = project.choice(**flags)
    assert open_store(choice, str(project.cwd)).path == target

    tui = await _tui_store(project, openai_server, choice)
    assert isinstance(tui, SessionStore) and tui.path == target
    code, err = await _headless_run(project, openai_server, choice)
    assert code == 0, err
    assert _last_reply(target) == "done"


async def test_both_front_ends_start_a_new_session_in_the_cwds_folder(
    openai_server: OpenAIServer, project: Project
) -> None:
    before = set(project.folder.glob("*.jsonl"))
    choice = project.choice()
    tui = await _tui_store(project, openai_server, choice)
    assert isinstance(tui, SessionStore) and tui.path is not None
    assert tui.path.parent == project.folder and not tui.path.exists()

    code, err = await _headless_run(project, openai_server, choice)
    assert code == 0, err
    (written,) = set(project.folder.glob("*.jsonl")) - before
    assert _last_reply(written) == "done"


async def test_a_pi_file_whose_cwd_is_gone_is_refused_alike_and_continues_here_when_asked(
    openai_server: OpenAIServer, project: Project
) -> None:
    choice = project.choice(session=str(project.pi_file))
    original = project.pi_file.read_bytes()
    with pytest.raises(SessionCwdMissingError) as refused:
        open_store(choice, str(project.cwd))
    reason = str(refused.value)
    assert "/home/user/project" in reason and "--here" in reason

    problems = await _tui_store(project, openai_server, choice)
    assert isinstance(problems, str) and problems.endswith(reason)
    code, err = await _headless_run(project, openai_server, choice)
    assert code == 1 and reason.splitlines()[0] in err
    assert project.pi_file.read_bytes() == original

    tui = await _tui_store(project, openai_server, choice, here=True)
    assert isinstance(tui, SessionStore) and tui.path == project.pi_file and tui.cwd == str(project.cwd)
    code, err = await _headless_run(project, openai_server, choice, here=True)
    assert code == 0, err
    assert project.pi_file.read_bytes().startswith(original) and _last_reply(project.pi_file) == "done"


def test_no_session_and_new_stores_stay_where_they_are_asked(project: Project) -> None:
    assert open_store(project.choice(no_session=True, session="0190aaaa"), str(project.cwd)).path is None
    assert new_store(str(project.cwd), None).path is None
    created = new_store(str(project.cwd), project.folder)
    assert created.path is not None and created.path.parent == project.folder


def test_a_session_file_continues_in_its_own_cwd_when_it_exists(project: Project, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    store = open_session_file(project.older, str(elsewhere), here=True)
    assert store.cwd == str(project.cwd)


async def test_both_front_ends_fork_a_session_into_a_new_file_of_this_directory(
    openai_server: OpenAIServer, project: Project, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    source = _session(project.folder.parent / "other" / "s.jsonl", "0190cccc-source", elsewhere, 3000)
    source_bytes = source.read_bytes()
    choice = project.choice(fork="0190cccc")

    forked = open_store(choice, str(project.cwd))
    assert forked.path is not None and forked.path.parent == project.folder
    assert forked.cwd == str(project.cwd) and forked.session_id != "0190cccc-source"
    written = read_objects(forked.path)
    assert written[0]["parentSession"] == str(source) and written[0]["cwd"] == str(project.cwd)
    assert written[1:] == read_objects(source)[1:]

    tui = await _tui_store(project, openai_server, choice)
    assert isinstance(tui, SessionStore) and tui.path not in (forked.path, source)
    code, err = await _headless_run(project, openai_server, choice)
    assert code == 0, err
    newest = max(project.folder.glob("*.jsonl"), key=lambda path: path.stat().st_mtime_ns)
    assert newest not in (forked.path, tui.path) and _last_reply(newest) == "done"
    assert source.read_bytes() == source_bytes


async def test_a_fork_of_nothing_is_refused_alike(openai_server: OpenAIServer, project: Project) -> None:
    choice = project.choice(fork=str(project.cwd / "missing.jsonl"))
    tui = await _tui_store(project, openai_server, choice)
    assert isinstance(tui, str) and "no session file to fork" in tui
    code, err = await _headless_run(project, openai_server, choice)
    assert code == 1 and "no session file to fork" in err and "Traceback" not in err
    assert len(list(project.folder.glob("*.jsonl"))) == 2  # the two sessions there, nothing new
