"""A headless run's connections: its messages share one keep-alive connection, the run closes its pool
however it ends, and the SDK import starts before the first request."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from pi_tui.ai.http_pool import HttpPool
from pi_tui.modes import print_mode
from pi_tui.modes.print_mode import run_print_mode
from pi_tui.modes.run_options import RunOptions
from tests.support.openai_server import ErrorReply, OpenAIServer, text_reply
from tests.support.waiting import until


@pytest.fixture
def server(keep_alive_server: OpenAIServer) -> OpenAIServer:
    return keep_alive_server


@pytest.fixture
def pools(monkeypatch: pytest.MonkeyPatch) -> list[HttpPool]:
    """Every pool a run makes, to check it was closed."""
    made: list[HttpPool] = []

    class RecordedPool(HttpPool):
        def __init__(self) -> None:
            super().__init__()
            made.append(self)

    monkeypatch.setattr(print_mode, "HttpPool", RecordedPool)
    return made


def options(server: OpenAIServer, *messages: str) -> RunOptions:
    return RunOptions(
        messages=list(messages), print_mode=True, base_url=server.base_url, model="m", api_key="k"
    )


async def run(server: OpenAIServer, tmp_path: Path, *messages: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = await run_print_mode(
        options(server, *messages), cwd=str(tmp_path), stdin_text=None, stdout=out, stderr=err
    )
    return code, out.getvalue(), err.getvalue()


async def test_messages_share_one_connection_and_the_run_closes_it(
    server: OpenAIServer, tmp_path: Path, pools: list[HttpPool]
) -> None:
    server.enqueue(text_reply("one"), text_reply("two"), text_reply("three"))

    code, out, err = await run(server, tmp_path, "a", "b", "c")

    assert (code, out) == (0, "three\n"), err
    assert len(server.requests) == 3
    assert server.connections_accepted == 1
    assert len(pools) == 1 and pools[0].closed and pools[0].open_clients == 0
    await until(lambda: server.open_connections == 0, what="the run to close its connection")


async def test_a_failed_run_closes_its_pool_too(
    server: OpenAIServer, tmp_path: Path, pools: list[HttpPool]
) -> None:
    server.enqueue(ErrorReply(401, {"error": {"message": "bad key"}}))

    code, _, err = await run(server, tmp_path, "a")

    assert code == 1 and "bad key" in err
    assert pools[0].closed
    await until(lambda: server.open_connections == 0, what="the run to close its connection")


async def test_the_sdk_import_starts_before_the_first_request(
    server: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    requests_at_warm_up: list[int] = []
    monkeypatch.setattr(
        print_mode, "warm_up_openai", lambda: requests_at_warm_up.append(len(server.requests))
    )
    server.enqueue(text_reply("ok"))

    code, _, err = await run(server, tmp_path, "a")

    assert code == 0, err
    assert requests_at_warm_up == [0]
