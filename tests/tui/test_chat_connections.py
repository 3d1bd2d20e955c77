"""The chat on the real OpenAI provider (loopback, keep-alive): the SDK import waits for the first frame,
the turns share one connection, and quitting closes the runtime's pool."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_tui.config.model_config import ModelConfig
from pi_tui.config.settings import Settings
from pi_tui.context.resources import load_resources
from pi_tui.session.runtime import AgentSessionRuntime, RuntimeOptions
from pi_tui.session.services import AgentSessionServices
from pi_tui.session.store import SessionStore
from pi_tui.tui.app import PiTuiApp
from pi_tui.tui.screens import chat as chat_screen
from pi_tui.tui.screens.chat import ChatScreen
from tests.support.openai_server import OpenAIServer, text_reply
from tests.support.waiting import until

from .pilot_helpers import settle, submit


@pytest.fixture
def server(keep_alive_server: OpenAIServer) -> OpenAIServer:
    return keep_alive_server


def make_app(server: OpenAIServer, tmp_path: Path) -> tuple[PiTuiApp, AgentSessionRuntime]:
    project = tmp_path / "project"
    project.mkdir()

    def services(cwd: Path) -> AgentSessionServices:
        resources = load_resources(cwd, settings=Settings(), home=tmp_path, include_builtin=False)
        return AgentSessionServices(cwd=cwd, resources=resources)

    model = ModelConfig(id="m", provider="local", base_url=server.base_url, context_window=32_000)
    runtime = AgentSessionRuntime(
        SessionStore.create(str(project), tmp_path / "sessions"),
        RuntimeOptions(model=model, api_key="loopback-key", services_factory=services),
    )
    app = PiTuiApp(
        cwd=project,
        session_root=tmp_path / "sessions",
        pi_session_root=tmp_path / "pi",
        setup_notice="",
        runtime=runtime,
    )
    return app, runtime


async def test_warm_up_after_first_paint_one_connection_and_quit_closes_the_pool(
    server: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app, runtime = make_app(server, tmp_path)
    painted_at_warm_up: list[bool] = []

    def warm_up() -> None:
        screen = app.screen
        assert isinstance(screen, ChatScreen)
        painted_at_warm_up.append(screen.first_paint.is_set())

    monkeypatch.setattr(chat_screen, "warm_up_openai", warm_up)
    server.enqueue(text_reply("first answer"), text_reply("second answer"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert painted_at_warm_up == [True]
        await submit(pilot, "one")
        await submit(pilot, "two")
        assert runtime.session.last_assistant_text() == "second answer"
        assert server.connections_accepted == 1 and server.open_connections == 1
        await pilot.press("ctrl+q")
    assert runtime.http_pool.closed and runtime.http_pool.open_clients == 0
    await until(lambda: server.open_connections == 0, what="quitting to close the connection")


async def test_no_warm_up_for_a_scripted_provider(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from .chat_fixtures import make_chat_app

    calls: list[None] = []
    monkeypatch.setattr(chat_screen, "warm_up_openai", lambda: calls.append(None))
    app, _, _ = make_chat_app(tmp_path, [])
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ChatScreen) and screen.first_paint.is_set()
    assert calls == []
