"""Session folders are named as pi names them, so pi-tui finds pi's sessions of a directory and pi
finds pi-tui's: `--` + the cwd without its leading separator, every `/`, `\\` and `:` as `-`, + `--`."""

from __future__ import annotations

import pytest

from pi_tui.config.paths import cwd_folder_name


@pytest.mark.parametrize(
    ("cwd", "folder"),
    [
        ("/home/u/proj", "--home-u-proj--"),
        ("/", "----"),
        ("C:\\Users\\u\\proj", "--C--Users-u-proj--"),
        ("/srv/my project/a:b", "--srv-my project-a-b--"),
    ],
)
def test_folder_name_of_a_cwd_is_pis(cwd: str, folder: str) -> None:
    assert cwd_folder_name(cwd) == folder
