"""Esc leaves the chat answering at once, whatever was running: the text typed right after it reaches the
editor, no block goes on showing "running", and the next prompt is sent and answered.

Keys go in as a terminal sends them (`terminal_input`): a screen that has stopped handling messages then
shows as a wait that runs out, not as a Pilot call that never returns."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Static

from pi_tui.ai.scripted import ScriptedProvider, ScriptedReply, ScriptedToolCall
from pi_tui.config.settings import CompactionSettings, RetrySettings, Settings
from pi_tui.session.agent_session import AgentSession
from pi_tui.tui.widgets.message_blocks import NoticeBlock
from pi_tui.tui.widgets.prompt_area import PromptArea
from pi_tui.tui.widgets.tool_call_block import ToolCallBlock
from tests.support.openai_server import OpenAIServer, StreamReply, text_reply
from tests.support.waiting import until

from .chat_fixtures import make_chat_app, make_loopback_chat_app
from .pilot_helpers import settle, submit, terminal_input
from .screen_capture import screen_text

SIZE = (160, 48)
TICKER = "for i in $(seq 1 600); do echo tick $i; sleep 1; done"
"""A command printing a line a second for ten minutes: only an abort ends it within a test."""
TYPED_AFTER_ESC = "and now something else"
ANSWER = "answer after the abort"
SESSION_WORK = frozenset({"turn", "bash", "command"})
"""The chat screen's worker groups that run session work (prompts, `!` commands, slash commands)."""


def ticker_call(call_id: str) -> ScriptedToolCall:
    return ScriptedToolCall(name="bash", arguments={"command": TICKER}, id=call_id)


def tool_parts(pilot: Pilot[Any]) -> list[tuple[str, str]]:
    """(head, output) of every tool block on screen, `!` commands included (once composed)."""
    parts = [list(block.query(Static)) for block in pilot.app.screen.query(ToolCallBlock)]
    return [(str(statics[0].render()), str(statics[1].render())) for statics in parts if len(statics) > 1]


def session_work_ended(pilot: Pilot[Any], session: AgentSession) -> bool:
    busy = session.is_running or session.is_bash_running or session.is_compacting
    workers = [worker for worker in pilot.app.workers if worker.group in SESSION_WORK]
    return not busy and all(worker.is_finished for worker in workers)


async def escape_then_type_and_send(
    pilot: Pilot[Any],
    session: AgentSession,
    queue_answer: Callable[[str], None],
    shown_after_abort: str | None = None,
) -> None:
    """Esc, and type straight after it; once the aborted work has ended (and shows `shown_after_abort`),
    send what was typed."""
    terminal_input(pilot, "\x1b")
    terminal_input(pilot, TYPED_AFTER_ESC)
    editor = pilot.app.screen.query_one(PromptArea)
    await until(
        lambda: editor.text == TYPED_AFTER_ESC,
        pilot=pilot,
        what="the text typed after Esc to reach the editor",
    )
    await until(lambda: session_work_ended(pilot, session), pilot=pilot, what="the aborted work to end")
    await settle(pilot)
    assert not [head for head, _ in tool_parts(pilot) if "[running" in head]
    if shown_after_abort is not None:
        shown = f"{shown_after_abort!r} on screen"
        await until(lambda: shown_after_abort in screen_text(pilot.app), timeout=5, pilot=pilot, what=shown)
    queue_answer(ANSWER)
    terminal_input(pilot, "\r")
    await until(
        lambda: session.last_assistant_text() == ANSWER, pilot=pilot, what="the next prompt to be answered"
    )
    await settle(pilot)


def scripted_answer(provider: ScriptedProvider) -> Callable[[str], None]:
    return lambda text: provider.add(ScriptedReply(text=text))


def streamed_text(session: AgentSession) -> str:
    message = session.agent.state.streaming_message
    return "" if message is None else str(message.to_json_obj())


def last_prompt(provider: ScriptedProvider) -> object:
    message = provider.contexts[-1].messages[-1]
    return message.content[0].text if message.role == "user" else None  # type: ignore[union-attr]


async def test_escape_while_a_command_tool_runs(tmp_path: Path) -> None:
    app, session, provider = make_chat_app(tmp_path, [ScriptedReply(tool_calls=[ticker_call("tick")])])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        terminal_input(pilot, "run the ticker\r")
        await until(
            lambda: any("tick 1" in output for _, output in tool_parts(pilot)),
            pilot=pilot,
            what="the ticker's first line",
        )
        await escape_then_type_and_send(pilot, session, scripted_answer(provider), "Command aborted")
        assert last_prompt(provider) == TYPED_AFTER_ESC
        (head, output), *_ = tool_parts(pilot)
        assert "[error" in head and "Command aborted" in output
    # The abort is recorded with the call: a reopened session shows it too.
    results = [entry.message for entry in session.store.entries if entry.type == "message"]
    assert any("Command aborted" in str(message.to_json_obj()) for message in results)


