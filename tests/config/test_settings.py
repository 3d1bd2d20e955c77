"""The settings model: pi's key names and defaults, strict types, unknown keys kept."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from pi_tui.config.settings import Settings


def test_defaults_are_pis() -> None:
    document = Settings().to_json_obj()

    assert document["compaction"] == {
        "enabled": True,
        "reserveTokens": 16384,
        "keepRecentTokens": 20000,
        "confirm": False,
        "strategy": "auto",
        "modelOverrides": {},
    }
    assert document["retry"] == {
        "enabled": True,
        "maxRetries": 3,
        "baseDelayMs": 2000,
        "maxDelayMs": 60000,
        "provider": {"timeoutMs": None},
    }
    assert document["tools"] == {"maxLines": 2000, "maxBytes": 51200}
    assert document["branchSummary"] == {"reserveTokens": 16384, "skipPrompt": False}
    assert document["fallbackModels"] == []
    assert document["approval"] is False
    assert document["steeringMode"] == document["followUpMode"] == "one-at-a-time"
    assert document["enableSkillCommands"] is True
    assert document["skills"] == []
    assert document["doubleEscapeAction"] == "tree"
    assert document["defaultModel"] is None


def test_camel_case_keys_are_read() -> None:
    settings = Settings.model_validate(
        {
            "compaction": {"reserveTokens": 1000, "keepRecentTokens": 500},
            "retry": {"maxRetries": 5},
            "fallbackModels": ["openrouter/a", "local/b"],
            "defaultThinkingLevel": "high",
            "shellCommandPrefix": "shopt -s expand_aliases",
            "followUpMode": "all",
        }
    )

    assert settings.compaction.reserve_tokens == 1000
    assert settings.compaction.keep_recent_tokens == 500
    assert settings.compaction.enabled is True
    assert settings.retry.max_retries == 5
    assert settings.fallback_models == ["openrouter/a", "local/b"]
    assert settings.default_thinking_level == "high"
    assert settings.shell_command_prefix == "shopt -s expand_aliases"
    assert settings.follow_up_mode == "all"


def test_unknown_keys_survive_a_round_trip() -> None:
    raw = {"compaction": {"enabled": False, "futureKnob": 3}, "quietStartup": True, "packages": ["x"]}

    document = Settings.model_validate(raw).to_json_obj()

    assert document["quietStartup"] is True
    assert document["packages"] == ["x"]
    assert document["compaction"]["futureKnob"] == 3
    assert document["compaction"]["enabled"] is False


@pytest.mark.parametrize(
    "raw",
    [
        {"retry": {"maxRetries": "3"}},
        {"compaction": {"enabled": "yes"}},
        {"steeringMode": "sometimes"},
        {"fallbackModels": "openai/gpt"},
        {"tools": {"maxBytes": 0}},
    ],
)
def test_wrong_types_are_rejected(raw: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        Settings.model_validate(raw)
