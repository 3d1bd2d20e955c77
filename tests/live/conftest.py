"""Live checks against the real pi 1.6 (`make interop` installs it and runs this folder).

Every test here needs pi 1.6: `PI16_BIN` names its executable (a wrapper running pi 1.6.0 with Node 22).
Without it the whole folder is skipped, so `make test` runs on the recorded fixtures alone; with a
`PI16_BIN` that is not pi 1.6.0 the folder fails at once, saying so, rather than checking another pi.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.support.openai_server import openai_server

__all__ = ["openai_server"]  # the loopback server, for live tests that also run pi-tui

PI16_VERSION = "1.6.0"
_LIVE = Path(__file__).resolve().parent


def _pi16_bin() -> Path | None:
    value = os.environ.get("PI16_BIN")
    return Path(value) if value else None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if _pi16_bin() is not None:
        return
    skip = pytest.mark.skip(reason="PI16_BIN is not set (make interop sets it)")
    for item in items:
        if _LIVE in Path(str(item.path)).resolve().parents:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def pi16_bin() -> Path:
    """pi 1.6's executable, checked once: it must exist and say it is 1.6.0."""
    pi = _pi16_bin()
    if pi is None:
        pytest.skip("PI16_BIN is not set (make interop sets it)")
    if not os.access(pi, os.X_OK):
        pytest.fail(f"PI16_BIN={pi} is not an executable file", pytrace=False)
    version = subprocess.run(
        [str(pi), "--version"], capture_output=True, text=True, timeout=60, check=False
    ).stdout.strip()
    if version != PI16_VERSION:
        pytest.fail(f"PI16_BIN={pi} says {version!r}, not {PI16_VERSION}", pytrace=False)
    return pi
