"""Integer settings and models.json token counts within bounds: out-of-range values are clamped to the
bound with a diagnostic that names the file, the key and its place; non-integers are reported, never
coerced; the reserve for the reply is held to half the model's window where the budget is computed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from pi_tui.config.bounds import reserve_note, reserve_notes, reserve_within_window
from pi_tui.config.models import MAX_MODEL_TOKENS, ModelEntry, load_registry
from pi_tui.config.paths import settings_path
from pi_tui.config.settings import (
    MAX_TOKEN_SETTING,
    MAX_TOOL_BYTES,
    CompactionSettings,
    Settings,
)
from pi_tui.config.settings_files import load_settings, read_settings_file, save_global_settings
from pi_tui.context.compaction.token_estimate import should_compact

HOSTILE = """{
  "theme": "dark",
  "tools": {"maxBytes": 100000000000, "maxLines": 0},
  "compaction": {"reserveTokens": -5, "keepRecentTokens": 1000000000000000000000000000000},
  "retry": {"maxRetries": 3, "provider": {"timeoutMs": 99999999999}}
}
"""


def test_out_of_range_integers_are_clamped_and_reported_with_their_place(tmp_path: Path) -> None:
    path = settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HOSTILE)

    loaded = load_settings(tmp_path)

    assert [str(diagnostic) for diagnostic in loaded.diagnostics] == [
        f"{path}:3:25: tools.maxBytes: 100000000000 is above the largest value allowed, 1,048,576:"
        " 1,048,576 is used",
        f"{path}:3:51: tools.maxLines: 0 is below the smallest value allowed, 1: 1 is used",
        f"{path}:4:35: compaction.reserveTokens: -5 is below the smallest value allowed, 0: 0 is used",
        f"{path}:4:59: compaction.keepRecentTokens: 1000000000000000… (31 digits) is above the largest"
        " value allowed, 2,000,000: 2,000,000 is used",
        f"{path}:5:56: retry.provider.timeoutMs: 99999999999 is above the largest value allowed,"
        " 3,600,000: 3,600,000 is used",
    ]
    settings = loaded.settings
    assert (settings.tools.max_bytes, settings.tools.max_lines) == (MAX_TOOL_BYTES, 1)
    assert (settings.compaction.reserve_tokens, settings.compaction.keep_recent_tokens) == (
        0,
        MAX_TOKEN_SETTING,
    )
    assert settings.retry.provider.timeout_ms == 3_600_000
    assert settings.theme == "dark"  # the rest of the file is used
    assert read_settings_file(path, "global").ok
    assert path.read_text() == HOSTILE


@pytest.mark.parametrize("value", ["1e11", "100000000000.0", '"12"', "true"])
def test_a_non_integer_where_an_integer_belongs_is_reported_not_coerced(tmp_path: Path, value: str) -> None:
    path = settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{\n  "theme": "dark",\n  "tools": {"maxBytes": ' + value + "}\n}\n")

    loaded = load_settings(tmp_path)

    [diagnostic] = loaded.diagnostics
    assert (diagnostic.key, diagnostic.line, diagnostic.column, diagnostic.clamped) == (
        "tools.maxBytes",
        3,
        25,
        False,
    )
    assert "valid integer" in diagnostic.message
    assert loaded.settings.tools.max_bytes == 51200
    assert loaded.settings.theme is None  # as for any wrong type: the file contributes nothing


def test_saving_keeps_an_out_of_range_value_as_the_user_wrote_it() -> None:
    path = settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"tools": {"maxBytes": 100000000000}}))

    assert save_global_settings({"theme": "light"}) == []

    assert json.loads(path.read_text()) == {"tools": {"maxBytes": 100000000000}, "theme": "light"}


def _integer_fields(model: type[BaseModel], prefix: str = "") -> list[tuple[str, Any]]:
    found = []
    for name, info in model.model_fields.items():
        annotation = info.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            found += _integer_fields(annotation, f"{prefix}{name}.")
        elif annotation in (int, int | None):
            found.append((prefix + name, info))
    return found


def test_every_integer_setting_has_both_bounds() -> None:
    fields = _integer_fields(Settings) + _integer_fields(ModelEntry)
    assert len(fields) == 12
    for name, info in fields:
        rules = {type(rule).__name__ for rule in info.metadata}
        assert rules & {"Ge", "Gt"} and rules & {"Le", "Lt"}, name


def test_models_json_token_counts_out_of_range_are_clamped_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "models.json"
    path.write_text(
        '{"providers": {"p": {"baseUrl": "http://127.0.0.1:9/v1", "models": [\n'
        '  {"id": "m", "contextWindow": 100000000000, "maxTokens": 0}]}}}\n'
    )

    registry = load_registry(path)

    assert [str(diagnostic) for diagnostic in registry.diagnostics] == [
        f"{path}:2:32: warning: providers.p.models.0.contextWindow: 100000000000 is above the largest"
        " value allowed, 10,000,000: 10,000,000 is used",
        f"{path}:2:59: warning: providers.p.models.0.maxTokens: 0 is below the smallest value allowed, 1:"
        " 1 is used",
    ]
    [model] = registry.models
    assert (model.context_window, model.max_tokens) == (MAX_MODEL_TOKENS, 1)


@pytest.mark.parametrize("value", ['"131072"', "131072.0", "1e5", "true"])
def test_models_json_token_counts_must_be_integers(tmp_path: Path, value: str) -> None:
    path = tmp_path / "models.json"
    path.write_text(
        '{"providers": {"p": {"baseUrl": "http://127.0.0.1:9/v1", "models": [\n'
        '  {"id": "m", "contextWindow": ' + value + "}]}}}\n"
    )

    registry = load_registry(path)

    [diagnostic] = registry.diagnostics
    assert diagnostic.severity == "error"
    assert diagnostic.message == "providers.p.models.0.contextWindow: Input should be a valid integer"
    assert (diagnostic.line, diagnostic.column) == (2, 32)
    assert registry.models == []


def test_the_reserve_is_at_most_half_the_window() -> None:
    assert reserve_within_window(16_384, 128_000) == 16_384
    assert reserve_within_window(16_384, 8_192) == 4_096
    assert reserve_within_window(200_000, 128_000) == 64_000
    assert reserve_within_window(16_384, 0) == 16_384  # an unknown window bounds nothing
    assert (
        reserve_note("compaction.reserveTokens", CompactionSettings(reserve_tokens=16_384), 128_000) is None
    )
    assert reserve_note(
        "compaction.reserveTokens", CompactionSettings(reserve_tokens=200_000), 128_000, "p/m"
    ) == (
        "compaction.reserveTokens 200,000 is more than half of p/m's window (128,000 tokens):"
        " 64,000 is reserved"
    )
    assert reserve_notes(Settings(), 8_192, "p/m") == []  # the default shrinks without a word
    settings = Settings.model_validate(
        {"compaction": {"reserveTokens": 5000}, "branchSummary": {"reserveTokens": 9000}}
    )
    assert reserve_notes(settings, 8_192, "p/m") == [
        "compaction.reserveTokens 5,000 is more than half of p/m's window (8,192 tokens): 4,096 is reserved",
        "branchSummary.reserveTokens 9,000 is more than half of p/m's window (8,192 tokens):"
        " 4,096 is reserved",
    ]


def test_a_reserve_as_large_as_the_window_no_longer_compacts_every_request() -> None:
    """reserveTokens 128,000 of a 128,000 window put the threshold at 0: any context compacted."""
    settings = CompactionSettings(reserve_tokens=128_000)
    assert not should_compact(1_000, 128_000, settings)
    assert should_compact(64_001, 128_000, settings)
