"""Compaction inside a live AgentSession: manual, threshold after a run, overflow → compact → continue,
a second overflow reported, a re-compaction named as such; and a request record after every model call
(docs/compaction.md)."""

from __future__ import annotations

from pathlib import Path

from pi_tui.ai.scripted import ScriptedProvider, ScriptedReply, ScriptedUsage
from pi_tui.config.model_config import ModelConfig
from pi_tui.config.settings import CompactionSettings, RetrySettings, Settings
from pi_tui.context.accounting.record import REQUEST_CUSTOM_TYPE, parse_request_record
from pi_tui.context.compaction.triggers import OVERFLOW_RECOVERY_FAILED
from pi_tui.context.resources import load_resources
from pi_tui.session.agent_session import AgentSession, SessionConfig
from pi_tui.session.session_events import AnyEvent, CompactionEndEvent, CompactionStartEvent
from pi_tui.session_file.entries import CompactionEntry, CustomEntry
from pi_tui.session_file.store import SessionStore

MODEL = ModelConfig(id="m", provider="scripted", context_window=4000)
SMALL = CompactionSettings(reserve_tokens=1000, keep_recent_tokens=150)
SERIALISED = CompactionSettings(enabled=False, keep_recent_tokens=150, strategy="serialize")
"""Manual only, written by pi's serialising calls (what these tests read)."""
OVERFLOW = "prompt is too long: 5000 tokens > 4000 maximum"


def make_session(
    tmp_path: Path, provider: ScriptedProvider, compaction: CompactionSettings = SMALL
) -> AgentSession:
    settings = Settings(compaction=compaction, retry=RetrySettings(enabled=False))
    return AgentSession(
        SessionConfig(
            store=SessionStore.create(str(tmp_path), tmp_path / "sessions"),
            resources=load_resources(tmp_path, settings=settings, home=tmp_path, include_builtin=False),
            model=MODEL,
            api_key="unused",
            stream_fn=provider,
        )
    )


def events_of(session: AgentSession) -> list[AnyEvent]:
    events: list[AnyEvent] = []
    session.subscribe(events.append)
    return events


def summary_reply(text: str = "## Goal\nKeep going.") -> ScriptedReply:
    return ScriptedReply(text=text, usage=ScriptedUsage(input=500, output=20))


def long_reply(words: int = 300) -> ScriptedReply:
    return ScriptedReply(text="detail " * words, usage=ScriptedUsage(input=100, output=50))


async def test_manual_compact_summarises_and_rebuilds_state(tmp_path: Path) -> None:
    provider = ScriptedProvider([long_reply(), long_reply(), summary_reply(), summary_reply("prefix")])
    session = make_session(tmp_path, provider, SERIALISED)
    events = events_of(session)
    await session.prompt("first " * 200)
    await session.prompt("second " * 200)

    outcome = await session.compact("focus on the details")

    assert outcome.entry_id is not None
    summary_request = provider.contexts[2].messages[0]
    assert "Additional focus: focus on the details" in str(summary_request.to_json_obj())
    assert [type(event) for event in events[-2:]] == [CompactionStartEvent, CompactionEndEvent]
    end = events[-1]
    assert isinstance(end, CompactionEndEvent) and end.result is not None and end.reason == "manual"
    # The compaction's prompt checkpoint (pi 1.6's `systemMessage`) leads, then the summary.
    assert [message.role for message in session.agent.state.messages[:2]] == ["system", "compactionSummary"]
    assert isinstance(session.store.entries[-1], CompactionEntry)


async def test_a_recompaction_names_the_compaction_it_redoes(tmp_path: Path) -> None:
    provider = ScriptedProvider([long_reply(), long_reply(), *[summary_reply()] * 4])
    session = make_session(tmp_path, provider, SERIALISED)
    await session.prompt("first " * 200)
    await session.prompt("second " * 200)
    first = await session.compact()
    assert first.entry_id is not None
    events = events_of(session)

    again = await session.recompact(first.entry_id, "keep the numbers")

    assert again.entry_id is not None
    starts = [event for event in events if isinstance(event, CompactionStartEvent)]
    assert starts == [CompactionStartEvent("manual", recompacts=first.entry_id)]
    assert starts[0].to_json() == {
        "type": "compaction_start",
        "reason": "manual",
        "recompacts": first.entry_id,
    }
    assert CompactionStartEvent("manual").to_json() == {"type": "compaction_start", "reason": "manual"}


async def test_threshold_compaction_runs_after_the_run(tmp_path: Path) -> None:
    big_usage = ScriptedUsage(input=3200, output=100)
    provider = ScriptedProvider(
        [long_reply(), ScriptedReply(text="answer " * 300, usage=big_usage), summary_reply(), summary_reply()]
    )
    session = make_session(tmp_path, provider)
    events = events_of(session)

    await session.prompt("one " * 200)
    assert not any(isinstance(event, CompactionStartEvent) for event in events)
    await session.prompt("two " * 200)

    starts = [event for event in events if isinstance(event, CompactionStartEvent)]
    assert [event.reason for event in starts] == ["threshold"]
    assert any(isinstance(entry, CompactionEntry) for entry in session.store.entries)
    assert provider.calls >= 3


