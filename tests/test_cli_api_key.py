"""`--api-key-file` as a user meets it: a key file that cannot give a key is one clear line and a non-zero
exit, before anything runs. (A good file, and `--api-key`'s warning, are run against the loopback server in
tests/reliability/test_tool_output_keys.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_tui.config.api_key_option import ApiKeyFileError, read_api_key_file
from tests.test_cli import run_cli


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (None, "cannot read --api-key-file {path}: No such file or directory"),
        ("", "--api-key-file {path} is empty"),
        ("\n  \n", "--api-key-file {path} is empty"),
        ("sk-one\nsk-two\n", "--api-key-file {path} holds more than one word; put only the key in it"),
        (b"\xff\xfe", "cannot read --api-key-file {path}: "),
    ],
)
def test_a_key_file_without_a_key_is_one_line_and_exit_2(
    content: str | bytes | None, reason: str, tmp_path: Path
) -> None:
    path = tmp_path / "key.txt"
    if isinstance(content, str):
        path.write_text(content)
    elif isinstance(content, bytes):
        path.write_bytes(content)
    result = run_cli("-p", "--model", "m", "--api-key-file", str(path), "hi", home=tmp_path / "home")
    assert result.returncode == 2
    assert result.stderr.startswith(f"pi-tui: {reason.format(path=path)}")
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert result.stdout == ""


def test_the_key_is_read_without_its_newline(tmp_path: Path) -> None:
    path = tmp_path / "key.txt"
    path.write_text("  sk-from-a-file-123456\r\n")
    assert read_api_key_file(str(path)) == "sk-from-a-file-123456"
    with pytest.raises(ApiKeyFileError, match="Is a directory"):
        read_api_key_file(str(tmp_path))


def test_key_and_key_file_together_is_a_usage_error(tmp_path: Path) -> None:
    path = tmp_path / "key.txt"
    path.write_text("sk-file-key-0000\n")
    result = run_cli("--api-key", "x", "--api-key-file", str(path), "-p", "hi", home=tmp_path / "home")
    assert result.returncode == 2
    assert "pi-tui: error: argument --api-key-file: not allowed with argument --api-key\n" in result.stderr


def test_compact_takes_a_key_file_too(tmp_path: Path) -> None:
    result = run_cli("compact", "any-session", "--api-key-file", str(tmp_path / "gone"), home=tmp_path)
    assert result.returncode == 1
    assert (
        result.stderr
        == f"pi-tui: cannot read --api-key-file {tmp_path / 'gone'}: No such file or directory\n"
    )
