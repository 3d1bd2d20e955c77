"""Every command that reads a session file says what the loader skipped or doubted, once, on stderr
(`pi-tui: <file>: line N: <problem>`, five at most and a count of the rest): `-p`, `context`, `tree`
and `export`, as real subprocesses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.modes.test_print_mode import run_cli
from tests.session.test_overflow_beyond_compaction import write_small_window
from tests.support.openai_server import OpenAIServer, text_reply
from tests.support.session_files import assistant, header, user

EXPECTED = [
    "pi-tui: damaged.jsonl: line 3: line is not valid JSON, skipped",
    "pi-tui: damaged.jsonl: line 4: line is not valid JSON, skipped",
    "pi-tui: damaged.jsonl: line 5: line is not valid JSON, skipped",
    "pi-tui: damaged.jsonl: line 6: line is not valid JSON, skipped",
    "pi-tui: damaged.jsonl: line 7: line is JSON but not an object, skipped",
    "pi-tui: damaged.jsonl: and 3 more problems",
]


def damaged(folder: Path) -> Path:
    """Eight problems: four garbage lines, a bare number, a duplicated id (whose parent links now loop)
    and an unknown entry type."""
    first = user("u1", None, "hello")
    future = {"type": "future_kind", "id": "f1", "parentId": "u1", "timestamp": "2026-11-29T23:04:36.000Z"}
    lines = [header(cwd=str(folder)), first, "garbage", "{not json", "[1, ", "}", "42"]
    lines += [assistant("a1", "u1", "hi"), {**first, "parentId": "a1"}, future]
    path = folder / "damaged.jsonl"
    path.write_text("".join(f"{line if isinstance(line, str) else json.dumps(line)}\n" for line in lines))
    return path


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pi_tui", *args]
    return subprocess.run(command, cwd=cwd, env=dict(os.environ), capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize(
    "command",
    [["tree"], ["tree", "--json"], ["context"], ["context", "--json"], ["export", "out.html"]],
    ids=["tree", "tree-json", "context", "context-json", "export"],
)
def test_each_command_lists_the_problems_once_on_stderr(tmp_path: Path, command: list[str]) -> None:
    path = damaged(tmp_path)

    done = run(command[0], str(path), *command[1:], cwd=tmp_path)

    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == EXPECTED
    assert done.stdout.strip()


async def test_a_headless_turn_lists_them_once_before_it_runs(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    write_small_window(openai_server)
    openai_server.enqueue(text_reply("answered"))
    path = damaged(tmp_path)

    code, out, err = await run_cli(
        "-p", "--model", "local/small", "--session", str(path), "next", cwd=tmp_path
    )

    assert (code, out) == (0, "answered\n"), err
    assert err.splitlines() == EXPECTED


def test_tree_lists_a_session_whose_parent_links_loop(tmp_path: Path) -> None:
    lines = [header(cwd=str(tmp_path)), user("u1", "a1", "hello"), assistant("a1", "u1", "hi")]
    path = tmp_path / "loop.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))

    done = run("tree", str(path), cwd=tmp_path)

    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["u1  • user: hello", "a1  ● assistant: hi"]
    assert done.stderr.splitlines() == [
        "pi-tui: loop.jsonl: parent links loop (u1 → a1 → u1); entry u1 taken as a root"
    ]
