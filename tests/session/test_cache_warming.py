"""Cache warming as pi 1.6 does it (`cacheWarming`), against the loopback server, on a clock the test
drives: the refresh is the last request byte for byte but for its one-token cap, written as pi's
`cache_warm` usage entry and counted in the cost; it stops after 30 idle minutes, when it would not pay,
when the conversation moves on, and on Esc; a provider that rejects it turns warming off once."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from pi_tui.config.model_config import ModelConfig, Prices, PromptCacheLifetimes
from pi_tui.config.settings import Settings
from pi_tui.context.cache_policy import (
    cache_clock,
    cache_clock_line,
    declared_lifetimes,
    evaluate_warming,
    prompt_cache_ttl_s,
)
from pi_tui.context.resources import load_resources
from pi_tui.session.agent_session import AgentSession, SessionConfig
from pi_tui.session.session_events import AnyEvent, CacheWarmedEvent, ProviderNoticeEvent
from pi_tui.session_file.entries import UsageEntry
from pi_tui.session_file.store import SessionStore
from pi_tui.session_file.usage_totals import usage_totals
from tests.support.clocks import SteppedClock
from tests.support.openai_server import ErrorReply, OpenAIServer, StreamReply, chunk, usage
from tests.support.waiting import until

START = 1_900_000_000.0
OPUS_PRICES = Prices(input=15, output=75, cache_read=1.5, cache_write=18.75)
PROMPT = 100_000
"""A prompt big enough that a refresh pays: 15% of a $1.73 miss, less $0.15, is over pi's $0.05."""


def reply(text: str, prompt: int = PROMPT, cached: int = 0) -> StreamReply:
    return StreamReply(
        [
            chunk(content=text),
            chunk(finish_reason="stop"),
            chunk(no_choices=True, usage=usage(prompt, 1 if text == "." else 5, cached)),
        ]
    )


def make_session(
    server: OpenAIServer, tmp_path: Path, clock: SteppedClock, mode: str = "idle", **model: Any
) -> AgentSession:
    config = ModelConfig(
        id="test-model",
        provider="loop",
        base_url=server.base_url,
        cost=OPUS_PRICES,
        prompt_cache=PromptCacheLifetimes(short=300),
        **model,
    )
    settings = Settings.model_validate({"cacheWarming": mode})
    return AgentSession(
        SessionConfig(
            store=SessionStore.create(str(tmp_path), tmp_path / "sessions"),
            resources=load_resources(tmp_path, settings=settings, home=tmp_path),
            model=config,
            api_key="sk-test",
            warming_clock=clock,
        )
    )


def warm_entries(session: AgentSession) -> list[UsageEntry]:
    return [e for e in session.store.entries if isinstance(e, UsageEntry) and e.kind == "cache_warm"]


async def next_refresh(server: OpenAIServer, clock: SteppedClock, seconds: float, requests: int) -> None:
    await until(lambda: clock.sleeping == 1, what="the warmer waits for its next refresh")
    clock.advance(seconds)
    await until(lambda: len(server.requests) == requests, what=f"{requests} requests")


def without_cap(body: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in body.items() if key != "max_completion_tokens"}


