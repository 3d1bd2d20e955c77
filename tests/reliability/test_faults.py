"""Fault injection through the whole stack (docs/reliability.md, section 1).

Each test serves one fault from the loopback server to a session built as the front ends build it (real
openai client, real session file) and checks four things: the right path ran (retry, fallback,
compaction or none, seen in the events and the server's request count), the user was told (the error
or retry notice in the session's events), the session file is whole and consistent (`check_transcript`),
and the next prompt works and sends nothing that failed (`check_wire`). The last tests run the same
faults headless through `pi-tui -p`.
"""

from __future__ import annotations

import asyncio
import io
import re
import sys
from typing import Any

import pytest

from pi_tui import cli
from pi_tui.ai.messages import ToolResultMessage
from pi_tui.config.paths import session_dir_for_cwd
from pi_tui.session.session_events import (
    AutoRetryEndEvent,
    AutoRetryStartEvent,
    CompactionEndEvent,
    CompactionStartEvent,
    ModelFallbackEvent,
)
from pi_tui.session_file.entries import CompactionEntry, ModelChangeEntry
from pi_tui.session_file.store import SessionStore
from tests.reliability.fault_fixtures import (
    FAST_RETRY,
    FaultRig,
    check_transcript,
    check_wire,
    fault_rig,
    stored_replies,
    user_texts,
)
from tests.support import faults
from tests.support.openai_server import Reply, StreamReply, chunk, text_reply

__all__ = ["fault_rig"]

QUESTION = "what is in the notes?"
NEXT = "and the next question"
DUPLICATE_CALLS = [("call_a", "read", '{"path": "a.txt"}'), ("call_b", "read", '{"path": "b.txt"}')]


async def next_prompt_works(rig: FaultRig, prompts: list[str]) -> None:
    """A good reply to one more prompt; the request for it replays nothing that failed."""
    rig.server.enqueue(text_reply("the next answer"))
    await rig.session.prompt(NEXT)
    assert rig.session.last_assistant_text() == "the next answer"
    failed = [reply for reply in rig.replies() if reply.failed]
    check_wire(rig.server.requests[-1].body, failed)
    check_transcript(rig, [*prompts, NEXT])


def retry_notices(rig: FaultRig) -> list[tuple[int, int, str]]:
    return [(event.attempt, event.delay_ms, event.error_message) for event in rig.of(AutoRetryStartEvent)]


def same_input_every_time(rig: FaultRig) -> None:
    bodies = [request.body["messages"] for request in rig.server.requests]
    assert all(body == bodies[0] for body in bodies)


# --- transient HTTP errors: retried with the same input -------------------------------------------


async def test_429_without_retry_after_waits_the_base_delay(fault_rig: FaultRig) -> None:
    fault_rig.configure()
    fault_rig.server.enqueue(faults.rate_limited(), text_reply("answer after the limit"))

    await fault_rig.session.prompt(QUESTION)

    assert fault_rig.server.faults_served == ["429"]
    assert retry_notices(fault_rig) == [(1, 5, f"429 {faults.RATE_LIMIT_TEXT}")]
    assert fault_rig.of(AutoRetryEndEvent) == [AutoRetryEndEvent(success=True, attempt=1)]
    assert fault_rig.session.last_assistant_text() == "answer after the limit"
    same_input_every_time(fault_rig)
    check_transcript(fault_rig, [QUESTION])
    await next_prompt_works(fault_rig, [QUESTION])


async def test_429_with_retry_after_waits_as_asked_up_to_the_cap(fault_rig: FaultRig) -> None:
    fault_rig.configure()
    fault_rig.server.enqueue(
        faults.rate_limited(0.03), faults.rate_limited(30), text_reply("answer after two limits")
    )

    await fault_rig.session.prompt(QUESTION)

    assert fault_rig.server.faults_served == ["429 retry-after", "429 retry-after"]
    # 30 ms as the server asked; 30 s is more than maxDelayMs (100 ms), which wins.
    assert [delay for _, delay, _ in retry_notices(fault_rig)] == [30, 100]
    assert fault_rig.session.last_assistant_text() == "answer after two limits"
    same_input_every_time(fault_rig)
    await next_prompt_works(fault_rig, [QUESTION])


