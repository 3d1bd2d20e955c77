"""User `!cmd` / `!!cmd`: real subprocesses, the shared output pipeline, recording
now or after the running turn, cancellation, spilling, and what the model is sent."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from pi_tui.ai.abort import AbortSignal
from pi_tui.ai.messages import BashExecutionMessage
from pi_tui.session.session_events import AnyEvent, BashEndEvent, BashOutputEvent, BashStartEvent
from pi_tui.session.user_bash import UserBashOptions, execute_user_bash
from pi_tui.session.user_bash_runner import UserBashBusyError
from pi_tui.session_file.store import SessionStore
from tests.session.test_agent_session_controls import PLAIN, make_session, record, write_models
from tests.support.conversation import roles
from tests.support.openai_server import OpenAIServer, text_reply
from tests.support.waiting import until


async def test_output_is_sanitised_and_the_exit_code_kept(tmp_path: Path) -> None:
    message = await execute_user_bash(
        "printf 'a\\033[31mred\\033[0m\\r\\nb\\n'; exit 3", UserBashOptions(cwd=str(tmp_path))
    )
    assert message.output == "ared\nb\n"
    assert (message.exit_code, message.cancelled, message.truncated) == (3, False, False)
    assert message.full_output_path is None


async def test_large_output_is_tail_truncated_and_spilled_in_full(tmp_path: Path) -> None:
    spill = tmp_path / "spill"
    message = await execute_user_bash("seq 1 5000", UserBashOptions(cwd=str(tmp_path), spill_dir=spill))
    assert message.truncated and message.exit_code == 0
    assert message.output.startswith("3001\n") and message.output.endswith("4999\n5000")  # the last 2,000
    assert message.full_output_path is not None and Path(message.full_output_path).parent == spill
    assert Path(message.full_output_path).read_text() == "".join(f"{n}\n" for n in range(1, 5001))
    assert oct(os.stat(message.full_output_path).st_mode & 0o777) == "0o600"


async def test_a_preview_under_way_when_the_command_ends_is_finished(tmp_path: Path) -> None:
    """The preview ticks stop when the command ends; a preview being shown at that moment is finished,
    not cancelled half way (it used to be: the chat could keep a half-updated block)."""
    release = asyncio.Event()
    started: list[str] = []
    finished: list[str] = []

    async def slow_preview(text: str) -> None:
        started.append(text)
        if len(started) == 1:
            (tmp_path / "go").touch()  # the command ends only once this preview is under way
        else:
            release.set()
        await release.wait()
        finished.append(text)

    command = "echo one; while [ ! -e go ]; do sleep 0.01; done"
    await asyncio.wait_for(
        execute_user_bash(command, UserBashOptions(cwd=str(tmp_path)), on_output=slow_preview), timeout=10
    )
    await until(lambda: len(finished) == 2, what="both previews finished")
    assert sorted(finished) == sorted(started) == ["one\n", "one\n"]


async def test_cancel_kills_the_command(tmp_path: Path) -> None:
    signal = AbortSignal()
    previews: list[str] = []

    async def cancel_after_output(text: str) -> None:
        previews.append(text)
        if "ready" in text:
            signal.abort()

    message = await asyncio.wait_for(
        execute_user_bash(
            "echo ready; sleep 30",
            UserBashOptions(cwd=str(tmp_path)),
            signal=signal,
            on_output=cancel_after_output,
        ),
        timeout=10,
    )
    assert message.cancelled and message.exit_code is None
    assert message.output == "ready\n"
    assert previews and previews[0] == "ready\n"


async def test_missing_cwd_is_reported_in_the_output(tmp_path: Path) -> None:
    message = await execute_user_bash("true", UserBashOptions(cwd=str(tmp_path / "gone")))
    assert message.output.startswith("Working directory does not exist:")


async def test_idle_bang_is_recorded_and_sent_bang_bang_is_recorded_only(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    write_models(openai_server, PLAIN)
    session = make_session(tmp_path)
    events = record(session)

    shown = await session.user_bash("echo visible")
    hidden = await session.user_bash("echo secret", exclude_from_context=True)
    openai_server.enqueue(text_reply("ok"))
    await session.prompt("what did I run?")

    assert [type(event) for event in events[:6]] == [
        BashStartEvent,
        BashOutputEvent,
        BashEndEvent,
        BashStartEvent,
        BashOutputEvent,
        BashEndEvent,
    ]
    assert isinstance(events[2], BashEndEvent) and events[2].pending is False
    sent = openai_server.requests[0].body["messages"]
    texts = [part["text"] for message in sent[1:] for part in message["content"]]
    assert texts == ["Ran `echo visible`\n```\nvisible\n\n```", "what did I run?"]
    path = session.store.path
    assert path is not None
    stored = [
        entry.message
        for entry in SessionStore.open(path).entries
        if entry.type == "message" and isinstance(entry.message, BashExecutionMessage)
    ]
    assert stored == [shown, hidden]
    assert stored[1].exclude_from_context is True
    assert stored[1].to_json_obj()["excludeFromContext"] is True


async def test_bang_while_streaming_waits_for_the_next_prompt(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    write_models(openai_server, PLAIN)
    session = make_session(tmp_path)
    slow = text_reply("thinking about it", pieces=6)
    slow.delay_s = 0.05
    openai_server.enqueue(slow, text_reply("second"))
    started = asyncio.Event()
    session.subscribe(lambda event: started.set() if event.type == "message_update" else None)
    ends: list[AnyEvent] = []
    session.subscribe(lambda event: ends.append(event) if isinstance(event, BashEndEvent) else None)

    async def run_bash_mid_stream() -> None:
        await started.wait()
        await session.user_bash("echo during")

    await asyncio.gather(session.prompt("first"), run_bash_mid_stream())

    assert isinstance(ends[0], BashEndEvent) and ends[0].pending is True
    assert roles(session.agent.state.messages) == ["user", "assistant"]
    assert len(session.pending_bash_messages) == 1

    await session.prompt("second")

    assert roles(session.agent.state.messages) == ["user", "assistant", "bashExecution", "user", "assistant"]
    sent = openai_server.requests[1].body["messages"]
    assert sent[3]["content"][0]["text"] == "Ran `echo during`\n```\nduring\n\n```"
    assert session.pending_bash_messages == ()


async def test_one_command_at_a_time_and_abort_cancels(openai_server: OpenAIServer, tmp_path: Path) -> None:
    write_models(openai_server, PLAIN)
    session = make_session(tmp_path)
    started = asyncio.Event()
    session.subscribe(lambda event: started.set() if isinstance(event, BashStartEvent) else None)
    running = asyncio.create_task(session.user_bash("sleep 30"))
    await started.wait()
    assert session.is_bash_running

    with pytest.raises(UserBashBusyError):
        await session.user_bash("echo second")
    session.abort()
    message = await asyncio.wait_for(running, timeout=10)

    assert message.cancelled and message.exit_code is None
    assert session.agent.state.messages[-1] == message
