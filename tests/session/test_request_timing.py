"""A request's recorded time to first token counts from the moment it was sent: local start-up before
that (making the SDK client, importing, leasing a connection) is not the server's latency. Through a
live session, the real openai client and the loopback server."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from pi_tui.ai import provider_call
from pi_tui.config.settings import CompactionSettings, RetrySettings, Settings
from pi_tui.context.accounting.record import REQUEST_CUSTOM_TYPE, RequestRecord, parse_request_record
from pi_tui.session.agent_session import AgentSession
from pi_tui.session_file.entries import CustomEntry
from tests.session.test_agent_session_retry import make_session, write_models
from tests.support.openai_server import OpenAIServer, text_reply

SETUP_S = 1.5
"""Local start-up the client is slowed by: far more than a loopback reply takes."""
THINKING_S = 0.05
"""How long the server waits before its first byte."""


def records(session: AgentSession) -> list[RequestRecord]:
    found = []
    for entry in session.store.entries:
        if isinstance(entry, CustomEntry) and entry.custom_type == REQUEST_CUSTOM_TYPE:
            record = parse_request_record(entry.data)
            assert record is not None
            found.append(record)
    return found


def slow_down_client_set_up(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every request's SDK client takes `SETUP_S` to make, before anything is sent."""
    real = provider_call.make_client

    def slow(*args: Any, **kwargs: Any) -> Any:
        time.sleep(SETUP_S)
        return real(*args, **kwargs)

    monkeypatch.setattr(provider_call, "make_client", slow)


async def test_time_to_first_token_leaves_out_the_local_start_up(
    openai_server: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    slow_down_client_set_up(monkeypatch)
    write_models(openai_server, "primary")
    reply = text_reply("an answer")
    reply.first_byte_delay_s = THINKING_S
    openai_server.enqueue(reply)
    session = make_session(tmp_path, Settings(retry=RetrySettings(enabled=False)))
    started = time.monotonic()
    await session.prompt("hello")
    wall = time.monotonic() - started

    [record] = records(session)
    assert record.ttft_ms is not None and record.duration_ms is not None
    assert wall >= SETUP_S  # the prompt did wait for the slow start-up ...
    assert THINKING_S * 1000 <= record.ttft_ms < SETUP_S * 1000  # ... which its timings leave out
    assert record.ttft_ms <= record.duration_ms < SETUP_S * 1000


async def test_a_summary_call_is_timed_from_its_request_too(
    openai_server: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_models(openai_server, "primary")
    openai_server.enqueue(text_reply("first answer " * 200))
    settings = Settings(
        compaction=CompactionSettings(keep_recent_tokens=50), retry=RetrySettings(enabled=False)
    )
    session = make_session(tmp_path, settings)
    await session.prompt("first question " * 200)
    summary = text_reply("## Goal\nAnswer the question.")
    summary.first_byte_delay_s = THINKING_S
    openai_server.enqueue(summary)
    slow_down_client_set_up(monkeypatch)
    outcome = await session.compact()

    assert outcome.ok, outcome.error
    summaries = [record for record in records(session) if record.kind == "summary"]
    assert len(summaries) == 1 and summaries[0].ttft_ms is not None
    assert THINKING_S * 1000 <= summaries[0].ttft_ms < SETUP_S * 1000
