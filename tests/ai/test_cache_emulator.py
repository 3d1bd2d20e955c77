"""The prompt-cache emulator (tests/support/cache_emulator.py), alone and behind the loopback server."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from openai import AsyncOpenAI

from tests.support.cache_emulator import CacheResult, PromptCache
from tests.support.openai_server import OpenAIServer, StreamReply, chunk, text_reply

MARK = {"type": "ephemeral"}


def hashes(text: str) -> int:
    """A token per `#`: block sizes are exact and the JSON around them costs nothing."""
    return text.count("#")


def text(value: str, *, marked: bool = False) -> dict[str, Any]:
    part: dict[str, Any] = {"type": "text", "text": value}
    if marked:
        part["cache_control"] = dict(MARK)
    return part


def tool(name: str, description: str, *, marked: bool = False) -> dict[str, Any]:
    definition: dict[str, Any] = {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": {"type": "object"}},
    }
    if marked:
        definition["cache_control"] = dict(MARK)
    return definition


SYSTEM = "\n".join(
    f"- Guideline {number}: read the file before editing it, keep edits small, and say which paths changed."
    for number in range(150)
)
TOOLS = [
    tool("read", "Read a file. " * 40),
    tool("bash", "Run a shell command. " * 40),
    tool("edit", "Replace exact text in a file. " * 40),
]


def conversation(turns: int) -> list[list[dict[str, Any]]]:
    """The message lists sent over `turns` user turns: each turn asks, gets a tool call, sends its
    result and gets an answer, so every turn is two requests. Content is plain; `marked` adds markers."""
    history: list[dict[str, Any]] = []
    sent: list[list[dict[str, Any]]] = []
    for turn in range(turns):
        history.append({"role": "user", "content": f"Step {turn}: what does src/module_{turn}.py define?"})
        sent.append(list(history))
        call = {
            "id": f"call_{turn}",
            "type": "function",
            "function": {"name": "read", "arguments": json.dumps({"path": f"src/module_{turn}.py"})},
        }
        history.append({"role": "assistant", "content": None, "tool_calls": [call]})
        history.append({"role": "tool", "tool_call_id": f"call_{turn}", "content": f"def f{turn}(): ..."})
        sent.append(list(history))
        history.append({"role": "assistant", "content": f"module_{turn}.py defines f{turn}."})
    return sent


def marked(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """A request body with markers on the system prompt, the last tool and the last user text."""
    messages = copy.deepcopy(messages)
    last_user = max(number for number, message in enumerate(messages) if message["role"] == "user")
    messages[last_user]["content"] = [text(messages[last_user]["content"], marked=True)]
    tools = copy.deepcopy(TOOLS)
    tools[-1]["cache_control"] = dict(MARK)
    system = {"role": "system", "content": [text(SYSTEM, marked=True)]}
    return {"model": "anthropic/claude-sonnet-4.5", "tools": tools, "messages": [system, *messages]}


def through_last_marker(cache: PromptCache, body: dict[str, Any]) -> int:
    blocks = cache.blocks(body)
    last = max(number for number, block in enumerate(blocks) if block.marker)
    return sum(block.tokens for block in blocks[: last + 1])


def test_without_markers_nothing_is_read_or_written() -> None:
    cache = PromptCache("marker", min_tokens=0, count_tokens=hashes)
    body = {
        "model": "m",
        "tools": [tool("read", "#" * 50)],
        "messages": [{"role": "system", "content": "#" * 500}, {"role": "user", "content": "# hi"}],
    }
    results = [cache.serve(body) for _ in range(3)]
    assert [(r.prompt_tokens, r.cached_tokens, r.cache_write_tokens) for r in results] == [(551, 0, 0)] * 3
    assert [r.reused_share_of_previous for r in results] == [None, 0.0, 0.0]
    assert results[0].markers == 0


def test_growing_conversation_reads_the_previous_request_through_its_last_marker() -> None:
    cache = PromptCache("marker")  # the real token counter and Anthropic's 1,024-token minimum
    bodies = [marked(messages) for messages in conversation(6)]
    results = [cache.serve(body) for body in bodies]
    assert len(results) == 12
    assert results[0].cached_tokens == 0
    assert results[0].cache_write_tokens == results[0].prompt_tokens > 1024
    for previous, body, result in zip(bodies, bodies[1:], results[1:], strict=False):
        assert result.markers == 3
        assert result.cached_tokens == through_last_marker(cache, previous)
        assert result.reused_share_of_previous is not None
        assert result.reused_share_of_previous >= 0.98
        assert result.cached_tokens + result.cache_write_tokens == through_last_marker(cache, body)
    # Each token is written once: the writes add up to the last request's marked prefix.
    assert sum(r.cache_write_tokens for r in results) == through_last_marker(cache, bodies[-1])
    # A request after a tool result adds nothing to the cache: its markers have not moved.
    assert [r.cache_write_tokens == 0 for r in results[1:]] == [True, False] * 5 + [True]


def test_repeating_a_request_reads_it_whole_and_writes_nothing() -> None:
    cache = PromptCache("marker", min_tokens=0, count_tokens=hashes)
    body = {
        "model": "m",
        "messages": [
            {"role": "system", "content": [text("#" * 300, marked=True)]},
            {"role": "user", "content": [text("#" * 20, marked=True)]},
        ],
    }
    first, second = cache.serve(body), cache.serve(body)
    assert (first.cached_tokens, first.cache_write_tokens) == (0, 320)
    assert (second.cached_tokens, second.cache_write_tokens) == (320, 0)
    assert second.reused_share_of_previous == 1.0


def test_a_prefix_shorter_than_the_minimum_is_not_written() -> None:
    cache = PromptCache("marker", min_tokens=1024, count_tokens=hashes)
    body = {"model": "m", "messages": [{"role": "user", "content": [text("#" * 1000, marked=True)]}]}
    results = [cache.serve(body), cache.serve(body)]
    assert [(r.cached_tokens, r.cache_write_tokens) for r in results] == [(0, 0), (0, 0)]


@pytest.mark.parametrize(("gap", "hit"), [(19, True), (20, True), (21, False)])
def test_a_marker_finds_a_written_prefix_only_within_20_blocks(gap: int, hit: bool) -> None:
    """The second request's only marker is `gap` blocks after the end of the prefix the first wrote."""
    cache = PromptCache("marker", min_tokens=0, count_tokens=hashes)
    system = "#" * 400
    cache.serve({"model": "m", "messages": [{"role": "system", "content": [text(system, marked=True)]}]})
    turns: list[dict[str, Any]] = [{"role": "user", "content": f"# question {n}"} for n in range(gap)]
    turns[-1]["content"] = [text(turns[-1]["content"], marked=True)]
    result = cache.serve({"model": "m", "messages": [{"role": "system", "content": system}, *turns]})
    assert result.prompt_tokens == 400 + gap
    assert result.cached_tokens == (400 if hit else 0)
    assert result.cache_write_tokens == result.prompt_tokens - result.cached_tokens


