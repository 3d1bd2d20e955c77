from __future__ import annotations

import pytest

from pi_tui.tools.glob_match import glob_to_regex


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("*.ts", "a.ts", True),
        ("*.ts", "dir/a.ts", False),
        ("**/*.ts", "a.ts", True),
        ("**/*.ts", "x/y/a.ts", True),
        ("src/**/*.spec.ts", "src/a/b/c.spec.ts", True),
        ("src/**/*.spec.ts", "lib/src/c.spec.ts", False),
        ("file?.txt", "file1.txt", True),
        ("file?.txt", "file/.txt", False),
        ("*.{js,ts}", "a.js", True),
        ("*.{js,ts}", "a.py", False),
        ("[ab]*.py", "b1.py", True),
        ("[!ab]*.py", "b1.py", False),
        ("my file (1).txt", "my file (1).txt", True),
    ],
)
def test_glob(pattern: str, path: str, matches: bool) -> None:
    assert bool(glob_to_regex(pattern).match(path)) is matches
