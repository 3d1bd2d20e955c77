"""A chat app on a real session file, driven by the scripted provider (no network, deterministic) or by
the real OpenAI client against the loopback server."""

from __future__ import annotations

import datetime
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pi_tui.ai.scripted import ScriptedProvider, ScriptedReply
from pi_tui.config.model_config import ModelConfig
from pi_tui.config.settings import Settings
from pi_tui.context import resources
from pi_tui.context.resources import load_resources
from pi_tui.session.agent_session import AgentSession
from pi_tui.session.runtime import AgentSessionRuntime, RuntimeOptions
from pi_tui.session.services import AgentSessionServices
from pi_tui.session_file.store import SessionStore
from pi_tui.tui.app import PiTuiApp
from tests.support.openai_server import OpenAIServer

from .conftest import PROJECT

MODEL = ModelConfig(id="scripted-model", provider="scripted", context_window=32_000, reasoning=True)


def fix_prompt_place_and_day(monkeypatch: pytest.MonkeyPatch) -> None:
    """The system prompt names the README of the checkout, the project folder and the day; each varies by
    clone, by run (pytest numbers its temporary folders) and by date, and so would every figure that
    counts the prompt (the prefix, and the calibration against what the model reported)."""
    monkeypatch.setattr(resources, "package_readme_path", lambda: Path("/opt/pi-tui/README.md"))
    build = resources.build_system_prompt

    def fixed_place_and_day(**fields: Any) -> Any:
        return build(**{**fields, "cwd": PROJECT, "date": datetime.date(2026, 1, 15)})

    monkeypatch.setattr(resources, "build_system_prompt", fixed_place_and_day)


def make_chat_app(
    tmp_path: Path,
    replies: list[ScriptedReply],
    *,
    settings: Settings | None = None,
    store: SessionStore | None = None,
) -> tuple[PiTuiApp, AgentSession, ScriptedProvider]:
    """The chat on `store` (default: a new session of `tmp_path/project`)."""
    provider = ScriptedProvider(replies)
    options = RuntimeOptions(
        model=MODEL,
        api_key="unused",
        thinking_level="medium",
        stream_fn=provider,
        services_factory=_services(tmp_path, settings or Settings()),
    )
    app, runtime = _chat_app(tmp_path, options, store)
    return app, runtime.session, provider


def make_loopback_chat_app(
    server: OpenAIServer, tmp_path: Path, *, settings: Settings | None = None
) -> tuple[PiTuiApp, AgentSessionRuntime]:
    """The chat on the real OpenAI client, talking to `server`."""
    model = ModelConfig(id="m", provider="local", base_url=server.base_url, context_window=32_000)
    options = RuntimeOptions(
        model=model, api_key="loopback-key", services_factory=_services(tmp_path, settings or Settings())
    )
    return _chat_app(tmp_path, options)


def _services(tmp_path: Path, settings: Settings) -> Callable[[Path], AgentSessionServices]:
    def services(cwd: Path) -> AgentSessionServices:
        resources = load_resources(cwd, settings=settings, home=tmp_path, include_builtin=False)
        return AgentSessionServices(cwd=cwd, resources=resources)

    return services


def _chat_app(
    tmp_path: Path, options: RuntimeOptions, store: SessionStore | None = None
) -> tuple[PiTuiApp, AgentSessionRuntime]:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    runtime = AgentSessionRuntime(store or SessionStore.create(str(project), tmp_path / "sessions"), options)
    app = PiTuiApp(
        cwd=project,
        session_root=tmp_path / "sessions",
        pi_session_root=tmp_path / "pi",
        setup_notice="",
        runtime=runtime,
    )
    return app, runtime


def chat_on_pi_session(tmp_path: Path, pi_fixtures: Path, name: str) -> PiTuiApp:
    """A chat on a copy of one of the pi sessions in the fixtures (`pi-sessions/<name>`)."""
    copy = tmp_path / "sessions" / name
    copy.parent.mkdir(exist_ok=True)
    shutil.copy(pi_fixtures / "pi-sessions" / name, copy)
    app, _, _ = make_chat_app(tmp_path, [], store=SessionStore.open(copy))
    return app
