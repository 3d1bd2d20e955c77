"""The chat on the real OpenAI provider (loopback, keep-alive): the SDK import waits for the first frame,
the turns share one connection, and quitting closes the runtime's pool."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_tui.tui.screens import chat as chat_screen
from pi_tui.tui.screens.chat import ChatScreen
from tests.support.openai_server import OpenAIServer, text_reply
from tests.support.waiting import until

from .chat_fixtures import make_loopback_chat_app
from .pilot_helpers import settle, submit


@pytest.fixture
def server(keep_alive_server: OpenAIServer) -> OpenAIServer:
    return keep_alive_server


async def test_warm_up_after_first_paint_one_connection_and_quit_closes_the_pool(
    server: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app, runtime = make_loopback_chat_app(server, tmp_path)
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
