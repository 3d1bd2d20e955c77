"""A write that fails halfway (a full disk) leaves the session file as it was, says why, and loses
nothing the next successful write can still add."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from pi_tui.ai.messages import AssistantMessage, TextContent, UserMessage
from pi_tui.session.loader import read_session_file
from pi_tui.session.store import SessionStore
from pi_tui.session.writer import SessionWriteError

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
