from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

from pi_tui.tools.output_pipeline import OutputPipeline, truncation_notice


def run(chunks: list[bytes], spill_dir: Path, **limits: int) -> OutputPipeline:
    pipeline = OutputPipeline(spill_dir=spill_dir, **limits)
    for chunk in chunks:
        pipeline.feed(chunk)
    pipeline.finish()
    return pipeline


def test_small_output_is_complete_and_not_spilled(tmp_path: Path) -> None:
    pipeline = run([b"hello\n", b"world\n"], tmp_path)
    snapshot = pipeline.snapshot()
    assert snapshot.content == "hello\nworld\n"
    assert not snapshot.truncation.truncated and snapshot.full_output_path is None
    assert snapshot.details() is None and snapshot.text() == "hello\nworld\n"
    assert list(tmp_path.iterdir()) == []


def test_empty_output_text() -> None:
    pipeline = OutputPipeline()
    pipeline.finish()
    assert pipeline.snapshot().text() == "(no output)"
    assert pipeline.snapshot().text("") == ""


def test_lines_notice_counts_as_pi_16(tmp_path: Path) -> None:
    """pi 1.6 counts `seq 1 100000` as 100,000 lines: the final newline starts no line (0.73.1 said
    "98002-100001 of 100001", and the model read that)."""
    data = "".join(f"{i}\n" for i in range(1, 100001)).encode()
    pipeline = run([data[i : i + 4096] for i in range(0, len(data), 4096)], tmp_path)
    snapshot = pipeline.snapshot()
    pipeline.close()
    assert snapshot.text().endswith(
        f"99999\n100000\n\n[Showing lines 98001-100000 of 100000. Full output: {snapshot.full_output_path}]"
    )
    truncation = snapshot.details()["truncation"]  # type: ignore[index]
    assert snapshot.text().startswith("98001\n")
    assert truncation["totalBytes"] == 588895 and truncation["outputBytes"] == 12000
    assert Path(snapshot.full_output_path or "").read_bytes() == data


def test_bytes_notice(tmp_path: Path) -> None:
    line = b"x" * 999 + b"\n"
    pipeline = run([line * 100], tmp_path)
    snapshot = pipeline.snapshot()
    assert snapshot.truncation.truncated_by == "bytes"
    assert snapshot.text().endswith(
        f"\n\n[Showing lines 50-100 of 100 (50.0KB limit). Full output: {snapshot.full_output_path}]"
    )


def test_last_line_partial_notice(tmp_path: Path) -> None:
    pipeline = run([b"x" * 100_000], tmp_path)
    snapshot = pipeline.snapshot()
    assert snapshot.truncation.last_line_partial
    assert snapshot.text() == "x" * 51200 + (
        f"\n\n[Showing last 50.0KB of line 1 (line is 97.7KB). Full output: {snapshot.full_output_path}]"
    )


def test_notice_empty_when_not_truncated() -> None:
    pipeline = run([b"a\n"], Path("/nonexistent-never-created"))
    snapshot = pipeline.snapshot()
    assert truncation_notice(snapshot.truncation, None, 0) == ""


def test_spill_holds_raw_bytes_while_model_text_is_sanitised(tmp_path: Path) -> None:
    raw = b"\x1b[32mok\x1b[0m\r\n\xff\n" * 20000
    pipeline = run([raw[i : i + 777] for i in range(0, len(raw), 777)], tmp_path / "spill")
    snapshot = pipeline.snapshot()
    pipeline.close()
    assert "\x1b" not in snapshot.content and "\r" not in snapshot.content
    assert snapshot.content.endswith("ok\n\ufffd")
    spill = Path(snapshot.full_output_path or "")
    assert spill.read_bytes() == raw
    assert stat.S_IMODE(spill.stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "spill").stat().st_mode) == 0o700
    assert spill.parent == tmp_path / "spill" and spill.name.startswith("pi-bash-")


def test_counters(tmp_path: Path) -> None:
    pipeline = run([b"a\x1b[1m\n", "é\n".encode()], tmp_path)
    assert pipeline.raw_bytes == 9 and pipeline.lines == 2  # the final newline ends line 2
    assert pipeline.raw_bytes == 9  # the output as received, escapes included
    progress = pipeline.progress()
    assert progress["totalLines"] == 2 and progress["totalBytes"] == 9 and progress["elapsedMs"] >= 0


def test_configured_limits(tmp_path: Path) -> None:
    pipeline = run([b"1\n2\n3\n4\n5\n"], tmp_path, max_lines=3, max_bytes=1000)
    snapshot = pipeline.snapshot()
    assert snapshot.content == "3\n4\n5" and snapshot.truncation.truncated_by == "lines"
    assert "[Showing lines 3-5 of 5." in snapshot.text()


def test_memory_bounded_tail(tmp_path: Path) -> None:
    pipeline = OutputPipeline(spill_dir=tmp_path)
    block = os.urandom(1 << 16).hex().encode() + b"\n"
    digest = hashlib.sha256()
    for _ in range(200):
        pipeline.feed(block)
        digest.update(block)
        assert len(pipeline._tail) <= 4 * 51200 + len(block)
    pipeline.finish()
    pipeline.close()
    assert hashlib.sha256(Path(pipeline.spill_path or "").read_bytes()).digest() == digest.digest()


def test_oversized_chunks_give_the_same_preview_as_small_ones(tmp_path: Path) -> None:
    data = "".join(f"\x1b[32m{i}\x1b[0m progress\r{i} done\n" for i in range(200_000)).encode()
    big = run([data[: len(data) // 2], data[len(data) // 2 :]], tmp_path / "big")
    small = run([data[i : i + 4096] for i in range(0, len(data), 4096)], tmp_path / "small")
    assert big.snapshot().content == small.snapshot().content
    assert big.snapshot().content.endswith("199998 done\n199999 done")
    assert big.lines == small.lines == 200_000
    big.close()
    small.close()


def test_oversized_single_line_chunk_keeps_its_end(tmp_path: Path) -> None:
    pipeline = run([("é" * 400_000).encode()], tmp_path)
    snapshot = pipeline.snapshot()
    assert snapshot.truncation.last_line_partial and snapshot.content == "é" * 25600
    assert snapshot.last_line_bytes == 800_000
    pipeline.close()


def test_result_spill_path_prefers_details_then_reads_pis_notice() -> None:
    from pi_tui.tools.output_pipeline import result_spill_path

    notice = "last line\n\n[Showing lines 3-4 of 4. Full output: /tmp/pi-bash-00ff.log]"
    assert result_spill_path({"fullOutputPath": "/s/pi-bash-1.log"}, notice) == "/s/pi-bash-1.log"
    assert result_spill_path({"fullOutputPath": ""}, notice) == "/tmp/pi-bash-00ff.log"
    assert result_spill_path(None, notice + "\n") == "/tmp/pi-bash-00ff.log"
    assert result_spill_path(None, "no notice here") is None