@pytest.mark.parametrize("status", [500, 502, 503])
async def test_server_errors_are_retried(fault_rig: FaultRig, status: int) -> None:
    fault_rig.configure()
    fault_rig.server.enqueue(faults.server_error(status), text_reply("answer after the outage"))

    await fault_rig.session.prompt(QUESTION)

    assert fault_rig.server.faults_served == [str(status)]
    assert retry_notices(fault_rig) == [(1, 5, f"{status} {faults.SERVER_ERROR_TEXTS[status]}")]
    assert fault_rig.session.last_assistant_text() == "answer after the outage"
    assert fault_rig.shown_errors() == [f"{status} {faults.SERVER_ERROR_TEXTS[status]}"]
    same_input_every_time(fault_rig)
    await next_prompt_works(fault_rig, [QUESTION])


async def test_server_errors_beyond_the_retries_fall_back_to_the_next_model(fault_rig: FaultRig) -> None:
    fault_rig.configure(models=("primary", "backup"), fallbackModels=["local/backup"])
    fault_rig.server.enqueue(*[faults.server_error(502)] * 3, text_reply("answer from the backup"))

    await fault_rig.session.prompt(QUESTION)

    assert len(fault_rig.server.faults_served) == 3
    models = [request.body["model"] for request in fault_rig.server.requests]
    assert models == ["primary", "primary", "primary", "backup"]
    assert [notice[0] for notice in retry_notices(fault_rig)] == [1, 2]
    text = f"502 {faults.SERVER_ERROR_TEXTS[502]}"
    assert fault_rig.of(ModelFallbackEvent) == [ModelFallbackEvent("local/primary", "local/backup", text)]
    assert fault_rig.session.last_assistant_text() == "answer from the backup"
    same_input_every_time(fault_rig)
    store = check_transcript(fault_rig, [QUESTION])
    changes = [entry.model_id for entry in store.entries if isinstance(entry, ModelChangeEntry)]
    assert changes == ["primary", "backup"]
    await next_prompt_works(fault_rig, [QUESTION])
    assert fault_rig.server.requests[-1].body["model"] == "backup"


# --- errors a retry cannot fix: shown at once -----------------------------------------------------


@pytest.mark.parametrize(
    ("fault", "text"),
    [
        (faults.unauthorized(), f"401 {faults.UNAUTHORIZED_TEXT}"),
        (faults.model_not_found(), f"404 {faults.NOT_FOUND_TEXT}"),
    ],
    ids=["401", "404"],
)
async def test_client_errors_are_shown_not_retried(fault_rig: FaultRig, fault: Reply, text: str) -> None:
    # Neither a retry nor another model of the same provider mends a bad key or a wrong model id.
    fault_rig.configure(models=("primary", "backup"), fallbackModels=["local/backup"])
    fault_rig.server.enqueue(fault)

    await fault_rig.session.prompt(QUESTION)

    assert len(fault_rig.server.requests) == 1 and len(fault_rig.server.faults_served) == 1
    assert fault_rig.of(AutoRetryStartEvent) == [] and fault_rig.of(ModelFallbackEvent) == []
    assert fault_rig.shown_errors() == [text]
    last = fault_rig.session.last_assistant_message()
    assert last is not None and last.error_message == text
    check_transcript(fault_rig, [QUESTION])
    await next_prompt_works(fault_rig, [QUESTION])


# --- context overflow: compacted, then the same turn once more ------------------------------------


async def test_overflow_compacts_and_continues_without_a_plain_retry(fault_rig: FaultRig) -> None:
    fault_rig.configure(compaction={"reserveTokens": 1000, "keepRecentTokens": 50})
    early = "EARLY-QUESTION " * 60
    fault_rig.server.enqueue(
        text_reply("EARLY-ANSWER " * 60),
        faults.context_overflow(),
        text_reply("## Original Request\nThe early question."),
        text_reply("answer after compaction"),
    )
    await fault_rig.session.prompt(early)

    await fault_rig.session.prompt(QUESTION)

    assert fault_rig.server.faults_served == ["overflow"]
    assert fault_rig.of(AutoRetryStartEvent) == []
    assert fault_rig.of(CompactionStartEvent) == [CompactionStartEvent("overflow")]
    [end] = fault_rig.of(CompactionEndEvent)
    assert (end.reason, end.will_retry, end.error_message) == ("overflow", True, None)
    assert end.result is not None
    assert fault_rig.shown_errors() == [f"400 {faults.OVERFLOW_TEXT}"]
    assert fault_rig.session.last_assistant_text() == "answer after compaction"
    continued = str(fault_rig.server.requests[3].body["messages"])
    assert "compacted into the following summary" in continued and "EARLY-QUESTION" not in continued
    store = check_transcript(fault_rig, [early, QUESTION])
    assert len([entry for entry in store.entries if isinstance(entry, CompactionEntry)]) == 1
    await next_prompt_works(fault_rig, [early, QUESTION])


