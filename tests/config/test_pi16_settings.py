"""pi 1.6's settings and model fields that touch context: `defaultTools` (with its `+name` / `-name`
rules, project on top of user), `cacheWarming`, `showCacheMissNotices` and models.json `promptCache`,
read and shown in `/session` and `pi-tui context`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_tui.config.models import load_registry
from pi_tui.config.project_trust import trust_project_settings
from pi_tui.config.settings import Settings
from pi_tui.config.settings_files import load_settings
from pi_tui.context.cache_policy import cache_settings_json, cache_settings_line
from pi_tui.tools.registry import default_tool_names


@pytest.mark.parametrize(
    ("setting", "names"),
    [
        (None, ["read", "bash", "edit", "write"]),
        ([], []),
        (["read", "grep"], ["read", "grep"]),
        (["+grep", "-edit"], ["read", "bash", "write", "grep"]),
        (["-bash", "+powershell", "+grep"], ["read", "edit", "write", "powershell", "grep"]),
        (["read", "+find", "-read"], ["find"]),
    ],
)
def test_default_tools_follow_pi_16s_rules(setting: list[str] | None, names: list[str]) -> None:
    assert default_tool_names(setting) == names


def write_json(path: Path, document: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def test_a_project_list_of_changes_applies_on_top_of_the_users_selection(tmp_path: Path) -> None:
    user = write_json(tmp_path / "home" / "settings.json", {"defaultTools": ["read", "bash"]})
    project = tmp_path / "project"
    write_json(project / ".pi-tui" / "settings.json", {"defaultTools": ["+grep"]})
    # A project's tool choice is one of the keys that decide what runs: untrusted, it is left out.
    assert load_settings(project, global_path=user).settings.default_tools == ["read", "bash"]
    assert trust_project_settings(project)
    loaded = load_settings(project, global_path=user)
    assert default_tool_names(loaded.settings.default_tools) == ["read", "bash", "grep"]

    write_json(project / ".pi-tui" / "settings.json", {"defaultTools": ["find"]})  # a plain name replaces
    assert trust_project_settings(project)
    loaded = load_settings(project, global_path=user)
    assert default_tool_names(loaded.settings.default_tools) == ["find"]


def test_cache_settings_are_read_with_pi_16s_names_and_defaults(tmp_path: Path) -> None:
    assert (Settings().cache_warming, Settings().show_cache_miss_notices) == ("idle", False)
    user = write_json(tmp_path / "settings.json", {"cacheWarming": "off", "showCacheMissNotices": True})
    loaded = load_settings(tmp_path / "project", global_path=user)
    assert (loaded.settings.cache_warming, loaded.settings.show_cache_miss_notices) == ("off", True)
    assert loaded.diagnostics == []

    bad = write_json(tmp_path / "bad.json", {"cacheWarming": "always"})
    loaded = load_settings(tmp_path / "project", global_path=bad)
    assert loaded.settings.cache_warming == "idle"
    assert any("cacheWarming" in str(problem) for problem in loaded.diagnostics)


def test_a_models_prompt_cache_lifetimes_are_read_and_shown(tmp_path: Path) -> None:
    models = {
        "providers": {
            "local": {
                "baseUrl": "http://127.0.0.1:9/v1",
                "models": [
                    {"id": "cached", "promptCache": {"short": 300, "long": 3600}},
                    {"id": "plain"},
                ],
            }
        }
    }
    registry = load_registry(write_json(tmp_path / "models.json", models))
    cached, plain = registry.models
    assert cached.prompt_cache is not None and (cached.prompt_cache.short, cached.prompt_cache.long) == (
        300,
        3600,
    )
    assert plain.prompt_cache is None

    line = cache_settings_line(Settings(), cached)
    assert line == "warming idle · miss notices off · cache lives short 5 min, long 1 h"
    assert "cache lifetime not declared" in cache_settings_line(Settings(cache_warming="off"), plain)
    assert cache_settings_json(Settings(), cached) == {
        "cacheWarming": "idle",
        "warmingSent": True,
        "showCacheMissNotices": False,
        "promptCache": {"short": 300, "long": 3600},
        "effectivePromptCache": {"short": 300, "long": 3600},
        "lifetimeSource": "models.json",
    }
