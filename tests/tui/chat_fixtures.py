"""A chat app on a real session file, driven by the scripted provider (no network, deterministic)."""

from __future__ import annotations

from pathlib import Path

from pi_tui.ai.scripted import ScriptedProvider, ScriptedReply
from pi_tui.config.model_config import ModelConfig
from pi_tui.config.settings import Settings
from pi_tui.context.resources import load_resources
from pi_tui.session.agent_session import AgentSession, SessionConfig
from pi_tui.session.store import SessionStore
from pi_tui.tui.app import PiTuiApp

MODEL = ModelConfig(id="scripted-model", provider="scripted", context_window=32_000, reasoning=True)


def make_chat_app(
    tmp_path: Path, replies: list[ScriptedReply], *, settings: Settings | None = None
) -> tuple[PiTuiApp, AgentSession, ScriptedProvider]:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    provider = ScriptedProvider(replies)
    store = SessionStore.create(str(project), tmp_path / "sessions")
    session = AgentSession(
        SessionConfig(
            store=store,
            resources=load_resources(
                project, settings=settings or Settings(), home=tmp_path, include_builtin=False
            ),
            model=MODEL,
            api_key="unused",
            thinking_level="medium",
            stream_fn=provider,
        )
    )
    app = PiTuiApp(
        cwd=project,
        session_root=tmp_path / "sessions",
        pi_session_root=tmp_path / "pi",
        setup_notice="",
        session=session,
    )
    return app, session, provider