# --- broken streams -------------------------------------------------------------------------------


CUT_TEXT = "an answer that never ends"
FIRST_DELTA = faults.first_delta_bytes(CUT_TEXT)


@pytest.mark.parametrize(
    "after_bytes",
    [0, 20, FIRST_DELTA, FIRST_DELTA + 20],
    ids=["no-byte", "mid-line", "one-delta", "mid-second"],
)
async def test_stream_cut_mid_sse_is_retried(fault_rig: FaultRig, after_bytes: int) -> None:
    fault_rig.configure()
    fault_rig.server.enqueue(faults.cut_stream(CUT_TEXT, after_bytes), text_reply("whole"))

    await fault_rig.session.prompt(QUESTION)

    assert fault_rig.server.faults_served == ["cut"]
    assert retry_notices(fault_rig) == [(1, 5, "Connection error.")]
    assert fault_rig.session.last_assistant_text() == "whole"
    [failed] = [reply for reply in fault_rig.replies() if reply.failed]
    # What arrived whole before the cut is kept in the failed reply (and never replayed).
    assert failed.text == ("" if after_bytes < FIRST_DELTA else CUT_TEXT[: len(CUT_TEXT) // 2])
    same_input_every_time(fault_rig)
    await next_prompt_works(fault_rig, [QUESTION])


async def test_stream_cut_inside_a_tool_call_leaves_no_orphan_call(fault_rig: FaultRig) -> None:
    fault_rig.configure()
    (fault_rig.cwd / "notes.txt").write_text("the notes say hello\n")
    fault_rig.server.enqueue(
        faults.cut_tool_call("call_cut", "read", '{"path": "notes.txt"}'),
        StreamReply(
            [
                *faults.tool_call_chunks("call_ok", "read", '{"path": "notes.txt"}'),
                chunk(finish_reason="tool_calls"),
            ]
        ),
        text_reply("the notes say hello"),
    )

    await fault_rig.session.prompt(QUESTION)

    assert fault_rig.server.faults_served == ["cut"]
    assert retry_notices(fault_rig) == [(1, 5, "Connection error.")]
    [failed] = [reply for reply in fault_rig.replies() if reply.failed]
    assert [call.id for call in failed.tool_calls] == ["call_cut"]
    # The cut call was never run; the retried one was, once.
    results = [
        message
        for message in fault_rig.session.agent.state.messages
        if isinstance(message, ToolResultMessage)
    ]
    assert [(result.tool_call_id, result.is_error) for result in results] == [("call_ok", False)]
    assert "call_cut" not in str(fault_rig.server.requests[2].body)
    check_wire(fault_rig.server.requests[2].body, [failed])
    await next_prompt_works(fault_rig, [QUESTION])


@pytest.mark.parametrize(
    "stall",
    [faults.stalled_stream("a stalled answer"), faults.stalled_headers()],
    ids=["mid-stream", "headers"],
)
async def test_stalled_stream_times_out_and_is_retried(fault_rig: FaultRig, stall: Reply) -> None:
    # `retry.provider.timeoutMs` bounds the wait for the server's next bytes (the SDK's own is 10 minutes).
    fault_rig.configure(retry={**FAST_RETRY, "provider": {"timeoutMs": 500}})
    fault_rig.server.enqueue(stall, text_reply("answer after the stall"))

    await fault_rig.session.prompt(QUESTION)

    assert fault_rig.server.faults_served == ["stall"]
    assert fault_rig.server.client_closed.is_set()  # the client gave up and hung up
    assert retry_notices(fault_rig) == [(1, 5, "Request timed out.")]
    assert fault_rig.session.last_assistant_text() == "answer after the stall"
    same_input_every_time(fault_rig)
    await next_prompt_works(fault_rig, [QUESTION])


async def test_sse_noise_is_skipped(fault_rig: FaultRig) -> None:
    fault_rig.configure()
    fault_rig.server.enqueue(faults.noisy_sse("an answer among keep-alives"))

    await fault_rig.session.prompt(QUESTION)

    assert fault_rig.server.faults_served == ["malformed"]
    assert fault_rig.shown_errors() == [] and len(fault_rig.server.requests) == 1
    assert fault_rig.session.last_assistant_text() == "an answer among keep-alives"
    check_transcript(fault_rig, [QUESTION])
    await next_prompt_works(fault_rig, [QUESTION])


async def test_malformed_json_line_ends_the_reply_with_a_clear_error(fault_rig: FaultRig) -> None:
    fault_rig.configure()
    fault_rig.server.enqueue(faults.malformed_json("half of it, then garbage"))

    await fault_rig.session.prompt(QUESTION)

    assert fault_rig.server.faults_served == ["malformed"]
    # Not a transient failure by pi's rules: shown, not retried.
    assert fault_rig.of(AutoRetryStartEvent) == [] and len(fault_rig.server.requests) == 1
    [error] = fault_rig.shown_errors()
    assert error.startswith("Malformed stream data from provider: ")
    check_transcript(fault_rig, [QUESTION])
    await next_prompt_works(fault_rig, [QUESTION])


async def test_error_object_inside_the_stream_is_retried(fault_rig: FaultRig) -> None:
    fault_rig.configure()
    fault_rig.server.enqueue(faults.stream_error("a reply that breaks off"), text_reply("whole"))

    await fault_rig.session.prompt(QUESTION)

    assert fault_rig.server.faults_served == ["stream-error"]
    assert retry_notices(fault_rig) == [(1, 5, "Provider returned error")]
    assert fault_rig.session.last_assistant_text() == "whole"
    same_input_every_time(fault_rig)
    await next_prompt_works(fault_rig, [QUESTION])


async def test_usage_only_final_chunk_is_counted(fault_rig: FaultRig) -> None:
    fault_rig.configure()
    fault_rig.server.enqueue(faults.usage_only_final("counted answer", 1234, 56))

    await fault_rig.session.prompt(QUESTION)

    assert fault_rig.server.faults_served == ["usage-only"]
    last = fault_rig.session.last_assistant_message()
    assert last is not None and last.stop_reason == "stop" and last.text == "counted answer"
    assert (last.usage.input, last.usage.output) == (1234, 56)
    store = check_transcript(fault_rig, [QUESTION])
    [stored] = stored_replies(store)
    assert (stored.usage.input, stored.usage.output) == (1234, 56)
    stats = fault_rig.session.session_stats()
    assert (stats.input_tokens, stats.output_tokens) == (1234, 56)
    assert stats.context_usage is not None and stats.context_usage.tokens == 1234 + 56
    await next_prompt_works(fault_rig, [QUESTION])


async def test_empty_choices_chunks_are_skipped(fault_rig: FaultRig) -> None:
    fault_rig.configure()
    fault_rig.server.enqueue(faults.empty_choices("an answer between empty chunks"))

    await fault_rig.session.prompt(QUESTION)

    assert fault_rig.server.faults_served == ["empty-choices"]
    assert fault_rig.shown_errors() == [] and len(fault_rig.server.requests) == 1
    assert fault_rig.session.last_assistant_text() == "an answer between empty chunks"
    check_transcript(fault_rig, [QUESTION])
    await next_prompt_works(fault_rig, [QUESTION])


async def test_tool_calls_sharing_an_index_are_kept_apart(fault_rig: FaultRig) -> None:
    fault_rig.configure()
    (fault_rig.cwd / "a.txt").write_text("alpha\n")
    (fault_rig.cwd / "b.txt").write_text("beta\n")
    fault_rig.server.enqueue(faults.duplicate_tool_indices(DUPLICATE_CALLS), text_reply("alpha and beta"))

    await fault_rig.session.prompt(QUESTION)

    assert fault_rig.server.faults_served == ["duplicate-index"]
    [calling, _] = fault_rig.replies()
    assert [(call.id, call.arguments) for call in calling.tool_calls] == [
        ("call_a", {"path": "a.txt"}),
        ("call_b", {"path": "b.txt"}),
    ]
    tool_messages = [m for m in fault_rig.server.requests[1].body["messages"] if m["role"] == "tool"]
    assert [(m["tool_call_id"], "alpha" in str(m), "beta" in str(m)) for m in tool_messages] == [
        ("call_a", True, False),
        ("call_b", False, True),
    ]
    check_wire(fault_rig.server.requests[1].body, [])
    await next_prompt_works(fault_rig, [QUESTION])


# --- the same faults headless: `pi-tui -p` ----------------------------------------------------------

EARLY = "EARLY-QUESTION " * 60
STALL_SETTINGS = {"retry": {**FAST_RETRY, "provider": {"timeoutMs": 500}}}
OVERFLOW_SETTINGS = {"compaction": {"reserveTokens": 1000, "keepRecentTokens": 50}}
ANSWER = "the headless answer"


def headless_cases() -> list[tuple[str, list[str], list[Reply], dict[str, Any]]]:
    """(fault, prompts, replies, settings); every case but the failing ones ends with ANSWER."""
    good = text_reply(ANSWER)
    return [
        ("429", [QUESTION], [faults.rate_limited(), good], {}),
        ("429 retry-after", [QUESTION], [faults.rate_limited(0.01), good], {}),
        ("500", [QUESTION], [faults.server_error(500), good], {}),
        ("502", [QUESTION], [faults.server_error(502), good], {}),
        ("503", [QUESTION], [faults.server_error(503), good], {}),
        ("401", [QUESTION], [faults.unauthorized()], {}),
        ("404", [QUESTION], [faults.model_not_found()], {}),
        (
            "overflow",
            [EARLY, QUESTION],
            [text_reply("EARLY-ANSWER " * 60), faults.context_overflow(), text_reply("## Summary"), good],
            OVERFLOW_SETTINGS,
        ),
        ("cut", [QUESTION], [faults.cut_stream(CUT_TEXT, 20), good], {}),
        ("stall", [QUESTION], [faults.stalled_stream("stalled"), good], STALL_SETTINGS),
        ("malformed", [QUESTION], [faults.noisy_sse(ANSWER)], {}),
        ("malformed json", [QUESTION], [faults.malformed_json("half, then garbage")], {}),
        ("stream-error", [QUESTION], [faults.stream_error("breaks off"), good], {}),
        ("usage-only", [QUESTION], [faults.usage_only_final(ANSWER, 100, 5)], {}),
        ("empty-choices", [QUESTION], [faults.empty_choices(ANSWER)], {}),
        ("duplicate-index", [QUESTION], [faults.duplicate_tool_indices(DUPLICATE_CALLS), good], {}),
    ]


FAILING = {
    "401": f"pi-tui: 401 {faults.UNAUTHORIZED_TEXT}",
    "404": f"pi-tui: 404 {faults.NOT_FOUND_TEXT}",
    "malformed json": "pi-tui: Malformed stream data from provider: ",
}
NO_FAILED_REPLY = {"malformed", "usage-only", "empty-choices", "duplicate-index"}
RETRIED = {"429", "429 retry-after", "500", "502", "503", "cut", "stall", "stream-error"}
"""Faults retried once: the wait is one stderr line."""


@pytest.mark.parametrize("case", headless_cases(), ids=lambda case: case[0])
async def test_headless_print_mode(
    fault_rig: FaultRig,
    case: tuple[str, list[str], list[Reply], dict[str, Any]],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    name, prompts, replies, settings = case
    fault_rig.configure(**settings)
    (fault_rig.cwd / "a.txt").write_text("alpha\n")
    (fault_rig.cwd / "b.txt").write_text("beta\n")
    fault_rig.server.enqueue(*replies)
    monkeypatch.chdir(fault_rig.cwd)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))

    # In a thread: the CLI runs its own event loop, the loopback server stays on this one.
    code = await asyncio.to_thread(cli.main, ["-p", *prompts, "--model", "local/primary"])

    out, err = capsys.readouterr()
    assert len(fault_rig.server.faults_served) == 1
    if name in FAILING:
        assert (code, out) == (1, "")
        [line] = err.splitlines()  # one clear line, no traceback
        assert line.startswith(FAILING[name]) if name == "malformed json" else line == FAILING[name]
    else:
        assert (code, out) == (0, f"{ANSWER}\n")
        waits = [
            re.fullmatch(r"pi-tui: .+; retrying in [\d.]+ s \(attempt 1 of \d+\)", line)
            for line in err.splitlines()
        ]
        assert len(waits) == (1 if name in RETRIED else 0) and all(waits), err
    [path] = session_dir_for_cwd(str(fault_rig.cwd)).glob("*.jsonl")
    store = SessionStore.open(path)
    assert store.diagnostics == [] and user_texts(store) == prompts
    # A failed reply is kept in the file for every fault that made one.
    assert any(reply.failed for reply in stored_replies(store)) == (name not in NO_FAILED_REPLY)
