"""A write that fails halfway (a full disk) leaves the session file as it was, says why, and loses
nothing the next successful write can still add; an empty `--session` file becomes a session."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from pi_tui.ai.messages import AssistantMessage, TextContent, UserMessage
from pi_tui.session_file.loader import read_session_file
from pi_tui.session_file.store import SessionStore
from pi_tui.session_file.writer import SessionWriteError

_real_write = os.write


def disk_fills_after(budget: int, path: Path) -> Callable[[int, bytes], int]:
    """`os.write` as on a disk with `budget` bytes left for `path`'s file: the write that reaches the end
    is short, the next one fails with ENOSPC. Writes to any other file go through."""

    def write(fd: int, data: bytes) -> int:
        opened = os.fstat(fd)
        if not path.exists() or not os.path.samestat(opened, path.stat()):
            return _real_write(fd, data)
        nonlocal budget
        if budget <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        written = _real_write(fd, data[:budget])
        budget -= written
        return written

    return write


def _ask(text: str) -> UserMessage:
    return UserMessage(content=text, timestamp=1795993475799)


def _reply(text: str) -> AssistantMessage:
    return AssistantMessage(
        content=[TextContent(text=text)], provider="p", model="m", timestamp=1795993475900
    )


def texts(path: Path) -> list[str]:
    loaded = read_session_file(path)
    assert loaded.diagnostics == [] and loaded.writable
    found = []
    for entry in loaded.entries:
        message = getattr(entry, "message", None)
        if isinstance(message, UserMessage):
            found.append(str(message.content))
        elif isinstance(message, AssistantMessage):
            found.append("".join(block.text for block in message.content if isinstance(block, TextContent)))
    return found


def test_a_full_disk_mid_append_leaves_the_file_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = SessionStore.create(str(tmp_path), tmp_path / "sessions")
    store.append_message(_ask("first"))
    assert store.path is not None
    before = store.path.read_bytes()

    monkeypatch.setattr(os, "write", disk_fills_after(40, store.path))
    with pytest.raises(SessionWriteError) as raised:
        store.append_message(_reply("an answer long enough to need more than forty bytes"))
    monkeypatch.undo()

    assert store.path.read_bytes() == before  # no torn line: cut back to the last complete one
    assert raised.value.errno == errno.ENOSPC
    assert str(raised.value) == (
        f"cannot write session file {store.path}: No space left on device; the file was left as it was"
    )
    assert store.write_failure is raised.value
    # Once there is room again, the next write carries the entry that failed: nothing is lost.
    store.append_message(_ask("second"))
    assert store.write_failure is None
    assert texts(store.path) == ["first", "an answer long enough to need more than forty bytes", "second"]


def test_a_full_disk_while_creating_leaves_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = SessionStore.create(str(tmp_path), tmp_path / "sessions")
    assert store.path is not None
    monkeypatch.setattr(os, "write", disk_fills_after(25, store.path))
    with pytest.raises(SessionWriteError):
        store.append_message(_ask("first"))
    monkeypatch.undo()

    assert not store.path.exists() and not store.is_persisted
    store.append_message(_reply("then"))
    assert texts(store.path) == ["first", "then"]


@pytest.mark.parametrize("content", ["", "\n\n", "  \t"], ids=["empty", "blank-lines", "spaces"])
def test_an_empty_file_becomes_a_session_written_into_it(tmp_path: Path, content: str) -> None:
    path = tmp_path / "mine.jsonl"
    path.write_text(content)
    path.chmod(0o640)
    store = SessionStore.open(path, cwd=str(tmp_path))
    assert store.writable and store.diagnostics == [] and store.path == path

    store.append_message(_ask("hello"))

    assert texts(path) == ["hello"]
    assert SessionStore.open(path).header.id == store.session_id
    assert stat.S_IMODE(path.stat().st_mode) == 0o640  # the user's file keeps the mode they gave it


def test_an_empty_file_filled_meanwhile_is_not_written_over(tmp_path: Path) -> None:
    path = tmp_path / "mine.jsonl"
    path.write_text("")
    store = SessionStore.open(path, cwd=str(tmp_path))
    path.write_text("someone else's text\n")

    with pytest.raises(SessionWriteError, match="it is no longer empty"):
        store.append_message(_ask("hello"))
    assert path.read_text() == "someone else's text\n"