async def test_escape_while_two_command_tools_run_in_parallel(tmp_path: Path) -> None:
    calls = [ticker_call("first"), ticker_call("second")]
    app, session, provider = make_chat_app(tmp_path, [ScriptedReply(tool_calls=calls)])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        terminal_input(pilot, "run two tickers\r")
        await until(
            lambda: sum("tick 1" in output for _, output in tool_parts(pilot)) == 2,
            pilot=pilot,
            what="both tickers' first lines",
        )
        await escape_then_type_and_send(pilot, session, scripted_answer(provider), "Command aborted")
        assert [("[error" in head, "Command aborted" in output) for head, output in tool_parts(pilot)] == [
            (True, True),
            (True, True),
        ]


async def test_escape_while_the_model_streams(tmp_path: Path) -> None:
    slow = ScriptedReply(text="word " * 2_000, chunk_size=5, delay_s=0.05)
    app, session, provider = make_chat_app(tmp_path, [slow])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        terminal_input(pilot, "write a lot\r")
        await until(lambda: "word word" in streamed_text(session), pilot=pilot, what="the reply to stream")
        await escape_then_type_and_send(pilot, session, scripted_answer(provider))
        assert last_prompt(provider) == TYPED_AFTER_ESC


async def test_escape_while_waiting_for_the_first_token(
    keep_alive_server: OpenAIServer, tmp_path: Path
) -> None:
    """The real client, and a server that has not even sent its headers yet."""
    keep_alive_server.enqueue(StreamReply([], hold_headers=True))
    app, runtime = make_loopback_chat_app(keep_alive_server, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        terminal_input(pilot, "are you there?\r")
        await until(lambda: keep_alive_server.requests, pilot=pilot, what="the request to reach the server")
        await escape_then_type_and_send(
            pilot, runtime.session, lambda text: keep_alive_server.enqueue(text_reply(text))
        )
        assert keep_alive_server.client_closed.is_set()


async def test_escape_during_a_retry_countdown(tmp_path: Path) -> None:
    settings = Settings(retry=RetrySettings(base_delay_ms=600_000, max_retries=2))
    app, session, provider = make_chat_app(
        tmp_path, [ScriptedReply(error="503 Service Unavailable")], settings=settings
    )
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        terminal_input(pilot, "hello\r")
        await until(
            lambda: any("Retrying (1/2)" in str(notice.render()) for notice in app.screen.query(NoticeBlock)),
            pilot=pilot,
            what="the retry countdown",
        )
        await escape_then_type_and_send(pilot, session, scripted_answer(provider))
        assert provider.calls == 2 and last_prompt(provider) == TYPED_AFTER_ESC


async def test_escape_during_a_compaction(tmp_path: Path) -> None:
    replies = [ScriptedReply(text="answer " * 400), ScriptedReply(text="answer two " * 300)]
    replies.append(ScriptedReply(text="## Goal\n" + "summary " * 2_000, chunk_size=5, delay_s=0.05))
    keep_one_turn = Settings(
        compaction=CompactionSettings(keep_recent_tokens=1_000)
    )  # something to summarise
    app, session, provider = make_chat_app(tmp_path, replies, settings=keep_one_turn)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await submit(pilot, "first " * 300)
        await submit(pilot, "second " * 300)
        terminal_input(pilot, "/compact\r")
        await until(lambda: session.is_compacting, pilot=pilot, what="the compaction to start")
        await escape_then_type_and_send(pilot, session, scripted_answer(provider))
        notices = [str(notice.render()) for notice in app.screen.query(NoticeBlock)]
        assert "Compaction cancelled" in notices
        assert not any(entry.type == "compaction" for entry in session.store.entries)


async def test_escape_while_a_user_command_runs(tmp_path: Path) -> None:
    app, session, provider = make_chat_app(tmp_path, [])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        terminal_input(pilot, f"!{TICKER}\r")
        await until(
            lambda: any("tick 1" in output for _, output in tool_parts(pilot)),
            pilot=pilot,
            what="the command's first line",
        )
        await escape_then_type_and_send(pilot, session, scripted_answer(provider))
        (head, _output), *_ = tool_parts(pilot)
        assert "[cancelled" in head
        assert last_prompt(provider) == TYPED_AFTER_ESC
