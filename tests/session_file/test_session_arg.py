from __future__ import annotations

from pathlib import Path

from pi_tui.config.paths import cwd_folder_name
from pi_tui.session_file.session_arg import SessionArgError, is_path_arg, resolve_session_arg
from tests.support.session_files import header, write_jsonl


def _session(root: Path, cwd: str, session_id: str) -> Path:
    return write_jsonl(root / cwd_folder_name(cwd) / f"t_{session_id}.jsonl", [header(session_id=session_id)])


def test_path_arguments(tmp_path: Path) -> None:
    assert is_path_arg("a/b") and is_path_arg("a\\b") and is_path_arg("x.jsonl") and not is_path_arg("01a2")
    assert resolve_session_arg("/abs/s.jsonl", "/cwd") == Path("/abs/s.jsonl")
    assert resolve_session_arg("rel/s.jsonl", str(tmp_path)) == tmp_path / "rel" / "s.jsonl"


def test_prefix_prefers_the_current_project_then_searches_everywhere(tmp_path: Path) -> None:
    ours, theirs = tmp_path / "ours", tmp_path / "pi"
    here = _session(ours, "/here", "abc-1")
    _session(ours, "/other", "abc-2")
    elsewhere = _session(theirs, "/far", "xyz-1")
    assert resolve_session_arg("abc", "/here", root=ours, pi_root=theirs) == here
    assert resolve_session_arg("xyz", "/here", root=ours, pi_root=theirs) == elsewhere


def test_exact_id_beats_longer_ids_sharing_it_as_prefix(tmp_path: Path) -> None:
    exact = _session(tmp_path, "/p", "abc")
    _session(tmp_path, "/p", "abcdef")
    assert resolve_session_arg("abc", "/p", root=tmp_path, pi_root=tmp_path / "none") == exact


def test_ambiguous_prefix_lists_candidates(tmp_path: Path) -> None:
    first = _session(tmp_path, "/a", "dup-1")
    second = _session(tmp_path, "/b", "dup-2")
    result = resolve_session_arg("dup", "/elsewhere", root=tmp_path, pi_root=tmp_path / "none")
    assert isinstance(result, SessionArgError)
    assert "ambiguous" in result.message and "dup-1" in result.message and str(second) in result.message
    assert {path for _, path in result.candidates} == {first, second}


def test_no_match_and_empty(tmp_path: Path) -> None:
    missing = resolve_session_arg("nope", "/p", root=tmp_path, pi_root=tmp_path)
    assert isinstance(missing, SessionArgError) and "nope" in missing.message and missing.candidates == ()
    assert isinstance(resolve_session_arg("  ", "/p", root=tmp_path, pi_root=tmp_path), SessionArgError)
