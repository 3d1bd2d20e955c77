"""pi 1.6's Anthropic catalog, for models no models.json entry describes (config/anthropic_catalog.py)."""

from __future__ import annotations

import json

from pi_tui.config.anthropic_catalog import CATALOG, CATALOG_WINDOW
from pi_tui.config.models import ModelRegistry, build_registry, parse_models_file, resolve_model
from pi_tui.config.paths import models_path
from pi_tui.session.session_setup import available_thinking_levels, clamp_thinking

KEY_ENV = {"ANTHROPIC_API_KEY": "sk-ant-test"}


def test_a_catalog_model_comes_with_pis_facts_and_no_unknown_window_warning() -> None:
    resolution = resolve_model("anthropic/claude-sonnet-4-6", registry=ModelRegistry(), env=KEY_ENV)
    model = resolution.model
    assert model is not None and resolution.api_key == "sk-ant-test"
    assert (model.api, model.base_url) == ("anthropic-messages", "https://api.anthropic.com")
    assert (model.context_window, model.max_tokens, model.window_source) == (
        1_000_000,
        128_000,
        CATALOG_WINDOW,
    )
    assert (model.cost.input, model.cost.output, model.cost.cache_read, model.cost.cache_write) == (
        3,
        15,
        0.3,
        3.75,
    )
    assert model.compat.force_adaptive_thinking is True and model.compat.supports_strict_tools is True
    assert model.reasoning and model.input == ["text", "image"]
    assert not resolution.diagnostics
    budget = resolve_model("claude-haiku-4-5", registry=ModelRegistry(), env=KEY_ENV).model
    assert budget is not None and budget.compat.force_adaptive_thinking is None
    assert (budget.context_window, budget.max_tokens) == (200_000, 64_000)


def test_an_unknown_claude_keeps_the_assumed_window_and_says_so() -> None:
    resolution = resolve_model("anthropic/claude-next-9", registry=ModelRegistry(), env=KEY_ENV)
    assert resolution.model is not None and resolution.model.compat.supports_strict_tools is None
    assert [d.severity for d in resolution.diagnostics] == ["warning"]


def test_a_models_json_that_only_moves_the_endpoint_keeps_the_catalog() -> None:
    path = models_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps({"providers": {"anthropic": {"baseUrl": "http://127.0.0.1:9"}}}), encoding="utf-8"
    )
    parsed, _ = parse_models_file(path)
    assert parsed is not None
    model = resolve_model(
        "anthropic/claude-opus-4-7", registry=build_registry(parsed, path), env=KEY_ENV
    ).model
    assert model is not None and model.base_url == "http://127.0.0.1:9"
    assert model.window_source == CATALOG_WINDOW and model.thinking_level_map == {
        "xhigh": "xhigh",
        "max": "max",
    }


def test_levels_a_model_maps_to_null_are_clamped_as_pi_clamps_them() -> None:
    opus55 = resolve_model("anthropic/claude-opus-5-5", registry=ModelRegistry(), env=KEY_ENV).model
    assert opus55 is not None and opus55.thinking_level_map is not None
    assert opus55.thinking_level_map["off"] is None and opus55.thinking_level_map["minimal"] is None
    assert clamp_thinking("off", opus55) == "low"  # it cannot stop thinking: the next level it has
    assert clamp_thinking("minimal", opus55) == "low"
    assert clamp_thinking("high", opus55) == "high"
    assert available_thinking_levels(opus55) == ("low", "medium", "high")
    sonnet = CATALOG["claude-sonnet-4-6"]
    assert sonnet.levels == {"max": "max"}
    model = resolve_model("anthropic/claude-sonnet-4-6", registry=ModelRegistry(), env=KEY_ENV).model
    assert clamp_thinking("off", model) == "off"
