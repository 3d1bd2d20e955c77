"""The provider's connection pool: one HTTP client per (provider, base URL), shared by requests made with
their own keys; reset keeps a streaming reply alive; close ends everything. Against the keep-alive
loopback server, through the real `openai` client."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

import pytest

from pi_tui.ai.abort import AbortSignal
from pi_tui.ai.http_pool import HttpPool, HttpPoolClosedError
from pi_tui.ai.messages import AssistantMessage
from pi_tui.ai.openai_provider import stream_openai
from pi_tui.ai.stream import StreamOptions
from tests.support.abort_midstream import abort_at_first_text
from tests.support.openai_server import OpenAIServer, StreamReply, chunk, text_reply
from tests.support.waiting import until

from .test_openai_provider import API_KEY, make_context, make_model


@pytest.fixture
def server(keep_alive_server: OpenAIServer) -> OpenAIServer:
    return keep_alive_server


class FakeClient:
    def __init__(self) -> None:
        self.closed = False

    async def aclose(self) -> None:
        self.closed = True


def fake_pool() -> tuple[HttpPool, list[FakeClient]]:
    made: list[FakeClient] = []

    def factory() -> FakeClient:
        made.append(FakeClient())
        return made[-1]

    return HttpPool(factory), made


async def ask(
    server: OpenAIServer, pool: HttpPool, *, key: str = API_KEY, **options: Any
) -> AssistantMessage:
    settings = replace(StreamOptions(api_key=key, max_retries=0, timeout_s=5.0, http_pool=pool), **options)
    final = None
    async for event in stream_openai(make_model(server), make_context(), settings):
        final = event.message or final
    assert final is not None
    return final


async def test_one_client_per_provider_and_base_url() -> None:
    pool, made = fake_pool()
    async with pool.lease("local", "http://a/v1") as first, pool.lease("local", "http://a/v1") as again:
        assert first is again
    async with pool.lease("local", "http://b/v1") as other, pool.lease("remote", "http://a/v1") as third:
        assert len({id(first), id(other), id(third)}) == 3
    assert len(made) == 3 and not any(client.closed for client in made)


async def test_reset_closes_idle_clients_now_and_busy_ones_after_their_request() -> None:
    pool, made = fake_pool()
    async with pool.lease("local", "http://a/v1"):
        pass
    async with pool.lease("local", "http://b/v1"):
        await pool.reset()
        assert made[0].closed and not made[1].closed
        assert pool.open_clients == 1
    assert made[1].closed and pool.open_clients == 0
    async with pool.lease("local", "http://a/v1") as fresh:
        assert fresh is made[2]


async def test_aclose_closes_busy_clients_too_and_refuses_new_leases() -> None:
    pool, made = fake_pool()
    async with pool.lease("local", "http://a/v1"):
        await pool.aclose()
        assert made[0].closed and pool.closed
    with pytest.raises(HttpPoolClosedError):
        async with pool.lease("local", "http://a/v1"):
            pass
    assert len(made) == 1


async def test_five_requests_share_one_connection_and_close_closes_it(server: OpenAIServer) -> None:
    pool = HttpPool()
    for turn in range(5):
        server.enqueue(text_reply(f"answer {turn}"))
        message = await ask(server, pool)
        assert message.stop_reason == "stop" and message.text == f"answer {turn}"
    assert len(server.requests) == 5
    assert server.connections_accepted == 1
    assert server.open_connections == 1, "the finished replies gave the connection back to the pool"
    await pool.aclose()
    await until(lambda: server.open_connections == 0, what="the pool's close to end the connection")


async def test_each_request_carries_its_own_key_and_the_shared_client_none(server: OpenAIServer) -> None:
    pool = HttpPool()
    server.enqueue(text_reply("one"), text_reply("two"))
    await ask(server, pool, key="sk-first-key")
    await ask(server, pool, key="sk-second-key")
    assert [request.headers["authorization"] for request in server.requests] == [
        "Bearer sk-first-key",
        "Bearer sk-second-key",
    ]
    assert server.connections_accepted == 1
    async with pool.lease("local", server.base_url) as shared:
        assert not shared.is_closed, "closing a request's SDK client must not close the shared client"
        assert "authorization" not in {name.lower() for name in shared.headers}
        assert "sk-" not in repr(dict(shared.headers))
    await pool.aclose()


async def test_abort_closes_the_streaming_connection_at_once_and_the_pool_serves_on(
    server: OpenAIServer,
) -> None:
    """The reply stalls after its first text until the client hangs up, and the client's own timeout is a
    minute away: only the abort can end the reply (within `abort_at_first_text`'s 20 s) and close the
    connection (within 10 s more), and the connection was still open when the abort fired."""
    pool = HttpPool()
    server.enqueue(StreamReply([chunk(content="first"), chunk(finish_reason="stop")], stall_after=1))
    signal = AbortSignal()
    settings = StreamOptions(api_key=API_KEY, max_retries=0, timeout_s=60.0, signal=signal, http_pool=pool)
    reply = await abort_at_first_text(stream_openai(make_model(server), make_context(), settings), signal)
    message = reply.message
    await asyncio.wait_for(server.client_closed.wait(), 10)
    assert server.client_closed_at[0] >= reply.aborted_at
    assert message.stop_reason == "aborted" and message.text == "first"
    server.enqueue(text_reply("still here"))
    assert (await ask(server, pool)).text == "still here"
    assert server.connections_accepted == 2, "the aborted connection is dropped, a new one serves on"
    await pool.aclose()


async def test_per_request_timeout_applies_with_a_shared_client(server: OpenAIServer) -> None:
    """The server stalls until the client hangs up. The request's 0.5 s timeout ends the call; the shared
    client's own (the SDK's ten minutes) would end it long after the wait below gives up (20 s)."""
    pool = HttpPool()
    server.enqueue(StreamReply([chunk(content="a")], stall_after=1))
    message = await asyncio.wait_for(ask(server, pool, timeout_s=0.5), 20)
    assert message.stop_reason == "error" and "timed out" in (message.error_message or "").lower()
    await pool.aclose()


async def test_reset_mid_reply_lets_it_finish_then_drops_its_connection(server: OpenAIServer) -> None:
    pool = HttpPool()
    pieces = [chunk(content=f"part{number} ") for number in range(6)]
    server.enqueue(StreamReply([*pieces, chunk(finish_reason="stop")], delay_s=0.05))
    settings = StreamOptions(api_key=API_KEY, max_retries=0, timeout_s=5.0, http_pool=pool)
    events = stream_openai(make_model(server), make_context(), settings)
    seen: list[str] = []
    final: AssistantMessage | None = None
    async for event in events:
        seen.append(event.type)
        if seen.count("text_delta") == 1:
            await pool.reset()
        final = event.message or final
    assert final is not None and final.stop_reason == "stop"
    assert final.text == "".join(f"part{number} " for number in range(6))
    await until(lambda: server.open_connections == 0, what="the retired client to close after the reply")
    assert pool.open_clients == 0 and not pool.closed


async def test_a_closed_pool_fails_the_request_without_raising(server: OpenAIServer) -> None:
    pool = HttpPool()
    await pool.aclose()
    message = await ask(server, pool)
    assert message.stop_reason == "error" and "closed" in (message.error_message or "")
    assert server.requests == []
