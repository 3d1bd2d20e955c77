"""Rewind on a real AgentSession with the real tools and real files: three edits and a bash change,
back to before the second edit, a new branch, back to the first branch with its files, and a file
edited by hand reported as a conflict."""

from __future__ import annotations

import os
from pathlib import Path

from pi_tui.ai.scripted import ScriptedReply
from pi_tui.session.rewind import REWIND_CUSTOM_TYPE, FileHistory
from pi_tui.session_file.entries import CustomEntry
from tests.support.conversation import conversation_entries
from tests.support.rewind_story import edit, four_steps, user_entries


async def test_three_edits_and_a_bash_change_rewind_to_before_the_second_edit(tmp_path: Path) -> None:
    session = await four_steps(
        tmp_path, [ScriptedReply(tool_calls=[edit("app.py", "one", "uno")]), ScriptedReply(text="ok")]
    )
    project = tmp_path / "project"
    assert (project / "app.py").read_text() == "three\n"
    assert (project / "out.txt").read_text() == "built\n" and not (project / "notes.md").exists()
    second = user_entries(session)[1]

    plan = await session.plan_rewind(second.id)
    by_path = {item.path: item for item in plan.files}
    assert set(by_path) == {"app.py", "out.txt"}  # notes.md did not exist before the second edit either
    assert by_path["app.py"].action == "restore" and by_path["out.txt"].action == "delete"
    assert "-three" in by_path["app.py"].diff and "+one" in by_path["app.py"].diff
    assert not plan.conflicts

    result = await session.rewind(second.id, "both", plan=plan)
    assert (project / "app.py").read_text() == "one\n"
    assert not (project / "out.txt").exists()
    assert result.editor_text == "second edit"
    assert result.outcome is not None and sorted(result.outcome.restored) == ["app.py", "out.txt"]
    rewind_entry = session.store.get_entry(session.store.leaf_id or "")
    assert isinstance(rewind_entry, CustomEntry) and rewind_entry.custom_type == REWIND_CUSTOM_TYPE

    # Continue on a new branch from there.
    await session.prompt("another second edit")
    assert (project / "app.py").read_text() == "uno\n"
    assert len(session.store.get_tree()) == 1 and second.parent_id is not None
    siblings = [e for e in session.store.entries if e.parent_id == second.parent_id]
    assert len(siblings) == 2  # the old second edit and the rewind entry starting the new branch

    # Back to the first branch's end, with its files.
    first_branch_end = conversation_entries(session.store.entries)[15]
    moved = await session.navigate_tree(first_branch_end.id)
    back = await session.plan_files_at_leaf(moved.old_leaf_id)
    assert {item.path: item.action for item in back.files} == {"app.py": "restore", "out.txt": "restore"}
    outcome = await session.restore_files(back)
    assert outcome.restored == ["app.py", "out.txt"]
    assert (project / "app.py").read_text() == "three\n" and (project / "out.txt").read_text() == "built\n"


async def test_a_file_edited_by_hand_is_a_conflict_and_left_unless_chosen(tmp_path: Path) -> None:
    session = await four_steps(tmp_path)
    project = tmp_path / "project"
    (project / "app.py").write_text("my own change\n")
    second = user_entries(session)[1]

    plan = await session.plan_rewind(second.id)
    assert [item.path for item in plan.conflicts] == ["app.py"]
    result = await session.rewind(second.id, "files", plan=plan)
    assert (project / "app.py").read_text() == "my own change\n"
    assert result.outcome is not None and result.outcome.restored == ["out.txt"]
    assert [item.path for item in result.outcome.left] == ["app.py"]

    chosen = await session.plan_rewind(second.id)
    await session.restore_files(chosen, chosen_conflicts={"app.py"})
    assert (project / "app.py").read_text() == "one\n"


async def test_a_rewind_is_itself_undoable(tmp_path: Path) -> None:
    session = await four_steps(tmp_path)
    project = tmp_path / "project"
    leaf_before = session.store.leaf_id
    await session.rewind(user_entries(session)[1].id, "files")
    assert (project / "app.py").read_text() == "one\n"
    assert leaf_before is not None
    undo = await session.plan_rewind(leaf_before)
    await session.restore_files(undo)
    assert (project / "app.py").read_text() == "three\n" and (project / "out.txt").read_text() == "built\n"


async def test_checkpoint_folder_is_private_and_records_stay_in_details(tmp_path: Path) -> None:
    session = await four_steps(tmp_path)
    root = session.checkpoints.root
    assert root.parent == tmp_path / "sessions"
    for folder, _, files in os.walk(root):
        assert os.stat(folder).st_mode & 0o777 == 0o700
        for name in files:
            assert os.stat(os.path.join(folder, name)).st_mode & 0o777 == 0o600
    history = FileHistory(session.store)
    assert len(history.records) == 5  # three edits or writes that changed app.py, notes.md, and bash
    # Written as pi writes tool results: the record is one more key of `details`.
    text = session.store.path.read_text() if session.store.path else ""
    assert '"piTuiCheckpoint"' in text and '"customType":"pi-tui.rewind"' not in text


async def test_tampered_or_missing_checkpoint_restores_nothing_for_that_file(tmp_path: Path) -> None:
    session = await four_steps(tmp_path)
    project = tmp_path / "project"
    second = user_entries(session)[1]
    history = FileHistory(session.store)
    one = history.states_at(second.parent_id)["app.py"]
    assert one.sha256 is not None
    session.checkpoints.object_path(one.sha256).chmod(0o600)
    session.checkpoints.object_path(one.sha256).write_bytes(b"evil\n")

    plan = await session.plan_rewind(second.id)
    broken = {item.path: item for item in plan.unavailable}
    assert "app.py" in broken and "does not match its hash" in (broken["app.py"].reason or "")
    await session.restore_files(plan, force=True)
    assert (project / "app.py").read_text() == "three\n"

    os.unlink(session.checkpoints.object_path(one.sha256))
    missing = await session.plan_rewind(second.id)
    assert "missing" in ({i.path: i for i in missing.unavailable}["app.py"].reason or "")
