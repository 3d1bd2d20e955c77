"""`pi-tui rewind` as a real subprocess on a session whose tools changed real files: the points, the
plan with its diff, the rewind and a new branch, back to the first branch with its files, a conflict
(exit 1, nothing written) and `--force`; `pi-tui sessions --delete` taking the checkpoints along."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from pi_tui.ai.scripted import ScriptedReply
from pi_tui.session_file.store import SessionStore
from pi_tui.session_file.tree_listing import FILES_GONE_NOTE
from tests.support.rewind_story import (
    drop_oldest_object,
    edit,
    edits_around_a_compaction,
    four_steps,
    make_session,
    user_entries,
)


def pi_tui(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pi_tui", *args]
    return subprocess.run(command, capture_output=True, text=True, env=dict(os.environ), timeout=60)


async def test_rewind_to_before_the_second_edit_then_a_new_branch_then_back(tmp_path: Path) -> None:
    session = await four_steps(tmp_path)
    project = tmp_path / "project"
    path = session.store.path
    assert path is not None
    second = user_entries(session)[1]
    first_branch_end = session.store.leaf_id or ""

    listed = pi_tui("rewind", str(path))
    assert listed.returncode == 0, listed.stderr
    assert second.id in listed.stdout and "second edit" in listed.stdout

    dry = pi_tui("rewind", str(path), second.id, "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "restore         app.py" in dry.stdout and "delete          out.txt" in dry.stdout
    assert "    -three" in dry.stdout and "    +one" in dry.stdout
    assert (project / "app.py").read_text() == "three\n"  # a dry run writes nothing

    done = pi_tui("rewind", str(path), second.id, "--both")
    assert done.returncode == 0, done.stderr
    assert (project / "app.py").read_text() == "one\n" and not (project / "out.txt").exists()

    # The new leaf survives reopening; a prompt there starts a new branch.
    store = SessionStore.open(path)
    assert store.leaf_id != first_branch_end
    branched = make_session(
        tmp_path, [ScriptedReply(tool_calls=[edit("app.py", "one", "uno")]), ScriptedReply(text="ok")], store
    )
    await branched.prompt("another second edit")
    assert (project / "app.py").read_text() == "uno\n"
    assert first_branch_end not in {entry.id for entry in branched.store.get_branch()}

    back = pi_tui("rewind", str(path), first_branch_end, "--both", "--json")
    assert back.returncode == 0, back.stderr
    plan = json.loads(back.stdout)
    assert {item["path"]: item["action"] for item in plan["files"]} == {
        "app.py": "restore",
        "out.txt": "restore",
    }
    assert (project / "app.py").read_text() == "three\n" and (project / "out.txt").read_text() == "built\n"
    reopened = SessionStore.open(path)
    assert first_branch_end in {entry.id for entry in reopened.get_branch()}


async def test_a_file_edited_by_hand_stops_the_rewind_unless_forced(tmp_path: Path) -> None:
    session = await four_steps(tmp_path)
    project = tmp_path / "project"
    path = session.store.path
    assert path is not None
    (project / "app.py").write_text("mine\n")
    second = user_entries(session)[1]
    lines_before = path.read_text().count("\n")

    refused = pi_tui("rewind", str(path), second.id, "--files")
    assert refused.returncode == 1
    assert "CONFLICT" in refused.stdout and "app.py" in refused.stderr
    assert (project / "app.py").read_text() == "mine\n" and (project / "out.txt").exists()
    assert path.read_text().count("\n") == lines_before

    forced = pi_tui("rewind", str(path), second.id, "--files", "--force")
    assert forced.returncode == 0, forced.stderr
    assert (project / "app.py").read_text() == "one\n"
    # ...and the hand edit was kept by the rewind itself: undoing that rewind brings it back.
    dry = pi_tui("rewind", str(path), "--undo", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "restore         app.py" in dry.stdout and "    +mine" in dry.stdout
    assert (project / "app.py").read_text() == "one\n"
    undo = pi_tui("rewind", str(path), "--undo")
    assert undo.returncode == 0, undo.stderr
    assert (project / "app.py").read_text() == "mine\n" and (project / "out.txt").read_text() == "built\n"
    wrong = pi_tui("rewind", str(path), second.id, "--undo")
    assert wrong.returncode == 1 and "--undo takes no ENTRY" in wrong.stderr
    assert "Traceback" not in wrong.stderr


async def test_an_unknown_entry_is_a_clear_error(tmp_path: Path) -> None:
    session = await four_steps(tmp_path)
    assert session.store.path is not None
    done = pi_tui("rewind", str(session.store.path), "nope")
    assert done.returncode == 1 and "no entry nope" in done.stderr and "Traceback" not in done.stderr


async def test_sessions_delete_removes_the_checkpoints(tmp_path: Path) -> None:
    session = await four_steps(tmp_path)
    path = session.store.path
    assert path is not None
    objects = session.checkpoints.objects
    assert any(objects.rglob("*"))
    done = pi_tui("sessions", "--delete", str(path), "--yes", "--session-dir", str(tmp_path / "sessions"))
    assert done.returncode == 0, done.stderr
    assert not session.checkpoints.refs_file.exists()
    assert not [item for item in objects.rglob("*") if item.is_file()]


async def test_restore_offers_the_files_and_brings_them_with_files(tmp_path: Path) -> None:
    session, compaction_id = await edits_around_a_compaction(tmp_path)
    project = tmp_path / "project"
    path = str(session.store.path)
    leaf = session.store.leaf_id

    (project / "app.py").write_text("mine\n")
    refused = pi_tui("restore", path, compaction_id, "--files")
    assert refused.returncode == 1 and "CONFLICT" in refused.stderr and "--force" in refused.stderr
    assert (project / "app.py").read_text() == "mine\n" and SessionStore.open(Path(path)).leaf_id == leaf

    (project / "app.py").write_text("three\n")  # as the agent left it
    offered = pi_tui("restore", path, compaction_id)
    assert offered.returncode == 0, offered.stderr
    assert "1 file(s) differ from that point" in offered.stderr and "restore  app.py" in offered.stderr
    assert (project / "app.py").read_text() == "three\n"  # an offer only
    marker = offered.stdout.strip()
    # Taken later: the old branch's content on disk is pi-tui's own, no conflict.
    taken = pi_tui("rewind", path, marker, "--files")
    assert taken.returncode == 0, taken.stdout + taken.stderr
    assert (project / "app.py").read_text() == "two\n"

    (project / "app.py").write_text("three\n")
    brought = pi_tui("restore", path, compaction_id, "--files", "--json")
    assert brought.returncode == 0, brought.stderr
    answer = json.loads(brought.stdout)
    assert answer["filesRestored"] == {"restored": ["app.py"], "failed": {}}
    assert (project / "app.py").read_text() == "two\n"


async def test_points_the_cap_dropped_are_marked_by_every_command(tmp_path: Path) -> None:
    session, compaction_id = await edits_around_a_compaction(tmp_path)
    path = str(session.store.path)
    drop_oldest_object(session, b"one\n")
    drop_oldest_object(session, b"two\n")
    second, third = user_entries(session)[1:3]

    points = pi_tui("rewind", path)
    marked = {line.split()[0] for line in points.stdout.splitlines() if FILES_GONE_NOTE in line}
    assert marked == {second.id, third.id}
    tree = pi_tui("tree", path, "--filter", "user-only")
    marked = {line.split()[0] for line in tree.stdout.splitlines() if FILES_GONE_NOTE in line}
    assert marked == {second.id, third.id}
    timeline = pi_tui("compactions", path)
    assert timeline.returncode == 0 and f"{FILES_GONE_NOTE}: the checkpoint size cap" in timeline.stdout
    listed = json.loads(pi_tui("compactions", path, "--json").stdout)
    assert [(item["id"], item["filesRestorable"]) for item in listed] == [(compaction_id, False)]