def early_change_bodies() -> dict[str, dict[str, Any]]:
    def body(first_tool: str, system: str) -> dict[str, Any]:
        return {
            "model": "m",
            "tools": [tool("read", first_tool), tool("bash", "#" * 200, marked=True)],
            "messages": [
                {"role": "system", "content": [text(system, marked=True)]},
                {"role": "user", "content": [text("#" * 30, marked=True)]},
            ],
        }

    return {
        "original": body("#" * 100, "#" * 600),
        "first tool": body("#" * 100 + " (v2)", "#" * 600),
        "system prompt": body("#" * 100, "#" * 600 + " Today is Monday."),
    }


@pytest.mark.parametrize(("changed", "still_cached"), [("first tool", 0), ("system prompt", 300)])
def test_a_changed_early_block_misses_everything_after_it(changed: str, still_cached: int) -> None:
    cache = PromptCache("marker", min_tokens=0, count_tokens=hashes)
    bodies = early_change_bodies()
    assert cache.serve(bodies["original"]).cache_write_tokens == 930
    result = cache.serve(bodies[changed])
    # Changing the system prompt keeps the tools, which the marker on the last tool wrote.
    assert result.cached_tokens == still_cached
    assert result.cache_write_tokens == 930 - still_cached


def test_string_and_single_text_part_content_are_the_same_block() -> None:
    cache = PromptCache("marker", min_tokens=0, count_tokens=hashes)
    first = {"model": "m", "messages": [{"role": "user", "content": [text("#" * 64, marked=True)]}]}
    cache.serve(first)
    follow_up = {
        "model": "m",
        "messages": [
            {"role": "user", "content": "#" * 64},
            {"role": "assistant", "content": "ok"},
            {"role": "user", "content": [text("# more", marked=True)]},
        ],
    }
    assert cache.serve(follow_up).cached_tokens == 64