async def test_overflow_compacts_then_continues_once(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        [long_reply(), ScriptedReply(error=OVERFLOW), summary_reply(), ScriptedReply(text="recovered")]
    )
    session = make_session(
        tmp_path, provider, CompactionSettings(reserve_tokens=1000, keep_recent_tokens=150)
    )
    events = events_of(session)
    await session.prompt("setup " * 200)

    await session.prompt("now overflow")

    ends = [event for event in events if isinstance(event, CompactionEndEvent)]
    assert [(event.reason, event.will_retry, event.result is not None) for event in ends] == [
        ("overflow", True, True)
    ]
    assert session.last_assistant_text() == "recovered"
    continued = provider.contexts[-1].messages
    assert continued[0].role == "user" and "compacted" in str(continued[0].to_json_obj())
    assert all(getattr(message, "stop_reason", None) != "error" for message in continued)


async def test_second_overflow_in_a_row_is_reported_not_retried(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        [long_reply(), ScriptedReply(error=OVERFLOW), summary_reply(), ScriptedReply(error=OVERFLOW)]
    )
    session = make_session(tmp_path, provider)
    events = events_of(session)
    await session.prompt("setup " * 200)

    await session.prompt("overflow twice")

    ends = [event for event in events if isinstance(event, CompactionEndEvent)]
    assert ends[-1].error_message == OVERFLOW_RECOVERY_FAILED and not ends[-1].will_retry
    assert provider.calls == 4


async def test_every_model_call_leaves_a_request_record(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        [ScriptedReply(text="a", usage=ScriptedUsage(input=900, output=5, cache_read=700))] * 3
    )
    session = make_session(tmp_path, provider, CompactionSettings(enabled=False))
    for text in ("one", "two", "three"):
        await session.prompt(text)

    entries = session.store.entries
    records = [
        entry
        for entry in entries
        if isinstance(entry, CustomEntry) and entry.custom_type == REQUEST_CUSTOM_TYPE
    ]
    assert len(records) == 3
    first = parse_request_record(records[0].data)
    assert first is not None and first.usage is not None and first.usage.cache_read == 700
    # Each record follows the reply it measured.
    for record in records:
        parent = next(entry for entry in entries if entry.id == record.parent_id)
        assert parent.type == "message" and parent.to_json_obj()["message"]["role"] == "assistant"
    assert "one" not in str([record.data for record in records])


async def test_summary_calls_leave_request_records_of_their_own_kind(tmp_path: Path) -> None:
    provider = ScriptedProvider([long_reply(), long_reply(), summary_reply(), summary_reply("prefix")])
    session = make_session(tmp_path, provider, CompactionSettings(enabled=False, keep_recent_tokens=150))
    await session.prompt("first " * 200)
    await session.prompt("second " * 200)

    await session.compact()

    records = [
        parse_request_record(entry.data)
        for entry in session.store.entries
        if isinstance(entry, CustomEntry) and entry.custom_type == REQUEST_CUSTOM_TYPE
    ]
    kinds = sorted(record.kind for record in records if record is not None)
    assert kinds == ["summary", "summary", "turn", "turn"]
    summary = next(record for record in records if record is not None and record.kind == "summary")
    assert summary.usage is not None and summary.usage.output == 20
    assert "first first" not in str(
        [entry.to_json_obj() for entry in session.store.entries if entry.type == "custom"]
    )


async def test_confirm_setting_asks_before_automatic_compaction(tmp_path: Path) -> None:
    big_usage = ScriptedUsage(input=3200, output=100)
    replies = [
        long_reply(),
        ScriptedReply(text="answer " * 300, usage=big_usage),
        summary_reply(),
        summary_reply(),
    ]
    asked: list[tuple[str, int | None]] = []

    async def decline(reason: str, tokens: int | None) -> bool:
        asked.append((reason, tokens))
        return False

    session = make_session(
        tmp_path,
        ScriptedProvider(replies),
        CompactionSettings(reserve_tokens=1000, keep_recent_tokens=150, confirm=True),
    )
    session.confirm_compaction = decline
    events = events_of(session)
    await session.prompt("one " * 200)
    await session.prompt("two " * 200)

    assert [reason for reason, _ in asked] == ["threshold"]
    assert not any(isinstance(entry, CompactionEntry) for entry in session.store.entries)
    assert any(isinstance(event, CompactionEndEvent) and event.aborted for event in events)

    async def accept(reason: str, tokens: int | None) -> bool:
        return True

    session.confirm_compaction = accept
    outcome_events = events_of(session)
    await session.prompt("three")
    assert any(isinstance(event, CompactionEndEvent) and event.result is not None for event in outcome_events)
