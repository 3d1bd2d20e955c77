from __future__ import annotations

import stat
from pathlib import Path

from pi_tui.tools.spill_file import SpillFile, default_spill_dir


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
