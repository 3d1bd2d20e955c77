"""The streaming reader (every healthy v3 file) must give exactly what the whole-file reader gives."""

from __future__ import annotations

import gc
import json
from pathlib import Path

import pytest

from pi_tui.session_file.entries import entry_line
from pi_tui.session_file.loader import LoadedSession, load_session_text, read_session_file
from tests.support.big_session import write_big_session
from tests.support.session_files import assistant, header, user

HEADER = json.dumps(header())
USER = json.dumps(user("u1", None, "hi"))
REPLY = json.dumps(assistant("a1", "u1", "yo"))

CASES: dict[str, str] = {
    "clean": f"{HEADER}\n{USER}\n{REPLY}\n",
    "torn tail": f'{HEADER}\n{USER}\n{{"type":"mess',
    "complete tail without newline": f"{HEADER}\n{USER}\n{REPLY}",
    "bad lines in the middle": f"{HEADER}\n{USER}\n{{not json\n[1, 2]\n3\n{REPLY}\n",
    "blank and whitespace lines": f"\n  \n{HEADER}\n\n\t\n{USER}\r\n\u00a0\n\x1c\n{REPLY}\n   ",
    "unknown type and extra header": f'{HEADER}\n{{"type":"hologram","id":"h","parentId":null,"x":[1.5]}}\n'
    f'{{"type":"session","id":"s2","version":3}}\n{{"type":"session"}}\n{USER}\n',
    "invalid entries": f"{HEADER}\n"
    '{"type":"message","id":"m1","parentId":null,"message":{"role":"user"}}\n'
    '{"type":"message","parentId":null,"message":{"role":"user","content":"x","timestamp":1}}\n'
    '{"type":["list"],"id":"w","parentId":null}\n'
    '{"type":"label","id":"l","parentId":null,"targetId":5}\n',
    "duplicate ids": f"{HEADER}\n{USER}\n{USER}\n",
    "type given twice or spelled oddly": f"{HEADER}\n"
    '{"type":"message","id":"t1","parentId":null,"customType":"x","type":"custom"}\n'
    '{"type":"custom","id":"t2","parentId":null,"customType":"x","type":"label"}\n'
    '{"type":"custom","id":"t3","parentId":null,"customType":"x","type":"custom"}\n'
    '{"type":"cust\\u006fm","id":"t4","parentId":null,"customType":"x"}\n'
    '{ "type": "label", "id": "t5", "parentId": null, "targetId": "t4", "label": "L" }\n'
    '{"type":"label"}\n{"type":"label","id":"t6"}\n{"type":"","id":"t7"}\n{"type":"\n',
    "every known type": f"{HEADER}\n"
    '{"type":"thinking_level_change","id":"k1","parentId":null,"timestamp":"t","thinkingLevel":"high"}\n'
    '{"type":"model_change","id":"k2","parentId":"k1","timestamp":"t","provider":"p","modelId":"m"}\n'
    '{"type":"compaction","id":"k3","parentId":"k2","timestamp":"t","summary":"s","firstKeptEntryId":"k2",'
    '"tokensBefore":5,"details":{"a":[1]},"fromHook":false}\n'
    '{"type":"branch_summary","id":"k4","parentId":"k3","timestamp":"t","fromId":"k2","summary":"b"}\n'
    '{"type":"custom_message","id":"k5","parentId":"k4","timestamp":"t","customType":"c","content":"x",'
    '"display":false}\n'
    '{"type":"session_info","id":"k6","parentId":"k5","timestamp":"t","name":"n"}\n'
    '{"type":"thinking_level_change","id":"k7","parentId":"k6","thinkingLevel":"extreme"}\n',
    "JSON the bytes reader rejects": f"{HEADER}\n"
    '{"type":"custom","id":"c1","parentId":null,"customType":"x","data":"\\ud800"}\n'
    '{"type":"custom","id":"c2","parentId":null,"customType":"x","data":[NaN,1e400,-0.0,1E5]}\n'
    '{"type":"custom","id":"c3","parentId":null,"customType":"x","data":{"k":1,"k":2}}\n' + "[" * 5000 + "\n",
    "numbers and unknown keys": f"{HEADER}\n"
    '{"type":"message","id":"n","parentId":null,"timestamp":"t","message":{"role":"assistant",'
    '"content":[],"usage":{"input":1,"cost":{"input":0.5,"total":1e-7}},"timestamp":1.0,"extra":'
    '{"big":123456789012345678901234567890}},"more":true}\n',
    "old format": '{"type":"session","version":2,"id":"old","timestamp":"t","cwd":"/"}\n'
    '{"type":"message","id":"m","parentId":null,"message":{"role":"hookMessage","content":"x"}}\n',
    "newer format": '{"type":"session","version":9,"id":"new","timestamp":"t","cwd":"/"}\n' + f"{USER}\n",
    "no header": f"{USER}\n{REPLY}\n",
    "garbage before the header": f"{{oops\n{HEADER}\n{USER}\n",
    "empty": "",
}


def _facts(loaded: LoadedSession) -> tuple[object, ...]:
    return (
        entry_line(loaded.header) if loaded.header else None,
        [(type(entry).__name__, entry_line(entry)) for entry in loaded.entries],
        [(d.line_number, d.message) for d in loaded.diagnostics],
        loaded.original_version,
        loaded.migrated,
        loaded.read_only_reason,
        loaded.ends_with_newline,
        loaded.skipped_lines,
    )


@pytest.mark.parametrize("name", sorted(CASES))
def test_streaming_and_whole_file_readers_agree(tmp_path: Path, name: str) -> None:
    text = CASES[name]
    path = tmp_path / "s.jsonl"
    path.write_text(text, encoding="utf-8")
    expected = load_session_text(path, text)
    assert _facts(read_session_file(path)) == _facts(expected)


def test_invalid_utf8_anywhere_is_read_by_the_whole_file_reader(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    data = (
        f"{HEADER}\n{USER}\n".encode() + b'{"type":"custom","id":"c","parentId":"u1","customType":"\xff"}\n'
    )
    path.write_bytes(data)
    loaded = read_session_file(path)
    note = "file contains invalid UTF-8; bad bytes replaced by U+FFFD"
    assert loaded.diagnostics[0].message == note
    assert [entry.id for entry in loaded.entries] == ["u1", "c"]
    assert _facts(loaded) == _facts(
        load_session_text(path, data.decode("utf-8", "replace"), decode_note=note)
    )


def test_a_generated_big_session_reads_the_same_both_ways(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    write_big_session(path, 400)
    streamed = read_session_file(path)
    assert streamed.diagnostics == [] and len(streamed.entries) == 400
    assert _facts(streamed) == _facts(load_session_text(path, path.read_text(encoding="utf-8")))
    lines = path.read_text(encoding="utf-8").splitlines()
    assert [entry_line(entry) for entry in streamed.entries] == lines[1:]


@pytest.mark.parametrize("enabled", [True, False])
def test_loading_leaves_the_garbage_collector_as_it_found_it(tmp_path: Path, enabled: bool) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(CASES["clean"], encoding="utf-8")
    was = gc.isenabled()
    try:
        gc.enable() if enabled else gc.disable()
        read_session_file(path)
        read_session_file(tmp_path / "missing.jsonl")
        assert gc.isenabled() is enabled
    finally:
        gc.enable() if was else gc.disable()
