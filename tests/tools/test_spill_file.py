from __future__ import annotations

import secrets
import stat
from pathlib import Path

import pytest

from pi_tui.tools.output_pipeline import OutputPipeline
from pi_tui.tools.spill_file import SpillFile, UnsafeSpillFolderError, default_spill_dir


def test_default_folder_is_private_and_reused() -> None:
    folder = default_spill_dir()
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert default_spill_dir() == folder
    spill = SpillFile(None)
    spill.write(b"abc")
    spill.close()
    assert spill.path.parent == folder and spill.path.read_bytes() == b"abc"
    assert stat.S_IMODE(spill.path.stat().st_mode) == 0o600


def test_given_folder_is_created_private_with_pi_names(tmp_path: Path) -> None:
    spill = SpillFile(tmp_path / "session" / "spill", prefix="pi-bash")
    spill.write(b"x" * 100_000)
    spill.write(b"y")
    spill.close()
    spill.close()
    assert stat.S_IMODE((tmp_path / "session" / "spill").stat().st_mode) == 0o700
    assert spill.path.read_bytes() == b"x" * 100_000 + b"y"
    name = spill.path.name
    assert name.startswith("pi-bash-") and name.endswith(".log") and len(name) == len("pi-bash-") + 16 + 4


def test_folders_that_exist_keep_their_mode(tmp_path: Path) -> None:
    folder = tmp_path / "session" / "spill" / "id"
    folder.mkdir(parents=True)
    folder.chmod(0o755)
    spill = SpillFile(folder)
    spill.close()
    assert stat.S_IMODE(folder.stat().st_mode) == 0o755  # was made 0700: not pi-tui's to change
    assert stat.S_IMODE(spill.path.stat().st_mode) == 0o600


@pytest.mark.parametrize("linked", ["spill", "spill/id"])
def test_a_linked_spill_folder_is_never_written_through(tmp_path: Path, linked: str) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o755)
    elsewhere.chmod(0o755)
    session = tmp_path / "session"
    (session / linked).parent.mkdir(parents=True, exist_ok=True)
    (session / linked).symlink_to(elsewhere, target_is_directory=True)

    with pytest.raises(UnsafeSpillFolderError) as raised:
        SpillFile(session / "spill" / "id")

    assert str(raised.value) == (
        f"{session / linked} is a symbolic link or not a folder; pi-tui does not write through it"
    )
    assert list(elsewhere.iterdir()) == []
    assert stat.S_IMODE(elsewhere.stat().st_mode) == 0o755


def test_a_link_planted_under_a_spill_name_is_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "session" / "spill" / "id"
    folder.mkdir(parents=True)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    (folder / "pi-bash-planted.log").symlink_to(victim)
    names = iter(["planted", "fresh"])
    monkeypatch.setattr(secrets, "token_hex", lambda _size: next(names))

    spill = SpillFile(folder)
    spill.write(b"output")
    spill.close()

    assert victim.read_text() == "keep me\n"
    assert spill.path == folder / "pi-bash-fresh.log" and spill.path.read_bytes() == b"output"


def test_a_spill_that_cannot_be_made_costs_the_full_output_not_the_command(tmp_path: Path) -> None:
    session = tmp_path / "session"
    session.mkdir()
    (session / "spill").symlink_to(tmp_path, target_is_directory=True)
    pipeline = OutputPipeline(max_lines=3, spill_dir=session / "spill" / "id")
    for number in range(1, 11):
        pipeline.feed(f"line {number}\n".encode())
    pipeline.finish()
    snapshot = pipeline.snapshot()
    pipeline.close()

    assert snapshot.full_output_path is None and snapshot.details() is not None
    assert snapshot.text() == (
        "line 8\nline 9\nline 10\n\n[Showing lines 8-10 of 10. Full output not kept: "
        f"{session / 'spill'} is a symbolic link or not a folder; pi-tui does not write through it.]"
    )
