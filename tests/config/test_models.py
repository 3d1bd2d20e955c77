"""The model registry: pi's models.json, zero-config, overrides, diagnostics, masked keys."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pi_tui.config.models import ModelRegistry, ModelsDiagnostic, load_registry, mask_key, resolve_model
from pi_tui.config.paths import models_path

PI_MODELS: dict[str, Any] = {
    "providers": {
        "ollama": {
            "baseUrl": "http://localhost:11434/v1",
            "apiKey": "ollama",
            "api": "openai-completions",
            "models": [
                {
                    "id": "qwen3:8b",
                    "name": "Qwen 3 8B",
                    "contextWindow": 40960,
                    "maxTokens": 8192,
                    "reasoning": True,
                    "input": ["text"],
                    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
                }
            ],
        },
        "openrouter": {
            "baseUrl": "https://openrouter.ai/api/v1",
            "apiKey": "MY_OPENROUTER_KEY",
            "api": "openai-completions",
            "headers": {"X-Title": "pi-tui"},
            "models": [
                {
                    "id": "anthropic/claude-sonnet-4",
                    "contextWindow": 200000,
                    "input": ["text", "image"],
                    "cost": {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75},
                },
                {"id": "google/gemini", "api": "google-generative-ai"},
            ],
        },
        "anthropic": {
            "baseUrl": "https://api.anthropic.com",
            "api": "anthropic-messages",
            "models": [{"id": "c"}],
        },
    }
}


def write(path: Path, content: str | dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content if isinstance(content, str) else json.dumps(content, indent=2))
    return path


def test_pi_models_json_is_read_with_all_fields(tmp_path: Path) -> None:
    registry = load_registry(write(tmp_path / "models.json", PI_MODELS))
    assert [model.ref for model in registry.models] == [
        "ollama/qwen3:8b",
        "openrouter/anthropic/claude-sonnet-4",
        "anthropic/c",
    ]
    assert registry.models[2].api == "anthropic-messages"
    qwen = registry.models[0]
    assert (qwen.name, qwen.context_window, qwen.max_tokens, qwen.reasoning) == (
        "Qwen 3 8B",
        40960,
        8192,
        True,
    )
    sonnet = registry.models[1]
    assert sonnet.name == "anthropic/claude-sonnet-4"
    assert sonnet.input == ["text", "image"]
    assert sonnet.cost.cache_write == 3.75
    assert sonnet.headers == {"X-Title": "pi-tui"}
    assert [d.severity for d in registry.diagnostics] == ["warning"]
    assert "google-generative-ai" in registry.diagnostics[0].message


def test_resolve_by_provider_ref_and_bare_id_with_env_key(tmp_path: Path) -> None:
    registry = load_registry(write(tmp_path / "models.json", PI_MODELS))
    env = {"MY_OPENROUTER_KEY": "sk-or-secret-value"}
    by_ref = resolve_model("openrouter/anthropic/claude-sonnet-4", registry=registry, env=env)
    assert by_ref.model is not None and by_ref.model.provider == "openrouter"
    assert by_ref.api_key == "sk-or-secret-value"
    assert by_ref.source == "models.json"
    bare = resolve_model("anthropic/claude-sonnet-4", registry=registry, env=env)
    assert bare.model is not None and bare.model.ref == by_ref.model.ref
    literal = resolve_model("qwen3:8b", registry=registry, env=env)
    assert literal.api_key == "ollama"  # no env var of that name: the literal key


def test_first_model_is_the_default_and_overrides_apply(tmp_path: Path) -> None:
    registry = load_registry(write(tmp_path / "models.json", PI_MODELS))
    resolved = resolve_model(None, "http://127.0.0.1:9999/v1", "sk-override", registry=registry, env={})
    assert resolved.model is not None and resolved.model.id == "qwen3:8b"
    assert resolved.model.base_url == "http://127.0.0.1:9999/v1"
    assert resolved.api_key == "sk-override"
    assert registry.models[0].base_url == "http://localhost:11434/v1"  # the registry is not modified


def test_unlisted_id_of_a_known_provider_uses_its_endpoint(tmp_path: Path) -> None:
    registry = load_registry(write(tmp_path / "models.json", PI_MODELS))
    resolved = resolve_model("openrouter/new/model", registry=registry, env={"MY_OPENROUTER_KEY": "k"})
    assert resolved.model is not None
    assert (resolved.model.provider, resolved.model.id) == ("openrouter", "new/model")
    assert resolved.model.base_url == "https://openrouter.ai/api/v1"
    assert resolved.model.headers == {"X-Title": "pi-tui"}
    assert resolved.api_key == "k"
    assert resolved.model.context_window == 128000
    assert any("context window assumed 128000" in d.message for d in resolved.diagnostics)


def test_zero_config_from_environment() -> None:
    env = {"OPENAI_API_KEY": "sk-env-key-123456", "OPENAI_BASE_URL": "http://localhost:8000/v1"}
    resolved = resolve_model("my-local-model", env=env)  # no models.json under the private home
    assert resolved.source == "zero-config"
    assert resolved.model is not None
    assert (resolved.model.provider, resolved.model.id, resolved.model.base_url) == (
        "openai", "my-local-model", "http://localhost:8000/v1",
    )  # fmt: skip
    assert resolved.model.context_window == 128000
    assert resolved.api_key == "sk-env-key-123456"
    assert [d.severity for d in resolved.diagnostics] == ["warning"]
    default_url = resolve_model("gpt-4o", env={})
    assert default_url.model is not None and default_url.model.base_url == "https://api.openai.com/v1"
    assert default_url.api_key is None


def test_no_model_at_all_is_an_error_diagnostic() -> None:
    resolved = resolve_model(None, env={})
    assert resolved.model is None
    assert resolved.diagnostics[-1].severity == "error"


def test_default_path_is_under_pi_tui_home() -> None:
    write(models_path(), PI_MODELS)
    assert resolve_model("qwen3:8b", env={}).source == "models.json"


def test_syntax_error_reports_line_and_column_and_file_is_untouched(tmp_path: Path) -> None:
    text = '{\n  "providers": {\n    "x": {"baseUrl": "u",}\n  }\n}\n'
    path = write(tmp_path / "models.json", text)
    registry = load_registry(path)
    assert registry.models == []
    [diagnostic] = registry.diagnostics
    assert (diagnostic.severity, diagnostic.path, diagnostic.line, diagnostic.column) == (
        "error",
        path,
        3,
        26,
    )
    assert str(diagnostic).startswith(f"{path}:3:26: error: invalid JSON")
    assert path.read_text() == text
    resolved = resolve_model("some-model", registry=registry, env={})
    assert resolved.source == "zero-config"
    assert diagnostic in resolved.diagnostics


def test_validation_errors_point_at_the_value(tmp_path: Path) -> None:
    text = (
        '{\n  "providers": {\n    "p": {\n      "baseUrl": "u",\n'
        '      "models": [{"id": "m", "contextWindow": "big"}]\n    }\n  }\n}\n'
    )
    path = write(tmp_path / "models.json", text)
    [diagnostic] = load_registry(path).diagnostics
    assert diagnostic.message.startswith("providers.p.models.0.contextWindow:")
    assert (diagnostic.line, diagnostic.column) == (5, 47)


def test_provider_without_base_url_is_skipped_with_an_error(tmp_path: Path) -> None:
    path = write(tmp_path / "models.json", {"providers": {"p": {"models": [{"id": "m"}]}}, "openai": {}})
    registry = load_registry(path)
    assert registry.models == []
    assert registry.diagnostics == [
        ModelsDiagnostic("error", 'provider "p": baseUrl is required; skipped', path)
    ]


def test_unreadable_and_missing_files_never_raise(tmp_path: Path) -> None:
    assert load_registry(tmp_path / "absent.json").diagnostics == []
    folder = tmp_path / "models.json"
    folder.mkdir()
    [diagnostic] = load_registry(folder).diagnostics
    assert "cannot read" in diagnostic.message


def test_keys_never_appear_in_reprs(tmp_path: Path) -> None:
    registry = load_registry(write(tmp_path / "models.json", PI_MODELS))
    resolved = resolve_model("qwen3:8b", api_key="sk-very-secret-key-9876", registry=registry, env={})
    assert "sk-very-secret-key-9876" not in repr(resolved)
    assert "9876" in repr(resolved)
    assert "MY_OPENROUTER_KEY" not in repr(registry)
    assert mask_key("sk-very-secret-key-9876") == "…9876"
    assert mask_key("short") == "***"
    assert mask_key(None) == "<none>"


def test_command_api_keys_are_not_run(tmp_path: Path) -> None:
    config = {"providers": {"p": {"baseUrl": "u", "apiKey": "!cat /secret", "models": [{"id": "m"}]}}}
    registry = load_registry(write(tmp_path / "models.json", config))
    resolved = resolve_model("m", registry=registry, env={})
    assert resolved.api_key is None
    assert any("not supported" in d.message for d in registry.diagnostics)


def test_the_responses_api_at_provider_and_model_level(tmp_path: Path) -> None:
    config = {
        "providers": {
            "openai": {
                "baseUrl": "https://api.openai.com/v1",
                "api": "openai-responses",
                "models": [{"id": "gpt-5-mini"}, {"id": "gpt-4o", "api": "openai-completions"}],
            },
            "local": {
                "baseUrl": "http://localhost:8000/v1",
                "models": [{"id": "qwen"}, {"id": "gpt-oss", "api": "openai-responses"}],
            },
        }
    }
    registry = load_registry(write(tmp_path / "models.json", config))
    assert registry.diagnostics == []
    assert [(model.ref, model.api) for model in registry.models] == [
        ("openai/gpt-5-mini", "openai-responses"),
        ("openai/gpt-4o", "openai-completions"),
        ("local/qwen", "openai-completions"),
        ("local/gpt-oss", "openai-responses"),
    ]
    unlisted = resolve_model("openai/gpt-5.1", registry=registry, env={})
    assert unlisted.model is not None and unlisted.model.api == "openai-responses"


def test_other_apis_are_still_refused(tmp_path: Path) -> None:
    config = {
        "providers": {
            "a": {"baseUrl": "u", "api": "bedrock-converse-stream", "models": [{"id": "m"}]},
            "b": {
                "baseUrl": "u",
                "api": "openai-responses",
                "models": [{"id": "m", "api": "google-generative-ai"}],
            },
        }
    }
    registry = load_registry(write(tmp_path / "models.json", config))
    assert registry.models == []
    messages = [diagnostic.message for diagnostic in registry.diagnostics]
    assert "only openai-completions, openai-responses, anthropic-messages" in messages[0]
    assert "google-generative-ai" in messages[1]


def test_an_anthropic_provider_defaults_to_the_messages_api_at_anthropic(tmp_path: Path) -> None:
    config = {"providers": {"anthropic": {"models": [{"id": "claude-sonnet-4-6"}]}}}
    registry = load_registry(write(tmp_path / "models.json", config))
    (model,) = registry.models
    assert (model.api, model.base_url) == ("anthropic-messages", "https://api.anthropic.com")
    assert registry.diagnostics == []


def test_zero_config_anthropic_from_its_key_or_a_gateway_token() -> None:
    empty = ModelRegistry()
    by_key = resolve_model(
        "anthropic/claude-sonnet-4-6", registry=empty, env={"ANTHROPIC_API_KEY": "sk-ant-k"}
    )
    assert by_key.model is not None
    assert (by_key.model.api, by_key.model.base_url) == ("anthropic-messages", "https://api.anthropic.com")
    assert (by_key.api_key, by_key.source) == ("sk-ant-k", "zero-config")
    both = {"ANTHROPIC_API_KEY": "sk-ant-k", "ANTHROPIC_AUTH_TOKEN": "gateway-token"}
    assert resolve_model("anthropic/claude-x", registry=empty, env=both).api_key == "gateway-token"
    bare = resolve_model("claude-opus-4", registry=empty, env={"ANTHROPIC_API_KEY": "sk-ant-k"})
    assert bare.model is not None and bare.model.provider == "anthropic"
    with_openai = resolve_model(
        "claude-opus-4", registry=empty, env={"ANTHROPIC_API_KEY": "k", "OPENAI_API_KEY": "o"}
    )
    assert with_openai.model is not None and with_openai.model.provider == "openai"
