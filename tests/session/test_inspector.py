from __future__ import annotations

import json
from pathlib import Path

from pi_tui.ai.messages import AssistantMessage, TextContent, Usage, UserMessage
from pi_tui.ai.openai_provider import stream_openai
from pi_tui.ai.stream import LlmContext, StreamOptions, ToolSpec
from pi_tui.config.model_config import ModelConfig
from pi_tui.config.settings import CompactionSettings, Settings
from pi_tui.context.accounting.measure import MeasureCache
from pi_tui.context.accounting.record import (
    REQUEST_CUSTOM_TYPE,
    RequestRecord,
    build_request_record,
    record_entry_data,
)
from pi_tui.context.system_prompt import PromptSegment, SystemPrompt
from pi_tui.session.inspector import InspectorCache, build_inspector_data, measure_prefix
from pi_tui.session_file.store import SessionStore
from tests.support.openai_server import OpenAIServer, StreamReply, chunk, usage

MODEL = ModelConfig(id="m1", provider="p", context_window=10_000)
PROMPT = SystemPrompt(
    (PromptSegment("base", "base", "You help."), PromptSegment("date-cwd", "date-cwd", "Today"))
)
TOOLS = [ToolSpec("read", "Read a file.", {"type": "object"})]


def answer(text: str, prompt_tokens: int, cached: int = 0) -> AssistantMessage:
    return AssistantMessage(
        content=[TextContent(text=text)],
        provider="p",
        model="m1",
        usage=Usage(
            input=prompt_tokens - cached, output=5, cache_read=cached, total_tokens=prompt_tokens + 5
        ),
        timestamp=5,
    )


def record_request(
    store: SessionStore, response: AssistantMessage, last: tuple[str, RequestRecord] | None
) -> tuple[str, RequestRecord]:
    """What the agent session does at each model call: measure the context it sent, store the record."""
    context = store.build_context()
    built = build_request_record(
        model=MODEL,
        system_prompt=PROMPT,
        tools=TOOLS,
        messages=context.messages,
        entry_ids=context.entry_ids,
        response=response,
        previous=last[1] if last else None,
        cache=MeasureCache(),
    )
    store.append_message(response)
    entry = store.append_custom(REQUEST_CUSTOM_TYPE, record_entry_data(built, last))
    return entry.id, built


def conversation(turns: int) -> SessionStore:
    store = SessionStore.in_memory("/tmp/project")
    last = None
    for turn in range(turns):
        store.append_message(UserMessage(content=f"question number {turn}", timestamp=turn))
        last = record_request(store, answer(f"answer {turn}", 100 + 20 * turn, cached=80 + 20 * turn), last)
    return store


def test_records_on_the_branch_come_back_with_no_drift() -> None:
    store = conversation(3)
    data = build_inspector_data(store, Settings(), MODEL)
    assert data.source == "records"
    assert [view.record.messages.keys for view in data.records][-1] == [
        entry.id for entry in store.get_branch() if entry.type == "message"
    ][:-1]
    assert data.records[0].drift is None
    later = [view.drift for view in data.records[1:]]
    assert [event.kind for event in later if event] == ["none", "none"]
    assert [event.cache_read for event in later if event] == [100, 120]
    assert data.prefix is not None and data.prefix.source == "record"
    assert data.prefix.tokens == measure_prefix(PROMPT, TOOLS).tokens
    geometry = data.geometry
    assert geometry.prefix_known and geometry.split.prefix == geometry.calibration.prefix(data.prefix.tokens)
    assert data.usage is not None and data.usage.tokens == 145 and data.usage.source == "usage"
    assert geometry.used_tokens == geometry.split.used == 145 and geometry.reported_tokens == 145


def test_record_limit_keeps_the_newest() -> None:
    store = conversation(4)
    data = build_inspector_data(store, Settings(), MODEL, record_limit=2)
    assert len(data.records) == 2
    assert data.records[-1].record.usage is not None and data.records[-1].record.usage.cache_read == 140


def test_incremental_update_equals_a_cold_build() -> None:
    store = conversation(3)
    cache = InspectorCache()
    build_inspector_data(store, Settings(), MODEL, cache=cache)
    store.append_message(UserMessage(content="one more", timestamp=9))
    warm = build_inspector_data(store, Settings(), MODEL, cache=cache)
    cold = build_inspector_data(store, Settings(), MODEL)
    assert warm == cold
    assert warm.usage is not None and warm.usage.trailing_tokens > 0


def test_leaf_override_and_branch_move_drift() -> None:
    store = conversation(2)
    first_user = store.get_branch()[0].id
    store.branch(first_user)
    store.append_message(UserMessage(content="something else entirely", timestamp=20))
    last_record = next(e for e in reversed(store.entries) if e.type == "custom")
    record_request(store, answer("other", 300), (last_record.id, _record_of(store, last_record.id)))
    data = build_inspector_data(store, Settings(), MODEL)
    assert [view.drift.kind if view.drift else None for view in data.records] == ["branch_move"]
    old = build_inspector_data(store, Settings(), MODEL, leaf_id=last_record.id)
    assert len(old.records) == 2


