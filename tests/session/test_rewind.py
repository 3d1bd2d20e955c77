"""Rewind on a real AgentSession with the real tools and real files: three edits and a bash change,
back to before the second edit, a new branch, back to the first branch with its files, and a file
edited by hand reported as a conflict."""

from __future__ import annotations

import os
from pathlib import Path

from pi_tui.ai.scripted import ScriptedProvider, ScriptedReply
from pi_tui.config.settings import Settings
from pi_tui.context.resources import load_resources
from pi_tui.session.compaction_ops import PreviewBasis
from pi_tui.session.rewind import REWIND_CUSTOM_TYPE, FileHistory, mark_tree_lines, rewind_points
from pi_tui.session.runtime import AgentSessionRuntime, AgentSessionServices, RuntimeOptions
from pi_tui.session_file.entries import CustomEntry
from pi_tui.session_file.store import SessionStore
from pi_tui.session_file.tree_listing import FILES_GONE_NOTE, tree_line_text, tree_lines
from pi_tui.tui.timeline_view import (
    FILES_GONE_FACT,
    FILES_GONE_MARKER,
    ON_BRANCH_MARKER,
    detail_for,
    timeline_rows,
)
from tests.support.conversation import conversation_entries
from tests.support.rewind_story import (
    FOUR_STEPS,
    MODEL,
    drop_oldest_object,
    edit,
    edits_around_a_compaction,
    four_steps,
    user_entries,
)


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


async def test_points_the_cap_dropped_are_marked_in_the_picker_the_tree_and_the_timeline(
    tmp_path: Path,
) -> None:
    session, compaction_id = await edits_around_a_compaction(tmp_path)
    store, checkpoints = session.store, session.checkpoints
    basis = PreviewBasis.of_session(session)

    def restorable() -> dict[str, bool]:
        return {point.text.split()[0]: point.restorable for point in rewind_points(store, checkpoints)}

    def tree_marks() -> dict[str, bool]:
        lines = mark_tree_lines(store, checkpoints, tree_lines(store, "user-only"))
        return {line.text.split()[1]: FILES_GONE_NOTE in tree_line_text(line) for line in lines}

    assert restorable() == {"write": True, "second": True, "third": True}
    assert not any(tree_marks().values())
    assert not timeline_rows(store, checkpoints)[0].files_gone

    drop_oldest_object(session, b"one\n")  # the state before the second edit
    assert restorable() == {"write": True, "second": False, "third": True}
    assert tree_marks() == {"write": False, "second": True, "third": False}
    [row] = timeline_rows(store, checkpoints)
    assert not row.files_gone and row.cells()[0] == ON_BRANCH_MARKER

    drop_oldest_object(session, b"two\n")  # what the compaction's restore would bring back
    assert restorable() == {"write": True, "second": False, "third": False}
    [row] = timeline_rows(store, checkpoints)
    assert row.files_gone and row.cells()[0] == ON_BRANCH_MARKER + FILES_GONE_MARKER
    detail = detail_for(store, compaction_id, basis, checkpoints)
    assert detail is not None and ("Files", FILES_GONE_FACT) in detail.facts
    plan = await session.plan_rewind(user_entries(session)[2].id)
    assert [(item.path, item.action) for item in plan.files] == [("app.py", "unavailable")]


async def test_files_left_behind_by_a_tree_move_are_no_conflict_later(tmp_path: Path) -> None:
    # The user moved back without bringing the files: the disk holds the other branch's state, which
    # pi-tui wrote itself, so a later rewind restores it without asking to overwrite a "conflict".
    session = await four_steps(tmp_path)
    project = tmp_path / "project"
    second = user_entries(session)[1]
    assert second.parent_id is not None
    await session.navigate_tree(second.parent_id)
    assert (project / "app.py").read_text() == "three\n"
    plan = await session.plan_rewind(second.id)
    assert {item.path: item.action for item in plan.files} == {"app.py": "restore", "out.txt": "delete"}


async def test_a_fork_and_a_clone_share_the_checkpoints_and_rewind_on_their_own(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()

    def services(cwd: Path) -> AgentSessionServices:
        resources = load_resources(cwd, settings=Settings(), home=tmp_path, include_builtin=False)
        return AgentSessionServices(cwd=cwd, resources=resources)

    options = RuntimeOptions(
        model=MODEL, api_key="unused", stream_fn=ScriptedProvider(FOUR_STEPS), services_factory=services
    )
    runtime = AgentSessionRuntime(SessionStore.create(str(project), tmp_path / "sessions"), options)
    for prompt in ("write it", "second edit", "third edit", "build"):
        await runtime.session.prompt(prompt)
    original = runtime.session
    second, third = user_entries(original)[1:3]

    clone = await runtime.clone()
    assert clone.store.session_id != original.store.session_id
    assert clone.checkpoints.referenced() == original.checkpoints.referenced()  # by content, no copies
    original.checkpoints.delete_session()  # the original's objects stay: the clone names them
    plan = await clone.plan_rewind(user_entries(clone)[1].id)
    assert {item.path: item.action for item in plan.files} == {"app.py": "restore", "out.txt": "delete"}
    await clone.restore_files(plan)
    assert (project / "app.py").read_text() == "one\n" and not (project / "out.txt").exists()

    # A fork at the third edit holds the path before it; its files rewind to before the second edit
    # from what the agent left on disk at that point.
    await runtime.switch_session(Path(str(original.store.path)))
    await runtime.session.rewind(third.id, "files")
    assert (project / "app.py").read_text() == "two\n"
    await runtime.fork(third.id)
    fork = runtime.session
    assert fork.store.session_id not in (original.store.session_id, clone.store.session_id)
    forked_second = next(e for e in user_entries(fork) if e.id == second.id)
    await fork.rewind(forked_second.id, "files")
    assert (project / "app.py").read_text() == "one\n"
