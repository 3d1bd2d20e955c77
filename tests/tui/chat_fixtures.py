"""A chat app on a real session file, driven by the scripted provider (no network, deterministic)."""

from __future__ import annotations

import shutil
from pathlib import Path

from pi_tui.ai.scripted import ScriptedProvider, ScriptedReply
from pi_tui.config.model_config import ModelConfig
from pi_tui.config.settings import Settings
from pi_tui.context.resources import load_resources
from pi_tui.session.agent_session import AgentSession
from pi_tui.session.runtime import AgentSessionRuntime, RuntimeOptions
from pi_tui.session.services import AgentSessionServices
from pi_tui.session.store import SessionStore
from pi_tui.tui.app import PiTuiApp

MODEL = ModelConfig(id="scripted-model", provider="scripted", context_window=32_000, reasoning=True)


def make_chat_app(
    tmp_path: Path,
    replies: list[ScriptedReply],
    *,
    settings: Settings | None = None,
    store: SessionStore | None = None,
) -> tuple[PiTuiApp, AgentSession, ScriptedProvider]:
    """A chat on a new session in `tmp_path/project`, or on `store` (a copy of a pi session)."""
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    provider = ScriptedProvider(replies)
    chosen = settings or Settings()

    def services(cwd: Path) -> AgentSessionServices:
        resources = load_resources(cwd, settings=chosen, home=tmp_path, include_builtin=False)
        return AgentSessionServices(cwd=cwd, resources=resources)

    runtime = AgentSessionRuntime(
        store or SessionStore.create(str(project), tmp_path / "sessions"),
        RuntimeOptions(
            model=MODEL,
            api_key="unused",
            thinking_level="medium",
            stream_fn=provider,
            services_factory=services,
        ),
    )
    app = PiTuiApp(
        cwd=project,
        session_root=tmp_path / "sessions",
        pi_session_root=tmp_path / "pi",
        setup_notice="",
        runtime=runtime,
    )
    return app, runtime.session, provider


def chat_on_pi_session(tmp_path: Path, pi_fixtures: Path, name: str) -> PiTuiApp:
    """A chat on a copy of one of the pi sessions in the fixtures (`pi-sessions/<name>`)."""
    copy = tmp_path / "sessions" / name
    copy.parent.mkdir(exist_ok=True)
    shutil.copy(pi_fixtures / "pi-sessions" / name, copy)
    app, _, _ = make_chat_app(tmp_path, [], store=SessionStore.open(copy))
    return app
