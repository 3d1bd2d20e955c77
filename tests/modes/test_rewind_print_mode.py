"""The rewind story headless from end to end, every step a real `pi-tui` subprocess, the agent's turns
in print mode against the loopback Chat Completions server: three edits and a bash change, back to
before the second edit with its diff, a new branch, back to the first branch with its files, and a
file created by hand in between reported as a conflict (exit 1, nothing written) unless `--force`,
which `--undo` takes back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pi_tui.session_file.store import SessionStore
from tests.support.cli_process import CliRun, configure_model, run_pi_tui
from tests.support.openai_server import OpenAIServer, StreamReply, chunk, text_reply, tool_call_delta, usage


def tool_reply(name: str, call_id: str, **arguments: Any) -> StreamReply:
    delta = tool_call_delta(0, call_id=call_id, name=name, arguments=json.dumps(arguments))
    return StreamReply(
        [
            chunk(tool_calls=[delta]),
            chunk(finish_reason="tool_calls"),
            chunk(no_choices=True, usage=usage(50, 9)),
        ]
    )


def edit_reply(call_id: str, old: str, new: str) -> StreamReply:
    return tool_reply("edit", call_id, path="app.py", edits=[{"oldText": old, "newText": new}])


def sent_text(server: OpenAIServer, index: int) -> str:
    return json.dumps(server.requests[index].body["messages"])


async def test_the_rewind_story_headless(openai_server: OpenAIServer, tmp_path: Path) -> None:
    model = configure_model(openai_server)
    project = tmp_path / "project"
    project.mkdir()
    session = tmp_path / "sessions" / "story.jsonl"  # outside the project: bash's scan never sees it

    async def pi_tui(*args: str) -> CliRun:
        return await run_pi_tui(*args, cwd=project)

    openai_server.enqueue(
        tool_reply("write", "call_1", path="app.py", content="one\n"),
        text_reply("wrote"),
        edit_reply("call_2", "one", "two"),
        text_reply("edited"),
        edit_reply("call_3", "two", "three"),
        text_reply("edited again"),
        tool_reply("bash", "call_4", command="printf 'built\\n' > out.txt"),
        text_reply("ran"),
    )
    ran = await pi_tui(
        "-p", "--session", str(session), "write it", "second edit", "third edit", "build", *model
    )
    assert ran.code == 0, ran.err
    assert (project / "app.py").read_text() == "three\n" and (project / "out.txt").read_text() == "built\n"
    first_branch_end = SessionStore.open(session).leaf_id or ""

    listed = await pi_tui("rewind", str(session), "--json")
    assert listed.code == 0, listed.err
    second = next(point["entryId"] for point in json.loads(listed.out) if point["text"] == "second edit")

    shown = await pi_tui("rewind", str(session), second, "--dry-run")
    assert shown.code == 0, shown.err
    assert "restore         app.py" in shown.out and "    -three" in shown.out and "    +one" in shown.out
    assert "delete          out.txt" in shown.out
    assert (project / "app.py").read_text() == "three\n"

    done = await pi_tui("rewind", str(session), second, "--both")
    assert done.code == 0, done.err
    assert (project / "app.py").read_text() == "one\n" and not (project / "out.txt").exists()

    # A new branch from there: the model no longer sees the old second and third edits.
    openai_server.enqueue(edit_reply("call_5", "one", "uno"), text_reply("ok"))
    branched = await pi_tui("-p", "--session", str(session), "another second edit", *model)
    assert branched.code == 0, branched.err
    assert (project / "app.py").read_text() == "uno\n"
    assert "another second edit" in sent_text(openai_server, 8) and "third edit" not in sent_text(
        openai_server, 8
    )
    assert first_branch_end not in {entry.id for entry in SessionStore.open(session).get_branch()}

    # Back to the first branch with its files; out.txt, made by hand meanwhile, is a conflict.
    (project / "out.txt").write_text("by hand\n")
    lines_before = session.read_text().count("\n")
    refused = await pi_tui("rewind", str(session), first_branch_end, "--both")
    assert refused.code == 1
    assert "CONFLICT        out.txt" in refused.out and "out.txt" in refused.err and "--force" in refused.err
    assert (project / "out.txt").read_text() == "by hand\n" and (project / "app.py").read_text() == "uno\n"
    assert session.read_text().count("\n") == lines_before  # nothing written

    forced = await pi_tui("rewind", str(session), first_branch_end, "--both", "--force")
    assert forced.code == 0, forced.err
    assert (project / "app.py").read_text() == "three\n" and (project / "out.txt").read_text() == "built\n"
    assert first_branch_end in {entry.id for entry in SessionStore.open(session).get_branch()}

    undone = await pi_tui("rewind", str(session), "--undo")
    assert undone.code == 0, undone.err
    assert (project / "out.txt").read_text() == "by hand\n" and (project / "app.py").read_text() == "uno\n"