def _record_of(store: SessionStore, entry_id: str) -> RequestRecord:
    cache = InspectorCache()
    cache.sync(store, store.leaf_id)
    full = cache.records.full(entry_id)
    assert full is not None
    return full


def test_usage_is_unknown_after_compaction_and_the_boundary_is_computed() -> None:
    store = conversation(3)
    settings = Settings(compaction=CompactionSettings(keep_recent_tokens=8))
    before = build_inspector_data(store, settings, MODEL)
    assert before.geometry.boundary is not None
    split = before.geometry.split
    assert 0 < before.geometry.boundary.tokens_kept < split.summary + split.kept + split.new_tail
    kept = before.geometry.boundary.entry_id
    store.append_compaction("summary of the early turns", kept, 200)
    data = build_inspector_data(store, settings, MODEL)
    assert data.usage is not None and data.usage.tokens is None
    assert (
        data.geometry.split.summary > 0 and data.geometry.split.kept > 0 and data.geometry.split.new_tail == 0
    )
    assert data.geometry.boundary is None


def test_pi_session_without_records_is_an_estimate(pi_fixtures: Path) -> None:
    store = SessionStore.open(pi_fixtures / "pi-sessions" / "c-auto-compaction.jsonl", migrate=False)
    data = build_inspector_data(store, Settings(), MODEL)
    assert data.source == "estimate" and data.records == () and data.prefix is None
    assert not data.geometry.prefix_known
    context = store.build_context()
    assert data.message_count == len(context.messages)
    split = data.geometry.split
    assert split.summary > 0 and split.kept > 0 and split.new_tail > 0
    assert split.total == MODEL.context_window
    assert data.geometry.boundary is not None


async def test_cached_tokens_from_the_loopback_server_reach_the_record(openai_server: OpenAIServer) -> None:
    model = ModelConfig(id="test-model", provider="local", base_url=openai_server.base_url)
    openai_server.enqueue(
        StreamReply(
            [
                chunk(content="hi"),
                chunk(finish_reason="stop"),
                chunk(no_choices=True, usage=usage(120, 4, 96)),
            ]
        )
    )
    messages = [UserMessage(content="hello", timestamp=1)]
    options = StreamOptions(api_key="sk-test", max_retries=0, timeout_s=5.0)
    events = [
        event async for event in stream_openai(model, LlmContext("You help.", list(messages), TOOLS), options)
    ]
    reply = events[-1].message
    assert reply is not None
    built = build_request_record(
        model=model,
        system_prompt="You help.",
        tools=TOOLS,
        messages=messages,
        entry_ids=["u1"],
        response=reply,
    )
    assert built.usage is not None
    assert (built.usage.input, built.usage.cache_read, built.usage.output) == (24, 96, 4)
    sent = openai_server.requests[0].body
    assert "hello" in json.dumps(sent) and "hello" not in json.dumps(record_entry_data(built))


def test_given_prefix_is_used_before_any_record() -> None:
    store = SessionStore.in_memory("/tmp/project")
    store.append_message(UserMessage(content="hello", timestamp=1))
    prefix = measure_prefix(PROMPT, TOOLS)
    data = build_inspector_data(store, Settings(), MODEL, prefix=prefix, pending_text="and one more thing")
    assert data.source == "estimate" and data.prefix == prefix and prefix.source == "given"
    assert [segment.key for segment in prefix.segments] == ["base", "date-cwd", "read"]
    assert data.geometry.split.prefix == prefix.tokens > 0
    assert data.forecast.pending_tokens == 4  # and|one|more|thing
    assert data.forecast.next_request_tokens == data.geometry.used_tokens + 4


def test_cache_follows_branch_switches_and_several_new_entries() -> None:
    store = conversation(3)
    cache = InspectorCache()
    build_inspector_data(store, Settings(), MODEL, cache=cache)
    store.branch(store.get_branch()[1].id)
    assert build_inspector_data(store, Settings(), MODEL, cache=cache) == build_inspector_data(
        store, Settings(), MODEL
    )
    store.append_message(UserMessage(content="a", timestamp=1))
    store.append_message(answer("b", 50))
    store.append_message(UserMessage(content="c", timestamp=2))
    warm = build_inspector_data(store, Settings(), MODEL, cache=cache)
    assert warm == build_inspector_data(store, Settings(), MODEL)
    assert warm.message_count == 5


def test_ledger_context_matches_the_session_rebuild_for_every_pi_fixture(pi_fixtures: Path) -> None:
    for path in sorted((pi_fixtures / "pi-sessions").glob("*.jsonl")):
        store = SessionStore.open(path, migrate=False)
        cache = InspectorCache()
        build_inspector_data(store, Settings(), MODEL, cache=cache)
        context = store.build_context()
        expected = [entry_id or "compaction-summary" for entry_id in context.entry_ids]
        assert cache.ledger.keys == expected, path.name


def test_source_and_prefix_do_not_depend_on_how_many_records_are_listed() -> None:
    data = build_inspector_data(conversation(2), Settings(), MODEL, record_limit=0)
    assert data.records == () and data.source == "records"
    assert data.prefix is not None and data.prefix.source == "record"
