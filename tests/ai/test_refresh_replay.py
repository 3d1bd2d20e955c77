"""A cache refresh on Anthropic's Messages API with message threads on: the replay is the request's own
body but for `max_tokens: 1`, sent without `thread` (pi 1.6's `disableContinuation`), and the session's
next real request still continues the thread the request created."""

from __future__ import annotations

from dataclasses import replace

from pi_tui.ai import anthropic_threads
from pi_tui.ai.abort import AbortSignal
from pi_tui.ai.anthropic_provider import stream_anthropic
from pi_tui.ai.messages import AssistantMessage, TextContent, UserMessage
from pi_tui.ai.stream import LlmContext, StreamOptions
from pi_tui.config.compat import CompatOverrides
from pi_tui.config.model_config import ModelConfig
from pi_tui.session.cache_warmer import replay_options
from tests.support.anthropic_stream import anthropic_reply
from tests.support.openai_server import OpenAIServer


async def send(model: ModelConfig, context: LlmContext, options: StreamOptions) -> AssistantMessage:
    final = [event async for event in stream_anthropic(model, context, options)][-1].message
    assert final is not None
    return final


async def test_the_refresh_leaves_the_thread_to_the_next_request(openai_server: OpenAIServer) -> None:
    anthropic_threads.forget()
    model = ModelConfig(
        id="claude-test-4",
        provider="anth",
        api="anthropic-messages",
        base_url=openai_server.anthropic_base_url,
        context_window=200_000,
        max_tokens=16_000,
        compat=CompatOverrides(supports_message_threads=True),
    )
    openai_server.enqueue(
        anthropic_reply(text="first", message_id="msg_a"),
        anthropic_reply(text=".", message_id="msg_refresh"),
        anthropic_reply(text="second", message_id="msg_b"),
    )
    options = StreamOptions(api_key="sk-ant-test", timeout_s=5.0, session_id="s-warm")
    context = LlmContext("You are helpful.", [UserMessage(content=[TextContent(text="one")], timestamp=1)])
    first = await send(model, context, options)
    await send(model, context, replay_options(options, AbortSignal()))
    context = replace(
        context,
        messages=[*context.messages, first, UserMessage(content=[TextContent(text="two")], timestamp=5)],
    )
    await send(model, context, options)
    created, refresh, continued = (request.body for request in openai_server.requests)
    assert created["thread"] == {"type": "create"} and "thread" not in refresh
    assert refresh["max_tokens"] == 1 and created["max_tokens"] > 1
    same = {key: value for key, value in created.items() if key not in ("thread", "max_tokens")}
    assert {key: value for key, value in refresh.items() if key != "max_tokens"} == same
    assert continued["thread"] == {"type": "continue", "previous_message_id": "msg_a"}
