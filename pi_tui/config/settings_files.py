"""Reading, merging and saving `settings.json` (global, then project), as pi does.

The global file (`paths.settings_path()`) and the project file (`<cwd>/.pi-tui/settings.json`) are each
parsed and validated on their own. A file that is not valid JSON, or whose values have the wrong types,
contributes nothing (its defaults are used) and yields `SettingsDiagnostic`s naming the path, line and
column; it is never written to. An integer outside its bounds is replaced by the nearest bound, with a
diagnostic, and the rest of the file is used (`bounds.clamp_integers`); the file keeps what it says.
The two documents are then merged as pi does: project keys win, and a key holding an object in both
files is merged one level deep (`{...global.x, ...project.x}`).

A project file's code-running keys (`project_trust.CODE_RUNNING_KEYS`: the shell and its prefix, the
default tools) are left out until the user trusts that project with the file's exact bytes;
`LoadedSettings.untrusted` then names them, and so does a diagnostic. Its `approval` can only raise the
user's mode (`approval_mode.stricter`), trusted or not.

Saving writes only the global file, atomically (temporary file + `os.replace`), on top of what is on disk,
so unknown keys survive; it refuses when the file on disk does not parse.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from pi_tui.config.approval_mode import APPROVAL_BY_PROJECT_KEY, approval_mode, stricter
from pi_tui.config.bounds import Clamped, clamp_integers
from pi_tui.config.json_locations import locate, value_offsets
from pi_tui.config.paths import ensure_private_dir, project_config_dir, settings_path
from pi_tui.config.project_trust import (
    UntrustedProject,
    guarded_keys,
    is_trusted,
    project_key,
    settings_digest,
)
from pi_tui.config.regular_files import read_bounded
from pi_tui.config.settings import Settings

SETTINGS_FILE_NAME = "settings.json"
SETTINGS_FILE_LIMIT = 4 << 20
"""A settings file is a few hundred bytes; one past 4 MiB (or a device, a named pipe) is reported, not
read without end."""

Scope = Literal["global", "project"]


@dataclass(frozen=True)
class SettingsDiagnostic:
    """Why a settings file was ignored (or not saved), or, when `clamped`, which value was replaced by
    its bound (the rest of the file is used). `line`/`column` are 1-based; `key` is dotted."""

    path: Path
    message: str
    line: int | None = None
    column: int | None = None
    key: str | None = None
    clamped: bool = False
    untrusted: bool = False
    """Some keys were left out because the project is not trusted; the rest of the file is used."""

    def __str__(self) -> str:
        where = str(self.path) + (f":{self.line}:{self.column}" if self.line is not None else "")
        subject = f"{self.key}: " if self.key else ""
        return f"{where}: {subject}{self.message}"


@dataclass
class SettingsFile:
    """One file as read: its raw document (empty when missing or broken), the document that takes effect
    (out-of-range integers clamped) and what was wrong with it."""

    path: Path
    scope: Scope
    exists: bool = False
    raw: dict[str, Any] = field(default_factory=dict)
    effective: dict[str, Any] = field(default_factory=dict)
    diagnostics: list[SettingsDiagnostic] = field(default_factory=list)
    digest: str | None = None
    """SHA-256 of the file's bytes as read (what a trust is recorded for)."""

    @property
    def ok(self) -> bool:
        """True when the file is used (a clamped value or an untrusted key is reported but does not
        discard the file)."""
        return all(diagnostic.clamped or diagnostic.untrusted for diagnostic in self.diagnostics)


def project_settings_path(cwd: str | os.PathLike[str]) -> Path:
    return project_config_dir(cwd) / SETTINGS_FILE_NAME


def _offsets(text: str) -> dict[tuple[str | int, ...], int]:
    try:
        return value_offsets(text)
    except (ValueError, IndexError, RecursionError):
        return {}


