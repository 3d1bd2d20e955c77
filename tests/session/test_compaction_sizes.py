"""A compaction's figures, before → after, through a live session, the real openai client and the
loopback server: both sides are the whole request (system prompt and tools included), measured and
calibrated alike, and the figure after becomes the reported one once the next request reports."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pi_tui.ai import tokens
from pi_tui.config.settings import CompactionSettings, RetrySettings, Settings
from pi_tui.context.accounting.calibration import prefix_tokens, reported_prompt
from pi_tui.context.accounting.record import RequestRecord, messages_size, prefix_size
from pi_tui.session.agent_session import AgentSession
from pi_tui.session.compaction_records import list_compactions
from pi_tui.session.compaction_sizes import RequestRecords, ShownSize, request_prefix
from pi_tui.session.session_events import AnyEvent, CompactionEndEvent
from pi_tui.session_file.entries import CompactionEntry
from tests.session.test_agent_session_retry import make_session, write_models
from tests.support.openai_server import ErrorReply, OpenAIServer, text_reply

SETTINGS = Settings(
    # pi's two summary calls are scripted (the cut splits a turn).
    compaction=CompactionSettings(reserve_tokens=1000, keep_recent_tokens=50, strategy="serialize"),
    retry=RetrySettings(enabled=False),
)
OVERFLOW = {"error": {"message": "This model's maximum context length is 32000 tokens."}}


def messages_only(body: dict[str, Any]) -> int:
    """The server's count: its own tokenizer on the messages; the tool schemas it ignores."""
    return tokens.count(json.dumps(body["messages"]))


def compaction_of(session: AgentSession) -> CompactionEntry:
    [entry] = [entry for entry in session.store.entries if isinstance(entry, CompactionEntry)]
    return entry


def turns_after(session: AgentSession, entry: CompactionEntry) -> list[tuple[str, RequestRecord]]:
    records = RequestRecords(session.store)
    ids = [item.id for item in session.store.entries]
    found = []
    for entry_id in records.log.entry_ids:
        record = records.log.full(entry_id)
        if record is not None and record.kind == "turn" and ids.index(entry_id) > ids.index(entry.id):
            found.append((entry_id, record))
    return found


async def test_figures_cover_the_whole_request_and_the_next_report_corrects_the_after_one(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    write_models(openai_server, "primary")
    openai_server.count_prompt = messages_only
    openai_server.enqueue(
        text_reply("FIRST-ANSWER " * 80),
        text_reply("SECOND-ANSWER " * 80),
        # The cut falls inside the second turn: one summary of the history, one of the turn's start.
        text_reply("## Goal\nThe first question."),
        text_reply("## Original Request\nThe second question."),
        text_reply("third answer"),
    )
    session = make_session(tmp_path, SETTINGS)
    events: list[AnyEvent] = []
    session.subscribe(events.append)
    await session.prompt("FIRST-QUESTION " * 80)
    await session.prompt("SECOND-QUESTION " * 80)
    store = session.store
    leaf = store.leaf_id
    calibration = RequestRecords(store).calibration_at(leaf)
    assert calibration.basis == "per-kind" and calibration.prefix_ratio < 1  # the server ignores the tools
    prefix = request_prefix(session)
    context = store.build_context()
    fixed = prefix_size(session.model, prefix.system_prompt, prefix.tools)
    assert fixed > 1000  # system prompt and tool schemas are a substantial part of every request

    outcome = await session.compact()

    assert outcome.ok
    [end] = [event for event in events if isinstance(event, CompactionEndEvent)]
    assert end.result is not None and end.result.size == outcome.size
    before = calibration.request(fixed, messages_size(session.model, context.messages, context.entry_ids))
    assert outcome.size.before == before
    await session.prompt("third question")
    entry = compaction_of(session)
    [(record_id, sent)] = turns_after(session, entry)
    below = {item.id for item in store.entries[store.entries.index(entry) :]}
    compacted = [
        count for key, count in zip(sent.messages.keys, sent.messages.tokens, strict=True) if key not in below
    ]
    added = sent.messages.total() - sum(compacted)
    assert added > 0  # the third question
    # The size after is the request sent next, less its new question, as its record measures it.
    assert prefix_tokens(sent) == fixed
    assert outcome.size.after == calibration.request(fixed, sum(compacted))
    assert outcome.size.after - calibration.messages(sum(compacted)) >= calibration.prefix(fixed) - 1
    assert outcome.size.after < outcome.size.before

    [shown] = list_compactions(store)
    corrected = reported_prompt(sent) - RequestRecords(store).calibration_at(record_id).messages(added)
    assert shown.size == ShownSize(outcome.size.before, corrected, "reported")
    assert shown.to_json_obj()["tokensBefore"] == outcome.size.before
    assert shown.entry_tokens_before == entry.tokens_before == outcome.tokens_before


async def test_after_an_overflow_the_figure_after_is_the_reported_prompt_of_the_retry(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    write_models(openai_server, "primary")
    openai_server.count_prompt = messages_only
    openai_server.enqueue(
        text_reply("EARLY-ANSWER " * 60),
        ErrorReply(400, OVERFLOW),
        text_reply("## Original Request\nThe early question."),
        text_reply("recovered after compaction"),
    )
    session = make_session(tmp_path, SETTINGS)
    events: list[AnyEvent] = []
    session.subscribe(events.append)
    await session.prompt("EARLY-QUESTION " * 60)
    calibration = RequestRecords(session.store).calibration_at(session.store.leaf_id)

    await session.prompt("the late question")

    [end] = [event for event in events if isinstance(event, CompactionEndEvent)]
    assert end.reason == "overflow" and end.result is not None
    estimate = end.result.size
    entry = compaction_of(session)
    [(_, retry)] = turns_after(session, entry)
    # The retry sent the compacted context and nothing else: its record is what was estimated.
    assert estimate.after == calibration.request(prefix_tokens(retry), retry.messages.total())
    [shown] = list_compactions(session.store)
    assert shown.size == ShownSize(estimate.before, reported_prompt(retry), "reported")
    assert reported_prompt(retry) == messages_only(openai_server.requests[-1].body)