def test_each_model_has_its_own_cache() -> None:
    cache = PromptCache("marker", min_tokens=0, count_tokens=hashes)
    body = {"model": "a", "messages": [{"role": "user", "content": [text("#" * 64, marked=True)]}]}
    cache.serve(body)
    assert cache.serve({**body, "model": "b"}).cached_tokens == 0


def test_pi_openrouter_requests(pi_fixtures: Path) -> None:
    """The requests the real pi sent to OpenRouter's Claude: markers on the system prompt, the last tool
    and the last user or assistant text. Its third request misses the tool call and its result, which
    stand after the assistant text the second request marked."""
    path = pi_fixtures / "pi-requests" / "openrouter-anthropic.requests.jsonl"
    bodies = [json.loads(line)["body"] for line in path.read_text().splitlines()]
    cache = PromptCache("marker")
    first, second, third = (cache.serve(body) for body in bodies)
    assert first.prompt_tokens > 1024
    assert (first.cached_tokens, first.cache_write_tokens) == (0, first.prompt_tokens)
    assert second.cached_tokens == first.prompt_tokens
    assert second.reused_share_of_previous == 1.0
    blocks = cache.blocks(bodies[1])
    marked_text = next(n for n, block in enumerate(blocks) if block.role == "assistant" and block.marker)
    assert "Let me check." in blocks[marked_text].text
    assert second.cache_write_tokens == blocks[marked_text].tokens
    assert third.cached_tokens == sum(block.tokens for block in blocks[: marked_text + 1])
    assert third.cached_tokens < second.prompt_tokens
    assert third.cache_write_tokens == third.prompt_tokens - third.cached_tokens


def automatic_body(shared: int, tail: str, *, model: str = "m") -> dict[str, Any]:
    return {
        "model": model,
        "messages": [{"role": "system", "content": "#" * shared}, {"role": "user", "content": tail}],
    }


@pytest.mark.parametrize(
    ("shared", "settings", "cached"),
    [
        (1000, {}, 0),
        (1023, {}, 0),
        (1024, {}, 1024),
        (1151, {}, 1024),
        (1500, {}, 1408),
        (1500, {"round_to": None}, 1500),
        (1500, {"min_tokens": 2048}, 0),
        (300, {"min_tokens": 0}, 256),
    ],
)
def test_automatic_cache_reads_the_shared_prefix_from_the_minimum_in_steps(
    shared: int, settings: dict[str, Any], cached: int
) -> None:
    cache = PromptCache("automatic", count_tokens=hashes, **settings)
    cache.serve(automatic_body(shared, "first question"))
    result = cache.serve(automatic_body(shared, "second question"))
    assert result.prompt_tokens == shared
    assert (result.cached_tokens, result.cache_write_tokens) == (cached, 0)


def test_automatic_cache_reads_from_any_earlier_request() -> None:
    cache = PromptCache("automatic", count_tokens=hashes)
    cache.serve(automatic_body(2000, "#" * 10))
    cache.serve(automatic_body(1500, "other"))
    result = cache.serve(automatic_body(2000, "#" * 10 + " again"))
    assert result.cached_tokens == 1024 + 7 * 128
    assert result.reused_share_of_previous == 1.0  # capped: more than the previous request's 1,500