def _type_errors(path: Path, text: str, error: ValidationError) -> list[SettingsDiagnostic]:
    offsets = _offsets(text)
    diagnostics = []
    for issue in error.errors():
        loc = tuple(issue["loc"])
        line, column = locate(text, offsets, loc) if offsets else (1, 1)
        key = ".".join(str(part) for part in loc) or None
        diagnostics.append(SettingsDiagnostic(path, issue["msg"], line, column, key))
    return diagnostics


def _clamp_notes(path: Path, text: str, clamped: list[Clamped]) -> list[SettingsDiagnostic]:
    """One diagnostic per clamped value, in the file's order."""
    offsets = _offsets(text) if clamped else {}
    placed = [(locate(text, offsets, change.path) if offsets else (1, 1), change) for change in clamped]
    return [
        SettingsDiagnostic(path, change.message, line, column, change.key, clamped=True)
        for (line, column), change in sorted(placed, key=lambda pair: pair[0])
    ]


def read_settings_file(path: Path, scope: Scope) -> SettingsFile:
    """Parse and validate one file; never raises. A missing file is empty and fine."""
    result = SettingsFile(path=path, scope=scope)
    try:
        data = read_bounded(path, SETTINGS_FILE_LIMIT)
        text = data.decode("utf-8")
    except FileNotFoundError:
        return result
    except (OSError, UnicodeDecodeError) as error:
        result.exists = True
        result.diagnostics.append(SettingsDiagnostic(path, f"cannot read settings file: {error}"))
        return result
    result.exists = True
    result.digest = settings_digest(data)
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as error:
        result.diagnostics.append(
            SettingsDiagnostic(path, f"invalid JSON: {error.msg}", error.lineno, error.colno)
        )
        return result
    except (ValueError, RecursionError) as error:  # an integer of 4300+ digits, nesting too deep
        result.diagnostics.append(SettingsDiagnostic(path, f"invalid JSON: {error}"))
        return result
    if not isinstance(raw, dict):
        result.diagnostics.append(SettingsDiagnostic(path, "settings must be a JSON object", 1, 1))
        return result
    effective, clamped = clamp_integers(raw, Settings)
    try:
        Settings.model_validate(effective)
    except ValidationError as error:
        result.diagnostics.extend(_type_errors(path, text, error))
        return result
    result.raw, result.effective = raw, effective
    result.diagnostics.extend(_clamp_notes(path, text, clamped))
    return result


def merge_settings(base: Mapping[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """pi's merge: `overrides` wins; objects present in both are merged one level (not recursively).
    A `defaultTools` list of only `+name` / `-name` entries changes the base's list instead (pi 1.6)."""
    merged = dict(base)
    for key, value in overrides.items():
        current = merged.get(key)
        if isinstance(current, dict) and isinstance(value, dict):
            merged[key] = {**current, **value}
        elif key == "defaultTools" and isinstance(current, list) and only_tool_modifiers(value):
            merged[key] = [*current, *value]
        else:
            merged[key] = value
    return merged


def only_tool_modifiers(value: Any) -> bool:
    """A tool list that changes a selection (`+name`, `-name`) rather than naming one."""
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(item, str) and item[:1] in ("+", "-") for item in value)
    )


def _update_document(document: dict[str, Any], changes: Mapping[str, Any]) -> dict[str, Any]:
    """`changes` applied recursively, so `{"compaction": {"enabled": False}}` touches one key only."""
    updated = dict(document)
    for key, value in changes.items():
        current = updated.get(key)
        if isinstance(current, dict) and isinstance(value, Mapping):
            updated[key] = _update_document(current, value)
        else:
            updated[key] = value
    return updated


def write_json_atomically(path: Path, document: Mapping[str, Any]) -> None:
    """Write `document` as pretty JSON (2-space indent, like pi) via a temporary file and `os.replace`."""
    ensure_private_dir(path.parent)
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    handle, temp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temp_name, path)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise


