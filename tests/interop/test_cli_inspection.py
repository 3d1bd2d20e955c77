"""pi's sessions through pi-tui's inspection commands, run in-process (`cli.main(argv)`), read-only."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi_tui.cli import main
from pi_tui.config.paths import cwd_folder_name
from tests.interop.conftest import FIXTURE_NAMES, PI_PROJECT
from tests.interop.pi_reference import iso_ms, pi_context, pi_session_name, read_entries


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    assert main(list(argv)) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def header(path: Path) -> dict[str, Any]:
    first: dict[str, Any] = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    return first


def test_sessions_all_lists_every_pi_file(
    pi_folder: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = {Path(row["path"]).name: row for row in run_json(capsys, "sessions", "--all", "--json")}
    assert sorted(rows) == sorted(f"{name}.jsonl" for name in FIXTURE_NAMES)
    for name, row in rows.items():
        entries = read_entries(pi_folder / name)
        assert row["source"] == "pi"
        assert row["id"] == header(pi_folder / name)["id"]
        assert row["cwd"] == PI_PROJECT
        assert row["name"] == pi_session_name(entries)
        assert row["messageCount"] == sum(entry["type"] == "message" for entry in entries)
        # pi: `created` is the header's time, `modified` the newest user or assistant message.
        assert iso_ms(row["created"]) == iso_ms(header(pi_folder / name)["timestamp"])
        talk = [e["message"] for e in entries if e["type"] == "message"]
        newest = max(m["timestamp"] for m in talk if m["role"] in ("user", "assistant"))
        assert iso_ms(row["modified"]) == newest
    assert rows["a-plain.jsonl"]["firstMessage"] == "Hi there, who are you?"
    # Nothing of pi's was touched by listing.
    assert not any(path.suffix != ".jsonl" for path in pi_folder.iterdir())


def test_sessions_of_this_directory_include_pis(
    pi_folder: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A pi session filed under the current directory is listed without --all."""
    source = pi_folder / "a-plain.jsonl"
    lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
    moved = json.loads(lines[0]) | {"cwd": str(project)}
    target = pi_folder.parent / cwd_folder_name(str(project)) / "moved.jsonl"
    target.parent.mkdir()
    target.write_text(json.dumps(moved, separators=(",", ":")) + "\n" + "".join(lines[1:]), encoding="utf-8")

    rows = run_json(capsys, "sessions", "--json")

    assert [(Path(row["path"]), row["source"]) for row in rows] == [(target, "pi")]


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_context_of_a_pi_session_is_pis_context(
    pi_folder: Path, project: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = pi_folder / f"{name}.jsonl"
    before = path.read_bytes()
    expected = pi_context(read_entries(path))

    report = run_json(capsys, "context", str(path), "--json")

    assert report["sessionId"] == header(path)["id"]
    assert report["leafId"] == expected["leafId"]
    # pi 1.6's system messages are pi-tui's system prompt there, not messages of the context.
    assert report["messageCount"] == sum(message["role"] != "system" for message in expected["messages"])
    assert report["model"] == "{provider}/{modelId}".format(**expected["model"])
    assert report["source"] == "estimate" and report["records"] == []
    assert path.read_bytes() == before


def test_context_accepts_a_pi_session_id_prefix(
    pi_folder: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    session_id = header(pi_folder / "f-tree.jsonl")["id"]
    report = run_json(capsys, "context", session_id[:13], "--json")
    assert report["sessionId"] == session_id
    assert main(["context", session_id[:4]]) == 1
    assert "ambiguous" in capsys.readouterr().err


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_compactions_of_a_pi_session(
    pi_folder: Path, project: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = pi_folder / f"{name}.jsonl"
    entries = read_entries(path)
    compactions = [entry for entry in entries if entry["type"] == "compaction"]

    records = run_json(capsys, "compactions", str(path), "--json")

    assert [record["id"] for record in records] == [entry["id"] for entry in compactions]
    for record, entry in zip(records, compactions, strict=True):
        assert record["tokensBefore"] == entry["tokensBefore"]
        assert record["firstKeptEntryId"] == entry["firstKeptEntryId"]
        assert record["summaryLength"] == len(entry["summary"])
        assert record["onCurrentBranch"] is True
        assert record["fromHook"] is entry.get("fromHook", False)
    if compactions:
        last = compactions[-1]
        shown = run_json(capsys, "compactions", str(path), "--show", last["id"], "--json")
        assert shown["summary"] == last["summary"]
        assert shown["audit"]["items"], "the loss audit found nothing to check"
