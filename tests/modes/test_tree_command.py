"""`pi-tui tree` as a real subprocess on pi's own branched session: the lines /tree shows, its filters,
and labels written in pi's format."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from pi_tui.session_file.entries import LabelEntry
from pi_tui.session_file.store import SessionStore

LINE = re.compile(r"^([0-9a-f]{8})  ( *)(├ )?([●• ]) (.*)$")


def tree(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pi_tui", "tree", *args]
    return subprocess.run(command, capture_output=True, text=True, env=dict(os.environ), timeout=60)


def copy(tmp_path: Path, pi_fixtures: Path) -> Path:
    path = tmp_path / "f-tree.jsonl"
    shutil.copy(pi_fixtures / "pi-sessions" / "f-tree.jsonl", path)
    return path


def test_the_tree_with_its_branches_and_where_the_session_is(tmp_path: Path, pi_fixtures: Path) -> None:
    path = copy(tmp_path, pi_fixtures)
    done = tree(str(path))
    assert done.returncode == 0, done.stderr
    lines = [LINE.match(line) for line in done.stdout.splitlines()]
    assert all(lines), done.stdout
    assert sum(match.group(4) == "●" for match in lines if match) == 1
    assert any(match.group(3) for match in lines if match)  # the conversation forks somewhere
    store = SessionStore.open(path)
    here = next(match.group(1) for match in lines if match and match.group(4) == "●")
    assert here in {entry.id for entry in store.get_branch()}
    users = tree(str(path), "--filter", "user-only").stdout.splitlines()
    assert users and all(" user: " in line for line in users)


def test_labels_are_written_as_pi_writes_them_and_can_be_removed(tmp_path: Path, pi_fixtures: Path) -> None:
    path = copy(tmp_path, pi_fixtures)
    first_user = tree(str(path), "--filter", "user-only").stdout.split()[0]
    labelled = tree(str(path), "--label", first_user, "before the fork", "--filter", "labeled-only", "--json")
    assert labelled.returncode == 0, labelled.stderr
    shown = {line["entryId"]: line["label"] for line in json.loads(labelled.stdout)}
    assert shown[first_user] == "before the fork"
    last = json.loads(path.read_text().splitlines()[-1])
    assert (last["type"], last["targetId"], last["label"]) == ("label", first_user, "before the fork")
    assert isinstance(SessionStore.open(path).entries[-1], LabelEntry)

    assert tree(str(path), "--label", first_user, "").returncode == 0
    assert SessionStore.open(path).get_label(first_user) is None
    assert first_user not in tree(str(path), "--filter", "labeled-only").stdout

    before = path.read_bytes()
    unknown = tree(str(path), "--label", "00000000", "x")
    assert unknown.returncode == 1 and "no entry 00000000" in unknown.stderr
    assert path.read_bytes() == before
