"""The scripted provider replays replies on the real stream contract."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from pi_tui.ai.abort import AbortSignal
from pi_tui.ai.messages import AssistantMessage, TextContent, ThinkingContent, UserMessage
from pi_tui.ai.overflow import is_context_overflow
from pi_tui.ai.responses_request import build_responses_request
from pi_tui.ai.retryable import is_retryable_error
from pi_tui.ai.scripted import (
    ScriptedProvider,
    ScriptedReply,
    ScriptedToolCall,
    ScriptedUsage,
    replies_from_obj,
)
from pi_tui.ai.stream import LlmContext, StreamEvent, StreamOptions
from pi_tui.ai.tool_arguments import invalid_arguments
from pi_tui.config.model_config import ModelConfig, Prices
from tests.support.waiting import until

MODEL = ModelConfig(id="demo", provider="scripted", cost=Prices(input=1, output=2))


def context(text: str = "hi") -> LlmContext:
    return LlmContext("system prompt", [UserMessage(content=text, timestamp=1)])


async def run(provider: ScriptedProvider, options: StreamOptions | None = None) -> list[StreamEvent]:
    return [event async for event in provider(MODEL, context(), options or StreamOptions())]


def final(events: list[StreamEvent]) -> AssistantMessage:
    message = events[-1].message
    assert message is not None
    return message


async def test_text_streams_in_chunks_with_estimated_usage() -> None:
    provider = ScriptedProvider([ScriptedReply(text="Hello, world!", chunk_size=5)])
    events = await run(provider)
    assert [event.type for event in events] == [
        "start", "text_start", "text_delta", "text_delta", "text_delta", "text_end", "done",
    ]  # fmt: skip
    assert [event.delta for event in events if event.type == "text_delta"] == ["Hello", ", wor", "ld!"]
    message = final(events)
    assert message.content == [TextContent(text="Hello, world!")]
    assert message.stop_reason == "stop"
    assert message.usage.output == 4  # ceil(13 / 4)
    assert message.usage.input > 0
    assert message.usage.cost.output == 4 * 2 / 1_000_000


async def test_thinking_then_tool_calls_with_raw_and_object_arguments() -> None:
    reply = ScriptedReply(
        thinking="plan",
        tool_calls=[
            ScriptedToolCall(name="read", arguments={"path": "a.txt"}),
            ScriptedToolCall(name="bash", arguments='{"command": ', id="custom"),
        ],
        usage=ScriptedUsage(input=100, output=7, cache_read=50),
    )
    message = final(await run(ScriptedProvider([reply])))
    assert isinstance(message.content[0], ThinkingContent)
    first, second = message.tool_calls
    assert (first.id, first.name, first.arguments) == ("call_1_0", "read", {"path": "a.txt"})
    assert second.id == "custom" and invalid_arguments(second) == '{"command": '
    assert message.stop_reason == "toolUse"
    got = message.usage
    assert (got.input, got.output, got.cache_read, got.total_tokens) == (100, 7, 50, 157)


async def test_error_replies_drive_overflow_and_retry_classification() -> None:
    provider = ScriptedProvider(
        [
            ScriptedReply(text="partial", error="429 Rate limit exceeded"),
            ScriptedReply(error="400 prompt is too long: 300000 tokens"),
        ]
    )
    first = final(await run(provider))
    assert (first.stop_reason, first.error_message, first.text) == (
        "error",
        "429 Rate limit exceeded",
        "partial",
    )
    assert is_retryable_error(first, 1000)
    second = final(await run(provider))
    assert is_context_overflow(second, 1000)


async def test_exhausted_script_is_an_error_reply_and_contexts_are_recorded() -> None:
    provider = ScriptedProvider([ScriptedReply(text="one")])
    await run(provider)
    events = await run(provider)
    assert events[-1].type == "error"
    assert final(events).error_message == "scripted provider: no more replies"
    assert provider.calls == 2
    assert provider.contexts[0].system_prompt == "system prompt"
    assert provider.contexts[1].messages[0] == UserMessage(content="hi", timestamp=1)


async def test_abort_mid_stream_ends_as_aborted_keeping_what_streamed() -> None:
    provider = ScriptedProvider([ScriptedReply(text="x" * 100, chunk_size=1)])
    signal = AbortSignal()
    deltas = 0
    last: StreamEvent | None = None
    async for event in provider(MODEL, context(), StreamOptions(signal=signal)):
        last = event
        if event.type == "text_delta":
            deltas += 1
            if deltas == 3:
                signal.abort()
    assert deltas == 3, "no chunk streams after the abort"
    assert last is not None and last.type == "error"
    message = final([last])
    assert message.stop_reason == "aborted"
    assert message.text == "xxx"


async def test_a_reply_delay_holds_its_chunks_until_an_abort_cuts_it_short() -> None:
    """The reply's own 60 s delay (the provider's is 0) holds back its first chunk: a hundred turns of the
    event loop later nothing has streamed. The abort then ends the wait at once, well before the minute
    is up (the wait below gives up at 20 s)."""
    provider = ScriptedProvider([ScriptedReply(text="ab", chunk_size=1, delay_s=60)])
    signal = AbortSignal()
    seen: list[str] = []
    held: list[str] = []

    async def abort_while_held() -> None:
        await until(lambda: "text_start" in seen, what="the reply to open its text block")
        for _ in range(100):
            await asyncio.sleep(0)
        held.extend(seen)
        signal.abort()

    async def consume() -> list[StreamEvent]:
        events = []
        async for event in provider(MODEL, context(), StreamOptions(signal=signal)):
            seen.append(event.type)
            events.append(event)
        return events

    aborter = asyncio.create_task(abort_while_held())
    events = await asyncio.wait_for(consume(), 20)
    await aborter
    assert held == ["start", "text_start"]
    assert [event.type for event in events] == ["start", "text_start", "error"]
    assert final(events).stop_reason == "aborted" and final(events).text == ""


async def test_a_reply_delay_overrides_the_provider_s_and_explicit_stop_reason() -> None:
    """At the provider's 60 s per chunk this reply would take three minutes; its own 0 s lets it finish
    (the wait below gives up at 20 s)."""
    provider = ScriptedProvider(
        [ScriptedReply(text="ab", chunk_size=1, delay_s=0, stop_reason="length")], delay_s=60
    )
    message = final(await asyncio.wait_for(run(provider), 20))
    assert message.text == "ab"
    assert message.stop_reason == "length"


async def test_loaded_from_a_json_file(tmp_path: Path) -> None:
    script = {
        "delayS": 0,
        "replies": [
            {"text": "hi there", "chunkSize": 3},
            {"toolCalls": [{"name": "ls", "arguments": {"path": "."}}]},
        ],
    }
    path = tmp_path / "demo.json"
    path.write_text(json.dumps(script))
    provider = ScriptedProvider.from_json(path)
    assert final(await run(provider)).text == "hi there"
    assert final(await run(provider)).tool_calls[0].arguments == {"path": "."}
    assert replies_from_obj([{"error": "x"}])[0].error == "x"


async def test_runs_concurrently_with_other_tasks() -> None:
    provider = ScriptedProvider([ScriptedReply(text="abc", chunk_size=1, delay_s=0.01)])
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0.001)

    task = asyncio.create_task(ticker())
    await run(provider)
    task.cancel()
    assert ticks > 3


async def test_replies_for_a_responses_model_are_shaped_like_the_responses_provider_s() -> None:
    model = MODEL.model_copy(update={"api": "openai-responses", "reasoning": True})
    reply = ScriptedReply(
        thinking="plan",
        text="Reading.",
        tool_calls=[
            ScriptedToolCall(name="read", arguments={"path": "a"}),
            ScriptedToolCall(name="ls", id="mine"),
        ],
    )
    provider = ScriptedProvider([reply])
    message = final([event async for event in provider(model, context(), StreamOptions())])
    assert message.api == "openai-responses"
    thinking, text = message.content[:2]
    assert isinstance(thinking, ThinkingContent) and thinking.thinking_signature is not None
    assert json.loads(thinking.thinking_signature) == {
        "type": "reasoning",
        "id": "rs_1",
        "summary": [{"type": "summary_text", "text": "plan"}],
    }
    assert text == TextContent(text="Reading.", text_signature='{"v":1,"id":"msg_1"}')
    assert [call.id for call in message.tool_calls] == ["call_1_0|fc_1_0", "mine|fc_1_1"]
    # Replayed to the same model, the reply goes back as the items a real provider would have sent.
    followup = LlmContext("", [*context().messages, message])
    items = build_responses_request(model, followup, StreamOptions()).body["input"][1:]
    assert [(item["type"], item.get("id")) for item in items] == [
        ("reasoning", "rs_1"),
        ("message", "msg_1"),
        ("function_call", "fc_1_0"),
        ("function_call", "fc_1_1"),
        ("function_call_output", None),
        ("function_call_output", None),
    ]


async def test_replies_carry_the_model_s_api() -> None:
    provider = ScriptedProvider([ScriptedReply(text="x", thinking="y")])
    message = final(await run(provider))
    assert message.api == "openai-completions"
    assert all(block.model_dump().get("thinking_signature") is None for block in message.content)
