"""Settings files: global then project, pi's merge, malformed files reported, atomic global saves."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pi_tui.config.paths import settings_path
from pi_tui.config.settings_files import (
    load_settings,
    merge_settings,
    project_settings_path,
    read_settings_file,
    save_global_settings,
)


def _write(path: Path, document: object | str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(document if isinstance(document, str) else json.dumps(document, indent=2))
    return path


def test_missing_files_give_defaults_and_no_diagnostics(tmp_path: Path) -> None:
    loaded = load_settings(tmp_path)

    assert loaded.diagnostics == []
    assert loaded.settings.compaction.reserve_tokens == 16384


def test_project_wins_and_nested_objects_merge(tmp_path: Path) -> None:
    _write(settings_path(), {"compaction": {"enabled": False, "reserveTokens": 1000}, "theme": "dark"})
    _write(project_settings_path(tmp_path), {"compaction": {"reserveTokens": 2000}, "theme": "light"})

    settings = load_settings(tmp_path).settings

    assert settings.compaction.enabled is False  # kept from global
    assert settings.compaction.reserve_tokens == 2000  # project wins
    assert settings.theme == "light"


def test_merge_is_one_level_deep_as_pi() -> None:
    base = {"a": {"x": {"deep": 1, "other": 2}, "y": 1}, "list": [1, 2]}
    overrides = {"a": {"x": {"deep": 3}}, "list": [3]}

    merged = merge_settings(base, overrides)

    assert merged == {"a": {"x": {"deep": 3}, "y": 1}, "list": [3]}
    assert base["a"] == {"x": {"deep": 1, "other": 2}, "y": 1}  # inputs untouched


def test_bad_json_is_reported_with_line_and_column_and_ignored(tmp_path: Path) -> None:
    _write(settings_path(), {"theme": "dark"})
    broken = _write(project_settings_path(tmp_path), '{\n  "theme": "light",\n  "approval": tru\n}\n')

    loaded = load_settings(tmp_path)

    assert loaded.settings.theme == "dark"  # the broken project file contributes nothing
    [diagnostic] = loaded.diagnostics
    assert diagnostic.path == broken
    assert (diagnostic.line, diagnostic.column) == (3, 15)
    assert str(diagnostic).startswith(f"{broken}:3:15: invalid JSON")


def test_wrong_type_is_reported_with_key_and_position(tmp_path: Path) -> None:
    path = _write(settings_path(), '{\n  "theme": "x",\n  "retry": {\n    "maxRetries": "three"\n  }\n}')

    loaded = load_settings(tmp_path)

    [diagnostic] = loaded.diagnostics
    assert diagnostic.key == "retry.maxRetries"
    assert (diagnostic.path, diagnostic.line, diagnostic.column) == (path, 4, 19)
    assert loaded.settings.theme is None  # defaults for the whole file
    assert loaded.settings.retry.max_retries == 3


def test_non_object_document_is_reported(tmp_path: Path) -> None:
    _write(settings_path(), "[1, 2]")

    [diagnostic] = load_settings(tmp_path).diagnostics

    assert "object" in diagnostic.message


def test_save_writes_only_the_global_file_and_keeps_unknown_keys(tmp_path: Path) -> None:
    _write(settings_path(), {"compaction": {"enabled": True, "mystery": 1}, "extensions": ["a.ts"]})
    project = _write(project_settings_path(tmp_path), {"theme": "light"})
    project_before = project.read_text()

    assert save_global_settings({"compaction": {"enabled": False}, "theme": "dark"}) == []

    saved = json.loads(settings_path().read_text())
    assert saved == {"compaction": {"enabled": False, "mystery": 1}, "extensions": ["a.ts"], "theme": "dark"}
    assert project.read_text() == project_before
    assert load_settings(tmp_path).settings.compaction.enabled is False
    assert [p.name for p in settings_path().parent.iterdir()] == ["settings.json"]  # no temp file left


def test_save_creates_a_missing_global_file() -> None:
    assert save_global_settings({"approval": True}) == []

    assert json.loads(settings_path().read_text()) == {"approval": True}


@pytest.mark.parametrize("content", ['{"theme": ', '{"retry": {"enabled": "no"}}'])
def test_save_never_overwrites_a_broken_file(content: str) -> None:
    path = _write(settings_path(), content)
    before = path.stat().st_mtime_ns

    diagnostics = save_global_settings({"theme": "dark"})

    assert diagnostics
    assert "not saved" in str(diagnostics[-1])
    assert path.read_text() == content
    assert path.stat().st_mtime_ns == before


def test_save_refuses_values_of_the_wrong_type() -> None:
    path = _write(settings_path(), {"theme": "dark"})

    diagnostics = save_global_settings({"retry": {"maxRetries": "many"}})

    assert [d.key for d in diagnostics] == ["retry.maxRetries"]
    assert json.loads(path.read_text()) == {"theme": "dark"}


def test_save_is_atomic_replace(tmp_path: Path) -> None:
    path = _write(settings_path(), {"theme": "dark"})
    inode_before = os.stat(path).st_ino

    save_global_settings({"theme": "light"})

    assert os.stat(path).st_ino != inode_before  # a new file was renamed over the old one
    assert read_settings_file(path, "global").raw == {"theme": "light"}


def test_unreadable_file_is_a_diagnostic(tmp_path: Path) -> None:
    directory = settings_path()
    directory.mkdir(parents=True)  # a folder where the file should be

    file = read_settings_file(directory, "global")

    assert file.exists and not file.ok
    assert "cannot read" in file.diagnostics[0].message
