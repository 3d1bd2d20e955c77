"""The window a server really serves replaces the assumed 128,000 for a model nobody described."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_tui.ai.served_window import ServedWindow, output_cap, probe_served_window, window_from_models
from pi_tui.config.model_config import DEFAULT_CONTEXT_WINDOW, WINDOW_ASSUMED
from pi_tui.config.models import resolve_model
from pi_tui.context.resources import load_resources
from pi_tui.session.agent_session import AgentSession, SessionConfig
from pi_tui.session_file.store import SessionStore
from tests.support.openai_server import OpenAIServer, text_reply

LLAMA_MODELS = {"data": [{"id": "m", "meta": {"n_ctx_train": 131072, "n_ctx": 65536}}]}
VLLM_MODELS = {"data": [{"id": "m", "max_model_len": 32768}]}


def test_the_served_size_not_the_training_size() -> None:
    assert window_from_models(LLAMA_MODELS, "m") == ServedWindow(65536, "server /v1/models meta.n_ctx")
    assert window_from_models(VLLM_MODELS, "m") == ServedWindow(32768, "server /v1/models max_model_len")
    trained_only = {"data": [{"id": "m", "meta": {"n_ctx_train": 131072}}]}
    assert window_from_models(trained_only, "m") is None
    other_names = {"data": [{"id": "a", "max_model_len": 1}, {"id": "b", "max_model_len": 2}]}
    assert window_from_models(other_names, "m") is None
    assert window_from_models({"data": [{"id": "served-name", "max_model_len": 4096}]}, "m") == ServedWindow(
        4096, "server /v1/models max_model_len"
    )
    assert window_from_models({"data": "nonsense"}, "m") is None


def test_the_output_cap_leaves_room_for_the_prompt() -> None:
    assert output_cap(32_000, 8192) == 2048
    assert output_cap(1000, 200_000) == 1000
    assert output_cap(32_000, 512) == 256


async def test_llama_cpp_props_when_the_model_list_does_not_say(openai_server: OpenAIServer) -> None:
    openai_server.get_routes["/v1/models"] = {"data": [{"id": "m", "meta": {"n_ctx_train": 131072}}]}
    openai_server.get_routes["/props"] = {"default_generation_settings": {"n_ctx": 4096}}
    found = await probe_served_window(openai_server.base_url, "m", "sk-x")
    assert found == ServedWindow(4096, "server /props n_ctx")
    assert openai_server.get_requests == ["/v1/models", "/props"]


async def test_a_server_that_says_nothing_leaves_the_assumption(openai_server: OpenAIServer) -> None:
    assert await probe_served_window(openai_server.base_url, "m", None) is None
    assert await probe_served_window("http://127.0.0.1:9/v1", "m", None, timeout_s=1) is None


async def test_a_zero_config_session_asks_once_and_says_where_the_window_came_from(
    openai_server: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    openai_server.get_routes["/v1/models"] = LLAMA_MODELS
    openai_server.enqueue(text_reply("one"), text_reply("two"))
    resolution = resolve_model("m", openai_server.base_url, "sk-x", env={})
    assert resolution.model is not None and resolution.model.window_source == WINDOW_ASSUMED
    assert resolution.model.context_window == DEFAULT_CONTEXT_WINDOW
    session = AgentSession(
        SessionConfig(
            store=SessionStore.in_memory(str(tmp_path)),
            resources=load_resources(tmp_path),
            model=resolution.model,
            api_key="sk-x",
        )
    )
    await session.prompt("first")
    await session.prompt("second")
    assert openai_server.get_requests == ["/v1/models"]
    assert [request.body["max_completion_tokens"] for request in openai_server.requests] == [16384, 16384]
    usage = session.session_stats().to_json()["contextUsage"]
    assert usage["contextWindow"] == 65536
    assert usage["windowSource"] == "server /v1/models meta.n_ctx"
