"""The chat on the real OpenAI provider (loopback, keep-alive): the SDK import waits for the first frame,
the turns share one connection, and quitting closes the runtime's pool."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_tui.tui.screens import chat as chat_screen
from pi_tui.tui.screens import sdk_warm_up
from pi_tui.tui.screens.chat import ChatScreen
from pi_tui.tui.widgets.prompt_area import PromptArea
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
    monkeypatch.setattr(sdk_warm_up, "IDLE_SECONDS", 0.0)
    server.enqueue(text_reply("first answer"), text_reply("second answer"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await until(lambda: painted_at_warm_up == [True], what="the warm-up after the first frame")
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


async def test_the_sdk_import_waits_while_the_editor_is_used_and_a_request_does_not_wait_for_it(
    server: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first keys are handled before the SDK's import starts (it held the GIL and delayed their echo);
    a prompt sent meanwhile imports the SDK itself and is answered."""
    app, runtime = make_loopback_chat_app(server, tmp_path)
    calls: list[None] = []
    monkeypatch.setattr(chat_screen, "warm_up_openai", lambda: calls.append(None))
    monkeypatch.setattr(sdk_warm_up, "IDLE_SECONDS", 60.0)
    monkeypatch.setattr(sdk_warm_up, "LATEST_SECONDS", 60.0)
    server.enqueue(text_reply("an answer"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press(*"hello")
        await settle(pilot)
        assert str(app.screen.query_one(PromptArea).text) == "hello" and calls == []
        await submit(pilot, "one")
        assert runtime.session.last_assistant_text() == "an answer"
        assert calls == []


async def test_typing_without_a_pause_postpones_the_sdk_import_only_until_the_latest_moment(
    server: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app, _ = make_loopback_chat_app(server, tmp_path)
    calls: list[None] = []
    monkeypatch.setattr(chat_screen, "warm_up_openai", lambda: calls.append(None))
    monkeypatch.setattr(sdk_warm_up, "IDLE_SECONDS", 60.0)
    monkeypatch.setattr(sdk_warm_up, "LATEST_SECONDS", 0.2)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press(*"typing on")
        await until(lambda: calls == [None], what="the warm-up at its latest moment")
