"""The checker and the reference rebuild are grounded in pi itself: every line pi wrote passes the
checker, pi's own `buildSessionContext` output equals the reference rebuild, and broken lines fail."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from tests.interop.pi_reference import pi_projection, pi_session_name, read_entries
from tests.interop.pi_schema import SchemaError, check_appended, check_entry, check_session_lines
from tests.support.pi_corpora import CORPUS_FILES, PiFile


@pytest.mark.parametrize("pi_file", CORPUS_FILES)
def test_every_line_pi_wrote_passes(pi_file: PiFile) -> None:
    lines = pi_file.path.read_text(encoding="utf-8").splitlines()
    assert len(check_session_lines(lines)) == len(lines) - 1


@pytest.mark.parametrize("pi_file", CORPUS_FILES)
def test_reference_rebuild_equals_pis_own(pi_file: PiFile) -> None:
    expected = json.loads(pi_file.context_path.read_text())
    entries = read_entries(pi_file.path)
    rebuilt = pi_projection(entries)
    assert rebuilt["messages"] == expected["messages"]
    if "projection" in expected:
        assert rebuilt["projection"] == [(entry["id"], entry["messages"]) for entry in expected["projection"]]
    assert (rebuilt["leafId"], rebuilt["thinkingLevel"], rebuilt["model"]) == (
        expected["leafId"],
        expected["thinkingLevel"],
        expected["model"],
    )
    assert pi_session_name(entries) == expected["sessionName"]


def _assistant_entry(pi_fixtures: Path) -> dict[str, Any]:
    entries = read_entries(pi_fixtures / "pi-sessions" / "b-tools.jsonl")
    return next(e for e in entries if e["type"] == "message" and e["message"]["role"] == "assistant")


BREAKAGES = {
    "snake_case key": lambda e: e["message"]["usage"].update(cache_read=0),
    "missing usage field": lambda e: e["message"]["usage"].pop("totalTokens"),
    "unknown entry key": lambda e: e.update(piTuiExtra=1),
    "unknown message key": lambda e: e["message"].update(requestRecord={}),
    "ISO timestamp with offset": lambda e: e.update(timestamp="2026-11-29T23:04:35.988+00:00"),
    "seconds as message timestamp": lambda e: e["message"].update(timestamp=1795993475),
    "unknown stop reason": lambda e: e["message"].update(stopReason="end_turn"),
    "error without message": lambda e: e["message"].update(stopReason="error"),
    "string tool arguments": lambda e: e["message"]["content"][-1].update(arguments="{}"),
    "long entry id": lambda e: e.update(id="123456789"),
    "cost as string": lambda e: e["message"]["usage"]["cost"].update(total="0"),
}


@pytest.mark.parametrize("breakage", sorted(BREAKAGES))
def test_broken_lines_fail(pi_fixtures: Path, breakage: str) -> None:
    entry = copy.deepcopy(_assistant_entry(pi_fixtures))
    check_entry(entry, "original")
    BREAKAGES[breakage](entry)
    with pytest.raises(SchemaError):
        check_entry(entry, breakage)


def test_appended_lines_must_leave_the_old_bytes_and_chain_from_the_leaf(pi_fixtures: Path) -> None:
    before = (pi_fixtures / "pi-sessions" / "a-plain.jsonl").read_bytes()
    leaf = json.loads(before.splitlines()[-1])["id"]

    def entry(entry_id: str, parent: str, custom_type: str = "pi-tui.request") -> bytes:
        line = {"type": "custom", "id": entry_id, "parentId": parent, "timestamp": "2026-11-30T00:00:00.000Z"}
        line["customType"] = custom_type
        return (json.dumps(line, separators=(",", ":")) + "\n").encode()

    assert len(check_appended(before, before + entry("aaaaaaaa", leaf) + entry("bbbbbbbb", "aaaaaaaa"))) == 2
    with pytest.raises(SchemaError, match="pre-existing line changed"):
        check_appended(before, before.replace(b"Hi there", b"Hi where") + entry("aaaaaaaa", leaf))
    with pytest.raises(SchemaError, match="previous leaf"):
        check_appended(before, before + entry("aaaaaaaa", json.loads(before.splitlines()[1])["id"]))
    with pytest.raises(SchemaError, match="names no earlier entry"):
        check_appended(before, before + entry("aaaaaaaa", "cccccccc"))
    with pytest.raises(SchemaError, match="not pi-tui's"):
        check_appended(before, before + entry("aaaaaaaa", leaf, "my-extension"))
    with pytest.raises(SchemaError, match="nothing was appended"):
        check_appended(before, before)
