from __future__ import annotations

import errno
import os
import unicodedata
from pathlib import Path

from pi_tui.tools.path_resolution import expand_path, node_error_message, resolve_read_path, resolve_to_cwd


def test_expand_and_resolve() -> None:
    assert expand_path("@src/a.py") == "src/a.py"
    assert expand_path("~/x") == os.path.expanduser("~") + "/x"
    assert expand_path("a\u202fb\u3000c") == "a b c"
    assert resolve_to_cwd("../b/./c", "/work/a") == "/work/b/c"
    assert resolve_to_cwd("/abs/p", "/work") == "/abs/p"


def test_read_path_tries_macos_variants(tmp_path: Path) -> None:
    nfd_name = unicodedata.normalize("NFD", "Capture d\u2019écran 10.00.00 AM.png")
    (tmp_path / nfd_name).write_text("x")
    typed = "Capture d'écran 10.00.00 AM.png"
    assert resolve_read_path(typed, str(tmp_path)) == str(tmp_path / nfd_name)


def test_node_style_errors(tmp_path: Path) -> None:
    missing = FileNotFoundError(errno.ENOENT, "No such file or directory")
    assert node_error_message(missing, "open", "/x") == "ENOENT: no such file or directory, open '/x'"
    directory = IsADirectoryError(errno.EISDIR, "Is a directory")
    assert (
        node_error_message(directory, "read", "/d") == "EISDIR: illegal operation on a directory, read '/d'"
    )
