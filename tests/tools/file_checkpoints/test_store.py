"""The checkpoint store on real files: content-addressed and shared, private modes, streamed reads
checked against their hash, non-regular files refused, the size cap dropping the oldest first."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from pi_tui.tools.file_checkpoints import store as store_module
from pi_tui.tools.file_checkpoints.store import (
    CheckpointObjectError,
    CheckpointStore,
    NotRegularFileError,
    open_regular_file,
)


def test_same_content_is_kept_once_and_shared_by_a_fork(tmp_path: Path) -> None:
    store = CheckpointStore(tmp_path / "checkpoints", "one")
    first = store.put_stream(io.BytesIO(b"same\n"))
    again = store.put_stream(io.BytesIO(b"same\n"))
    assert first == again
    assert len([p for p in store.objects.rglob("*") if p.is_file()]) == 1
    store.share_with("two")
    fork = CheckpointStore(store.root, "two")
    assert fork.referenced() == store.referenced()
    store.delete_session()
    assert fork.has(first[0])  # still named by the fork
    fork.delete_session()
    assert not fork.has(first[0])


def test_folders_are_0700_and_objects_0600_whatever_the_umask(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        store = CheckpointStore(tmp_path / "checkpoints", "s")
        sha256, _ = store.put_stream(io.BytesIO(b"x"))
    finally:
        os.umask(old)
    for folder in (store.root, store.objects, store.object_path(sha256).parent, store.refs_file.parent):
        assert folder.stat().st_mode & 0o777 == 0o700
    assert store.object_path(sha256).stat().st_mode & 0o777 == 0o600
    assert store.refs_file.stat().st_mode & 0o777 == 0o600


def test_large_binary_content_is_streamed_in_chunks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store_module, "CHUNK_BYTES", 4096)
    big = tmp_path / "big.bin"
    big.write_bytes(bytes(range(256)) * 4096)  # 1 MiB with every byte value
    reads: list[int] = []

    class Counting(io.FileIO):
        def read(self, size: int = -1) -> bytes:
            reads.append(size)
            return super().read(size)

    store = CheckpointStore(tmp_path / "checkpoints", "s")
    with Counting(str(big)) as source:
        sha256, size = store.put_stream(source)  # type: ignore[arg-type]
    assert size == big.stat().st_size and max(reads) == 4096
    with store.open_verified(sha256) as chunks:
        pieces = list(chunks)
    assert len(pieces) == size // 4096 and b"".join(pieces) == big.read_bytes()


def test_a_tampered_object_fails_its_hash(tmp_path: Path) -> None:
    store = CheckpointStore(tmp_path / "checkpoints", "s")
    sha256, _ = store.put_stream(io.BytesIO(b"original"))
    store.object_path(sha256).write_bytes(b"changed!")
    with pytest.raises(CheckpointObjectError, match="does not match"), store.open_verified(sha256) as chunks:
        list(chunks)
    assert store.check("0" * 64) is not None and "missing" in (store.check("0" * 64) or object()).reason  # type: ignore[union-attr]


def test_non_regular_files_are_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(NotRegularFileError):
        open_regular_file(fifo)
    with pytest.raises(NotRegularFileError):
        open_regular_file(tmp_path)
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "elsewhere")
    with pytest.raises(OSError):
        open_regular_file(link)


def test_the_cap_drops_the_oldest_checkpoints_first(tmp_path: Path) -> None:
    store = CheckpointStore(tmp_path / "checkpoints", "s")
    oldest = store.put_stream(io.BytesIO(b"a" * 100))[0]
    middle = store.put_stream(io.BytesIO(b"b" * 100))[0]
    newest = store.put_stream(io.BytesIO(b"c" * 100))[0]
    assert store.enforce_cap(250) == [oldest]
    assert not store.has(oldest) and store.has(middle) and store.has(newest)
    assert list(store.referenced()) == [middle, newest]