def test_usage_in_openrouter_and_openai_forms() -> None:
    result = CacheResult(
        kind="marker",
        prompt_tokens=5000,
        cached_tokens=4000,
        cache_write_tokens=600,
        reused_share_of_previous=0.9,
        blocks=12,
        markers=3,
    )
    assert result.uncached_tokens == 400
    assert result.usage(30) == {
        "prompt_tokens": 5000,
        "completion_tokens": 30,
        "total_tokens": 5030,
        "prompt_tokens_details": {"cached_tokens": 4600, "cache_write_tokens": 600},
    }
    assert result.usage(30, openrouter_style=False)["prompt_tokens_details"] == {"cached_tokens": 4000}


async def stream_usage(client: AsyncOpenAI, body: dict[str, Any]) -> dict[str, Any] | None:
    stream = await client.chat.completions.create(**body, stream=True, stream_options={"include_usage": True})
    found = None
    async for item in stream:
        if item.usage is not None:
            found = item.usage.model_dump(exclude_none=True)
    return found


async def test_server_reports_the_marker_cache_through_the_openai_client(openai_server: OpenAIServer) -> None:
    openai_server.cache = PromptCache("marker")
    bodies = [marked(messages) for messages in conversation(2)[:3]]
    openai_server.enqueue(*(text_reply("ok") for _ in bodies))
    async with AsyncOpenAI(base_url=openai_server.base_url, api_key="sk-test", max_retries=0) as client:
        reported = [await stream_usage(client, body) for body in bodies]
    results = openai_server.cache_results
    assert len(results) == 3
    assert [request.body["messages"] for request in openai_server.requests] == [b["messages"] for b in bodies]
    for result, usage in zip(results, reported, strict=True):
        # text_reply scripts 5 completion tokens; the emulator keeps them and replaces the rest.
        assert usage == result.usage(5, openrouter_style=True)
    assert results[1].cached_tokens == results[0].prompt_tokens
    assert reported[1] is not None
    details = reported[1]["prompt_tokens_details"]
    assert details["cached_tokens"] == results[1].cached_tokens + results[1].cache_write_tokens
    assert results[2].reused_share_of_previous is not None and results[2].reused_share_of_previous >= 0.98


async def test_server_appends_usage_when_the_reply_has_none(openai_server: OpenAIServer) -> None:
    openai_server.cache = PromptCache("automatic", count_tokens=hashes)
    no_usage = [chunk(content="ok"), chunk(finish_reason="stop")]
    openai_server.enqueue(StreamReply(list(no_usage)), StreamReply(list(no_usage)))
    body = {"model": "gpt-test", **automatic_body(1300, "hello")}
    async with AsyncOpenAI(base_url=openai_server.base_url, api_key="sk-test", max_retries=0) as client:
        first = await stream_usage(client, body)
        second = await stream_usage(client, body)
    assert first == {
        "prompt_tokens": 1300,
        "completion_tokens": 0,
        "total_tokens": 1300,
        "prompt_tokens_details": {"cached_tokens": 0},
    }
    assert second is not None and second["prompt_tokens_details"] == {"cached_tokens": 1280}


async def test_server_without_a_cache_or_without_usage_asked_leaves_the_stream_alone(
    openai_server: OpenAIServer,
) -> None:
    openai_server.enqueue(text_reply("ok"), StreamReply([chunk(content="ok"), chunk(finish_reason="stop")]))
    async with AsyncOpenAI(base_url=openai_server.base_url, api_key="sk-test", max_retries=0) as client:
        untouched = await stream_usage(client, marked(conversation(1)[0]))
        openai_server.cache = PromptCache("marker")
        stream = await client.chat.completions.create(**marked(conversation(1)[0]), stream=True)
        usages = [item.usage async for item in stream]
    assert untouched == {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    assert usages == [None, None]
    assert openai_server.cache_results[0].cached_tokens == 0