async def test_an_idle_session_is_refreshed_with_its_last_request_capped_at_one_token(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    clock = SteppedClock(START)
    session = make_session(openai_server, tmp_path, clock)
    events: list[AnyEvent] = []
    session.subscribe(events.append)
    openai_server.enqueue(reply("Hello."), reply(".", cached=PROMPT))
    await session.prompt("Hi")
    assert session.warmer.status.state == "scheduled"
    assert session.warmer.status.next_warm_at == START + 270  # 90% of five minutes
    await next_refresh(openai_server, clock, 269, requests=1)  # not yet due: nothing is sent
    await next_refresh(openai_server, clock, 1, requests=2)
    await until(lambda: warm_entries(session), what="the cache_warm entry")

    first, refresh = (request.body for request in openai_server.requests)
    assert without_cap(refresh) == without_cap(first)
    assert refresh["max_completion_tokens"] == 1 and first["max_completion_tokens"] > 1
    [entry] = warm_entries(session)
    line = json.loads(session.store.path.read_text(encoding="utf-8").splitlines()[-1])
    assert list(line) == ["type", "id", "parentId", "timestamp", "kind", "provider", "model", "usage"]
    assert (line["kind"], line["provider"], line["model"]) == ("cache_warm", "loop", "test-model")
    assert entry.usage.cache_read == PROMPT and entry.usage.output == 1
    assert entry.usage.cost.total == pytest.approx(PROMPT * 1.5 / 1e6 + 75 / 1e6)
    totals = usage_totals(session.store.entries)
    assert totals.cost == pytest.approx(PROMPT * 15 / 1e6 + 5 * 75 / 1e6 + entry.usage.cost.total)
    assert [e for e in events if isinstance(e, CacheWarmedEvent)] == [
        CacheWarmedEvent(entry.id, entry.usage.cost.total)
    ]
    # The model's context is untouched: the refresh is not a turn.
    assert len(session.agent.state.messages) == 3  # the prompt declaration, "Hi", "Hello."


async def test_idle_warming_stops_thirty_minutes_after_the_request(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    clock = SteppedClock(START)
    session = make_session(openai_server, tmp_path, clock)
    openai_server.enqueue(reply("Hello."), *(reply(".", cached=PROMPT) for _ in range(8)))
    await session.prompt("Hi")
    for n in range(6):  # at 4:30, 9:00, … 27:00
        await next_refresh(openai_server, clock, 270, requests=2 + n)
    await until(lambda: len(warm_entries(session)) == 6, what="six refreshes")
    await until(lambda: session.warmer.status.state == "inactive", what="warming stopped")
    assert session.warmer.status.reason == "30-minute idle safety limit reached"
    clock.advance(3600)
    await asyncio.sleep(0.05)
    assert len(openai_server.requests) == 7


async def test_no_refresh_when_it_would_not_pay_or_warming_is_off_or_streaming_only(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    clock = SteppedClock(START)
    small = make_session(openai_server, tmp_path / "small", clock)
    openai_server.enqueue(reply("Hello.", prompt=2_000))
    await small.prompt("Hi")
    clock.advance(270)
    await until(lambda: small.warmer.status.state == "inactive", what="the small session's warmer stops")
    assert small.warmer.status.reason == "expected savings below threshold"
    for mode, reason in (("off", "cache warming disabled"), ("streaming", "agent run settled")):
        session = make_session(openai_server, tmp_path / mode, clock, mode=mode)
        openai_server.enqueue(reply("Hello."))
        await session.prompt("Hi")
        assert session.warmer.status.state == "inactive"
        assert session.warmer.status.reason == reason
    clock.advance(3600)
    await asyncio.sleep(0.05)
    assert len(openai_server.requests) == 3


async def test_a_rejected_refresh_turns_warming_off_for_the_session_with_one_notice(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    clock = SteppedClock(START)
    session = make_session(openai_server, tmp_path, clock)
    events: list[AnyEvent] = []
    session.subscribe(events.append)
    openai_server.enqueue(
        reply("Hello."), ErrorReply(400, {"error": {"message": "max_tokens too small"}}), reply("Again.")
    )
    await session.prompt("Hi")
    await next_refresh(openai_server, clock, 270, requests=2)
    await until(lambda: session.warmer.status.state == "inactive", what="warming off")
    notices = [e.text for e in events if isinstance(e, ProviderNoticeEvent)]
    assert len(notices) == 1 and "cache warming off for this session" in notices[0]
    assert "max_tokens too small" in notices[0]
    assert not warm_entries(session)
    await session.prompt("Still there?")  # a new request does not start it again
    assert session.warmer.status.state == "inactive"
    clock.advance(3600)
    await asyncio.sleep(0.05)
    assert len(openai_server.requests) == 3


async def test_esc_cancels_a_refresh_in_flight_and_nothing_is_recorded(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    clock = SteppedClock(START)
    session = make_session(openai_server, tmp_path, clock)
    openai_server.enqueue(reply("Hello."), StreamReply([chunk(content=".")], hold_headers=True))
    await session.prompt("Hi")
    await next_refresh(openai_server, clock, 270, requests=2)
    assert session.warmer.status.state == "refreshing"
    session.abort()
    assert session.warmer.status.state == "inactive"
    await until(openai_server.client_closed.is_set, what="the refresh's connection closed")
    await asyncio.sleep(0.05)
    assert not warm_entries(session)


async def test_a_new_turn_replaces_the_run_and_a_changed_context_stops_it(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    clock = SteppedClock(START)
    session = make_session(openai_server, tmp_path, clock)
    openai_server.enqueue(reply("Hello."), reply("Again."))
    await session.prompt("Hi")
    clock.advance(100)
    await session.prompt("More")
    assert session.warmer.status.next_warm_at == START + 100 + 270
    session.agent.state.messages = session.agent.state.messages[:1]  # as a tree move or compaction does
    clock.advance(270)
    await until(lambda: session.warmer.status.state == "inactive", what="warming stops")
    assert session.warmer.status.reason == "conversation context changed"
    assert len(openai_server.requests) == 2


def test_default_lifetimes_per_dialect_follow_pis_catalog() -> None:
    anthropic = ModelConfig(
        id="claude", provider="anthropic", api="anthropic-messages", base_url="https://api.anthropic.com"
    )
    openai = ModelConfig(id="gpt", provider="openai")
    local = ModelConfig(id="qwen", provider="llama", base_url="http://127.0.0.1:8080/v1")
    declared = local.model_copy(update={"prompt_cache": PromptCacheLifetimes(short=120)})
    assert prompt_cache_ttl_s(anthropic, "short") == 300 and prompt_cache_ttl_s(anthropic, "long") == 3600
    assert prompt_cache_ttl_s(anthropic, "none") is None
    assert prompt_cache_ttl_s(openai, "short") is None
    assert declared_lifetimes(openai)[2] == "automatic cache, lifetime not published"
    assert prompt_cache_ttl_s(local, "short") is None
    assert prompt_cache_ttl_s(declared, "short") == 120  # models.json always wins


def test_the_decision_is_pis_arithmetic() -> None:
    model = ModelConfig(id="m", cost=OPUS_PRICES)
    idle = evaluate_warming(model, PROMPT, "idle")
    assert idle.miss_cost == pytest.approx(PROMPT * (18.75 - 1.5) / 1e6)
    assert idle.warm_cost == pytest.approx(PROMPT * 1.5 / 1e6 + 75 / 1e6)
    assert idle.expected_savings == pytest.approx(0.15 * idle.miss_cost - idle.warm_cost)
    assert idle.action == "warm"
    assert evaluate_warming(model, 20_000, "idle").action == "stop"
    assert evaluate_warming(model, 20_000, "streaming").action == "warm"
    assert not evaluate_warming(ModelConfig(id="free"), PROMPT, "idle").economics_available


async def test_the_clock_read_from_the_file(openai_server: OpenAIServer, tmp_path: Path) -> None:
    clock = SteppedClock(START)
    session = make_session(openai_server, tmp_path, clock)
    openai_server.enqueue(reply("Hello."))
    await session.prompt("Hi")
    session.abort()
    sent = next(m for m in reversed(session.agent.state.messages) if m.role == "assistant").timestamp / 1000
    settings = session.resources.settings
    state = cache_clock(session.store.get_branch(), session.model, settings, now=sent + 72.5)
    assert state.warm and state.expires_at == sent + 300
    assert state.next_refresh_at == sent + 270
    line = cache_clock_line(state)
    assert line.startswith("warm, expires in 3:47 · next refresh at ")
    assert "costs $0.1501, protects $1.7250 (100,000 tokens re-written on a miss)" in line
    cold = cache_clock(session.store.get_branch(), session.model, settings, now=sent + 400)
    assert cache_clock_line(cold) == "cold since 1:40 ago · no refresh: expired"


async def test_a_hidden_message_leaves_the_next_request_and_undo_brings_back_the_same_bytes(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    clock = SteppedClock(START)
    session = make_session(openai_server, tmp_path, clock, mode="off")
    openai_server.enqueue(reply("Hello."), reply("Again."), reply("Once more."), reply("Last."))
    await session.prompt("Remember the word OCTARINE")
    await session.prompt("Next")
    user_id = next(
        entry_id
        for entry_id, message in zip(
            session.store.build_context().entry_ids, session.store.build_context().messages, strict=True
        )
        if message.role == "user"
    )
    preview = session.plan_context_edit(user_id, "note")
    assert preview == "a note needs some text"
    preview = session.plan_context_edit(user_id, "hide")
    assert not isinstance(preview, str)
    assert "OCTARINE" in preview.lost_text and preview.saved_per_turn > 0
    assert preview.extra_cost is not None and preview.extra_cost > 0  # re-written once at the write price
    assert await session.apply_context_edit(preview) is None
    await session.prompt("Again")
    assert "OCTARINE" not in json.dumps(openai_server.requests[2].body)
    undo = session.plan_context_edit(user_id, "restore")
    assert not isinstance(undo, str) and "OCTARINE" in undo.lost_text
    assert await session.apply_context_edit(undo) is None
    await session.prompt("Again")
    restored, hidden = openai_server.requests[3].body, openai_server.requests[2].body
    assert "OCTARINE" in json.dumps(restored)
    # The restored message goes as it went before the edit: the prefix up to it is byte-identical.
    before_edit = openai_server.requests[1].body["messages"]
    assert restored["messages"][: len(before_edit)] == before_edit
    assert hidden["messages"] != restored["messages"]


async def test_a_failed_request_is_not_refreshed(openai_server: OpenAIServer, tmp_path: Path) -> None:
    clock = SteppedClock(START)
    session = make_session(openai_server, tmp_path, clock)
    openai_server.enqueue(ErrorReply(400, {"error": {"message": "bad request"}}))
    await session.prompt("Hi")
    assert session.warmer.status.state == "inactive"
    assert session.warmer.status.reason == "the last request failed"
    clock.advance(3600)
    await asyncio.sleep(0.05)
    assert len(openai_server.requests) == 1
