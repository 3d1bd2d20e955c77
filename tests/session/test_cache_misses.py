"""pi 1.6's cache-miss notices (`showCacheMissNotices`): pi's arithmetic over handmade entries (noise
floor, threshold, idle and model-switch labels, compaction reset, refreshes), and the one line a real
session emits against the loopback server only when the setting is on."""

from __future__ import annotations

from pathlib import Path

from pi_tui.ai.messages import AssistantMessage, Cost, Usage
from pi_tui.context.cache_misses import cache_misses
from pi_tui.session.session_events import AnyEvent, CacheMissEvent
from pi_tui.session_file.entries import CompactionEntry, MessageEntry, SessionEntry, UsageEntry
from tests.session.test_cache_warming import START, make_session, reply
from tests.support.clocks import SteppedClock
from tests.support.openai_server import OpenAIServer

PRICE = {"input": 3.0, "read": 0.3}


def turn(entry_id: str, at_s: float, prompt: int, cached: int, model: str = "m") -> MessageEntry:
    paid = prompt - cached
    cost = Cost(input=paid * PRICE["input"] / 1e6, cache_read=cached * PRICE["read"] / 1e6)
    usage = Usage(input=paid, cache_read=cached, cost=cost)
    message = AssistantMessage(provider="p", model=model, usage=usage, timestamp=int(at_s * 1000))
    return MessageEntry(id=entry_id, parent_id=None, timestamp="2026-12-02T10:00:00.000Z", message=message)


def read_price(provider: str, model: str) -> float:
    return PRICE["read"]


def misses(entries: list[SessionEntry]) -> dict[str, str]:
    return {
        key: miss.notice() for key, miss in cache_misses(entries, read_price).items() if miss.worth_a_notice()
    }


def test_pis_arithmetic_labels_and_threshold() -> None:
    entries: list[SessionEntry] = [
        turn("a", 0, 50_000, 0),
        turn("b", 60, 51_000, 50_000),  # a hit: nothing
        turn("c", 120, 52_000, 50_200),  # 800 tokens: breakpoint noise
        turn("d", 600, 53_000, 0),  # 52,000 re-billed after 8 idle minutes
        turn("e", 660, 54_000, 0, model="other"),  # another model re-bills everything
        turn("f", 700, 56_000, 52_000),  # 2,000 re-billed: under 20k and $0.10, no notice
    ]
    found = cache_misses(entries, read_price)
    assert set(found) == {"d", "e", "f"}
    assert found["d"].missed_tokens == 52_000
    assert found["d"].missed_cost == 52_000 * (3.0 - 0.3) / 1e6
    assert misses(entries) == {
        "d": "Cache miss after 8m idle: 52k tokens re-billed (~$0.14)",
        "e": "Cache miss after model switch: 53k tokens re-billed (~$0.14)",
    }


def test_a_compaction_resets_and_a_refresh_counts_as_the_previous_request() -> None:
    compaction = CompactionEntry(
        id="k",
        parent_id=None,
        timestamp="2026-12-02T10:05:00.000Z",
        summary="s",
        first_kept_entry_id="a",
        tokens_before=1,
    )
    warm = UsageEntry(
        id="w",
        parent_id=None,
        timestamp="2026-12-02T10:00:00.000Z",
        kind="cache_warm",
        provider="p",
        model="m",
        usage=Usage(cache_read=60_000, output=1),
    )
    entries: list[SessionEntry] = [turn("a", 0, 60_000, 0), compaction, turn("b", 10, 30_000, 0)]
    assert cache_misses(entries, read_price) == {}
    # Without caching ever reported, a cold turn means nothing; a refresh reports it.
    assert cache_misses([turn("a", 0, 60_000, 0), turn("b", 10, 60_000, 0)], read_price) == {}
    assert set(cache_misses([turn("a", 0, 60_000, 0), warm, turn("b", 10, 60_000, 0)], read_price)) == {"b"}


async def test_the_session_says_a_costly_miss_once_and_only_when_asked(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    for shown in (True, False):
        session = make_session(openai_server, tmp_path / str(shown), SteppedClock(START), mode="off")
        session.resources.settings.show_cache_miss_notices = shown
        events: list[AnyEvent] = []
        session.subscribe(events.append)
        openai_server.enqueue(
            reply("One.", prompt=100_000),
            reply("Two.", prompt=100_500, cached=100_000),
            reply("Three.", prompt=101_000),
        )
        for text in ("one", "two", "three"):
            await session.prompt(text)
        notices = [event.text for event in events if isinstance(event, CacheMissEvent)]
        # 100,500 tokens: pi rounds half up (JavaScript's Math.round), so 101k as pi prints it.
        assert notices == (["Cache miss: 101k tokens re-billed (~$1.36)"] if shown else [])
