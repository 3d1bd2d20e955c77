"""pi-tui's own writes to pi's files — compaction, restore, a tree move with a branch summary and a
label, a clone — are pi-format, leave every old byte alone, and rebuild (by pi's rules) to what pi-tui
shows."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from pi_tui.ai.scripted import ScriptedProvider, ScriptedReply
from pi_tui.cli import main
from pi_tui.config.model_config import ModelConfig
from pi_tui.context.compaction.summary_call import SummaryModel
from pi_tui.session.tree_navigation import SummaryRequest, navigate_tree
from pi_tui.session_file.store import SessionStore
from tests.interop.headless import ANSWER, PROMPT, context_json, endpoint, run_main
from tests.interop.pi_reference import pi_context, pi_labels, read_entries
from tests.interop.pi_schema import check_appended, check_session_lines
from tests.support.openai_server import OpenAIServer, text_reply

NEW_SUMMARY = "## Goal\nKeep plan.md up to date (interop summary)."
BRANCH_SUMMARY = "## Goal\nTried an LRU cache with a TTL in cache.py."


def as_pi(path: Path) -> dict[str, Any]:
    return pi_context(read_entries(path))


@pytest.fixture
def small_keep_recent() -> None:
    """Keep ~2,000 recent tokens so the fixture's short branch has something to summarise."""
    home = Path(os.environ["PI_TUI_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "settings.json").write_text(json.dumps({"compaction": {"keepRecentTokens": 2000}}))


@pytest.mark.usefixtures("small_keep_recent")
async def test_compact_restore_and_continue_a_pi_session(
    pi_folder: Path,
    project: Path,
    openai_server: OpenAIServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = pi_folder / "c-auto-compaction.jsonl"
    original = path.read_bytes()
    old_context = context_json(path)
    previous = [entry for entry in read_entries(path) if entry["type"] == "compaction"][-1]
    openai_server.enqueue(text_reply(NEW_SUMMARY))

    code = await run_main(["compact", str(path), *endpoint(openai_server), "--json"], monkeypatch)

    assert code == 0, capsys.readouterr().err
    [compaction] = check_appended(original, path.read_bytes())
    assert compaction["type"] == "compaction" and compaction["summary"].startswith(NEW_SUMMARY)
    assert compaction["fromHook"] is False
    # pi's file lists carry forward through the iterative summary (the previous one was its input).
    assert set(previous["details"]["readFiles"]) <= set(compaction["details"]["readFiles"])
    assert set(previous["details"]["modifiedFiles"]) <= set(compaction["details"]["modifiedFiles"])
    prompt = json.dumps(openai_server.requests[0].body["messages"])
    assert json.dumps(previous["summary"])[1:40] in prompt
    compacted = as_pi(path)
    assert compacted["messages"] == context_json(path)
    assert compacted["messages"][0] == {
        "role": "compactionSummary",
        "summary": compaction["summary"],
        "tokensBefore": compaction["tokensBefore"],
        "timestamp": compacted["messages"][0]["timestamp"],
    }
    assert len(compacted["messages"]) < len(old_context)

    compacted_bytes = path.read_bytes()
    assert main(["restore", str(path), compaction["id"]]) == 0
    [marker] = check_appended(compacted_bytes, path.read_bytes(), linear=False)
    assert marker["customType"] == "pi-tui.restore" and marker["parentId"] == compaction["parentId"]
    assert as_pi(path)["messages"] == context_json(path) == old_context

    restored_bytes = path.read_bytes()
    openai_server.enqueue(text_reply(ANSWER))
    code = await run_main(
        ["-p", "--here", "--session", str(path), *endpoint(openai_server), PROMPT], monkeypatch
    )
    assert code == 0, capsys.readouterr().err
    new = check_appended(restored_bytes, path.read_bytes())
    added = [entry["message"] for entry in new if entry["type"] == "message"]
    assert [message["role"] for message in added] == ["system", "user", "assistant"]
    assert as_pi(path)["messages"] == context_json(path) == old_context + added


MODEL = ModelConfig(id="scripted-model", provider="scripted", context_window=32_000)


async def test_tree_move_with_branch_summary_and_label(
    pi_folder: Path,
    project: Path,
    openai_server: OpenAIServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = pi_folder / "f-tree.jsonl"
    before = path.read_bytes()
    entries = read_entries(path)
    old_leaf = entries[-1]["id"]
    lru_answer = "67a3280f"  # the last reply on the LRU + TTL branch
    summariser = ScriptedProvider([ScriptedReply(text=BRANCH_SUMMARY)])
    store = SessionStore.open(path, cwd=str(project))

    left = store.leaf_id
    result = await navigate_tree(
        store,
        lru_answer,
        summary=SummaryRequest(SummaryModel(MODEL, summariser), reserve_tokens=16_384),
        label="ttl-done",
    )

    assert result.summary_entry is not None
    summary, label = check_appended(before, path.read_bytes(), linear=False)
    # As pi 1.6 writes it: the summary hangs under the position moved to, `fromId` names the leaf left.
    assert summary["type"] == "branch_summary"
    assert summary["parentId"] == lru_answer and summary["fromId"] == left
    assert summary["summary"].endswith(BRANCH_SUMMARY)
    assert set(summary["details"]) == {"readFiles", "modifiedFiles"}
    assert label["type"] == "label" and label["parentId"] == summary["id"]
    assert label["targetId"] == summary["id"] and label["label"] == "ttl-done"
    abandoned = json.dumps([message.to_json_obj() for message in summariser.contexts[0].messages])
    assert "trade-offs between A and B" in abandoned
    moved = as_pi(path)
    assert moved["messages"] == context_json(path)
    assert moved["messages"][-1]["role"] == "branchSummary"
    assert moved["messages"][-2]["role"] == "assistant"
    assert pi_labels(read_entries(path)) == {**pi_labels(entries), summary["id"]: "ttl-done"}
    assert SessionStore.open(path).labels == pi_labels(read_entries(path))
    assert old_leaf not in {entry["id"] for entry in read_entries(path)[len(entries) :]}

    moved_bytes = path.read_bytes()
    openai_server.enqueue(text_reply(ANSWER))
    code = await run_main(
        ["-p", "--here", "--session", str(path), *endpoint(openai_server), PROMPT], monkeypatch
    )
    assert code == 0, capsys.readouterr().err
    new = check_appended(moved_bytes, path.read_bytes())
    assert new[0]["parentId"] == label["id"]
    added = [entry["message"] for entry in new if entry["type"] == "message"]
    assert as_pi(path)["messages"] == context_json(path) == moved["messages"] + added
    sent = json.dumps(openai_server.requests[0].body["messages"])
    assert "The following is a summary of a branch that this conversation came back from" in sent


def test_clone_of_a_pi_branch_is_a_pi_file_beside_it(pi_folder: Path) -> None:
    """`/clone` at the Redis branch's label: a new file in pi's folder with the root→leaf path and the
    labels on it re-created (pi's `createBranchedSession`)."""
    source = pi_folder / "f-tree.jsonl"
    before = source.read_bytes()
    entries = read_entries(source)
    redis_label = next(entry for entry in entries if entry.get("label") == "redis-attempt")

    clone = SessionStore.open(source).create_branched_session(redis_label["id"])

    assert source.read_bytes() == before
    assert clone.path is not None and clone.path.parent == pi_folder
    lines = clone.path.read_text(encoding="utf-8").splitlines()
    copied = check_session_lines(lines)
    header = json.loads(lines[0])
    assert (
        header["parentSession"] == str(source) and header["cwd"] == json.loads(before.splitlines()[0])["cwd"]
    )
    *path, label = copied
    original_lines = {json.loads(line)["id"]: line for line in before.decode().splitlines()[1:]}
    assert all(lines[index + 1] == original_lines[entry["id"]] for index, entry in enumerate(path))
    assert [entry["id"] for entry in path][-1] == redis_label["targetId"]
    assert label["type"] == "label" and label["parentId"] == path[-1]["id"]
    assert (label["targetId"], label["label"], label["timestamp"]) == (
        redis_label["targetId"],
        "redis-attempt",
        redis_label["timestamp"],
    )
    assert pi_context(copied)["messages"] == pi_context(entries, redis_label["id"])["messages"]
