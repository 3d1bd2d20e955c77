"""The start page's setup notice: the help text once, then only the problems that add to it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_tui.config.paths import models_path
from pi_tui.config.setup_status import describe_model_setup
from pi_tui.session.factory import ModelChoice, create_runtime
from pi_tui.session.store_opening import SessionChoice
from pi_tui.tui.launch import setup_notice


def _notice(cwd: Path, env: dict[str, str]) -> str:
    setup = create_runtime(str(cwd), model=ModelChoice(), choice=SessionChoice(session_dir=str(cwd / "s")))
    return setup_notice(describe_model_setup(env), setup)


def test_without_any_model_the_help_is_not_followed_by_the_same_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    notice = _notice(tmp_path, {})
    assert notice.startswith("No model configured.")
    assert "Press d to watch the offline demo." in notice
    assert "no model configured" not in notice
    assert len(notice.splitlines()) == 1


def test_an_empty_models_file_is_explained(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    path = models_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"providers": {"local": {"baseUrl": "http://127.0.0.1:9/v1", "models": []}}}))
    lines = _notice(tmp_path, {}).splitlines()
    assert lines[0] == f"Models from {path}."
    assert any("no model configured" in line for line in lines[1:])