def save_global_settings(changes: Mapping[str, Any], path: Path | None = None) -> list[SettingsDiagnostic]:
    """Apply `changes` (camelCase keys, nested objects merged) to the global file on disk.

    Returns diagnostics and writes nothing when the file on disk is broken (it would be lost) or when the
    result would not be valid settings. Unknown keys already in the file are kept.
    """
    target = path or settings_path()
    current = read_settings_file(target, "global")
    if not current.ok:
        refusal = SettingsDiagnostic(target, "not saved: the settings file on disk is invalid; fix it first")
        return [*current.diagnostics, refusal]
    document = _update_document(current.raw, changes)
    try:
        Settings.model_validate(clamp_integers(document, Settings)[0])
    except ValidationError as error:
        text = json.dumps(document, indent=2)
        return _type_errors(target, text, error)
    try:
        write_json_atomically(target, document)
    except OSError as error:
        return [SettingsDiagnostic(target, f"cannot write settings file: {error}")]
    return []


@dataclass
class LoadedSettings:
    """The effective settings for a cwd, the files they came from, and every problem found."""

    settings: Settings
    files: list[SettingsFile]
    merged: dict[str, Any]
    untrusted: UntrustedProject | None = None
    """The project's code-running keys that were left out, when there were any."""

    @property
    def diagnostics(self) -> list[SettingsDiagnostic]:
        return [diagnostic for file in self.files for diagnostic in file.diagnostics]


def load_settings(
    cwd: str | os.PathLike[str], global_path: Path | None = None, trust_home: Path | None = None
) -> LoadedSettings:
    """Global then project settings for `cwd`, merged; never raises (broken files → diagnostics).
    `trust_home`: the folder holding `trusted-projects.json` (default: pi-tui's home)."""

    files = [
        read_settings_file(global_path or settings_path(), "global"),
        read_settings_file(project_settings_path(cwd), "project"),
    ]
    untrusted = _drop_untrusted_keys(files[1], Path(cwd), trust_home)
    merged = merge_settings(files[0].effective, files[1].effective)
    merged.update(_approval_keys(files[0].effective, files[1].effective, Path(cwd)))
    try:
        settings = Settings.model_validate(merged)
    except ValidationError:
        # Each file validated alone; a one-level merge of two valid documents stays valid. Guard anyway.
        settings = Settings()
    return LoadedSettings(settings=settings, files=files, merged=merged, untrusted=untrusted)


def _approval_keys(user: Mapping[str, Any], project: Mapping[str, Any], cwd: Path) -> dict[str, Any]:
    """The approval mode that applies in `cwd`: the user's (the one kept for this project, else the
    user's `approval`), raised to the project file's when that asks more; a project never lowers it
    and never keeps a choice for the user (`approvalByProject` is read from the user's file only)."""
    kept = user.get(APPROVAL_BY_PROJECT_KEY, {})
    user_mode = approval_mode(kept.get(project_key(cwd), user.get("approval")))
    mode = stricter(user_mode, approval_mode(project.get("approval")))
    if mode == "off" and "approval" not in user and "approval" not in project and not kept:
        return {}  # nothing set: the settings' own default stands
    return {"approval": mode, APPROVAL_BY_PROJECT_KEY: kept}


def _drop_untrusted_keys(
    project: SettingsFile, cwd: Path, trust_home: Path | None
) -> UntrustedProject | None:
    """Take the code-running keys out of the project file's effective document unless the user trusts
    the project with exactly these bytes; what was taken out, with a diagnostic naming it."""
    keys = guarded_keys(project.effective)
    if not keys or project.digest is None or is_trusted(cwd, project.digest, trust_home):
        return None
    untrusted = UntrustedProject(
        project_dir=cwd,
        settings_path=project.path,
        keys=tuple(keys),
        digest=project.digest,
        values=tuple((key, project.effective[key]) for key in keys),
        trust_home=trust_home,
    )

    project.effective = {key: value for key, value in project.effective.items() if key not in keys}
    project.diagnostics.append(SettingsDiagnostic(project.path, untrusted.reason(), untrusted=True))
    return untrusted
