"""Headless runs end to end: the real CLI in a subprocess and the real openai client against the
loopback server, with sessions written to a private PI_TUI_HOME."""

from __future__ import annotations

import asyncio
import io
import json
import os
import sys
from pathlib import Path

import pytest

from pi_tui.config.paths import session_dir_for_cwd
from pi_tui.config.settings import MAX_TOOL_BYTES
from pi_tui.config.settings_files import project_settings_path
from pi_tui.modes.print_mode import run_print_mode
from pi_tui.modes.run_options import RunOptions
from pi_tui.session.store_opening import SessionChoice
from pi_tui.session_file.store import SessionStore
from tests.support.openai_server import (
    ErrorReply,
    OpenAIServer,
    StreamReply,
    bash_call_reply,
    chunk,
    text_reply,
    tool_call_delta,
    usage,
)


async def run_cli(*args: str, cwd: Path, stdin: bytes = b"") -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "pi_tui",
        *args,
        cwd=cwd,
        env=dict(os.environ),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(stdin), timeout=60)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


SECRET = "sk-loopback-7f3a9c"


def endpoint(server: OpenAIServer) -> list[str]:
    return ["--base-url", server.base_url, "--model", "m", "--api-key", SECRET]


def text_of(content: str | list[dict[str, str]] | None) -> str | None:
    """A wire message's text, whether sent as a string or (as pi does for user blocks) as text parts."""
    if isinstance(content, list):
        return "".join(part["text"] for part in content if part["type"] == "text")
    return content


def session_files(cwd: Path) -> list[Path]:
    return sorted(session_dir_for_cwd(str(cwd)).glob("*.jsonl"))


async def test_print_prints_the_answer_and_persists_the_session(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    openai_server.enqueue(text_reply("Hello from the model."))

    code, out, err = await run_cli("-p", "hello", *endpoint(openai_server), cwd=tmp_path)

    assert (code, out) == (0, "Hello from the model.\n"), err
    request = openai_server.requests[0]
    assert request.headers["authorization"] == f"Bearer {SECRET}"
    assert request.body["model"] == "m"
    assert [tool["function"]["name"] for tool in request.body["tools"]] == ["read", "bash", "edit", "write"]
    system = request.body["messages"][0]
    assert system["role"] == "system" and f"Current working directory: {tmp_path}" in system["content"]
    assert request.body["messages"][1]["role"] == "user"
    assert text_of(request.body["messages"][1]["content"]) == "hello"

    [file] = session_files(tmp_path)
    store = SessionStore.open(file)
    assert [entry.type for entry in store.entries] == [
        "model_change",
        "thinking_level_change",
        "message",  # pi 1.6's prompt and tools checkpoint
        "message",
        "message",
        "custom",
    ]
    assert store.entries[-1].to_json_obj()["customType"] == "pi-tui.request"
    assert store.build_context().messages[-1].role == "assistant"
    assert SECRET not in file.read_text()
    assert oct(file.stat().st_mode & 0o777) == "0o600"


async def test_json_mode_prints_the_header_then_every_event(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    openai_server.enqueue(text_reply("Hi"))

    code, out, _ = await run_cli("--mode", "json", "hello", *endpoint(openai_server), cwd=tmp_path)

    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 0
    assert lines[0]["type"] == "session" and lines[0]["version"] == 3
    types = [line["type"] for line in lines[1:]]
    assert types[:5] == ["agent_start", "turn_start", "message_start", "message_end", "message_start"]
    assert types[-3:] == ["message_end", "turn_end", "agent_end"]
    assert "message_update" in types
    assert lines[-1]["messages"][-1]["content"] == [{"type": "text", "text": "Hi"}]


async def test_messages_run_in_order_with_the_history(openai_server: OpenAIServer, tmp_path: Path) -> None:
    openai_server.enqueue(text_reply("first answer"), text_reply("second answer"))

    code, out, _ = await run_cli("-p", "one", "two", *endpoint(openai_server), cwd=tmp_path)

    assert (code, out) == (0, "second answer\n")
    second = openai_server.requests[1].body["messages"]
    assert [message["role"] for message in second] == ["system", "user", "assistant", "user"]
    assert text_of(second[2]["content"]) == "first answer" and text_of(second[3]["content"]) == "two"


async def test_tool_calls_run_and_their_results_are_sent_back(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    (tmp_path / "notes.txt").write_text("remember the milk\n")
    openai_server.enqueue(
        StreamReply(
            [
                chunk(tool_calls=[tool_call_delta(0, call_id="call_1", name="read", arguments='{"pa')]),
                chunk(tool_calls=[tool_call_delta(0, arguments='th": "notes.txt"}')]),
                chunk(finish_reason="tool_calls"),
                chunk(no_choices=True, usage=usage(100, 10)),
            ]
        ),
        text_reply("The note says to remember the milk."),
    )

    code, out, _ = await run_cli("-p", "what does notes.txt say?", *endpoint(openai_server), cwd=tmp_path)

    assert (code, out) == (0, "The note says to remember the milk.\n")
    tool_message = openai_server.requests[1].body["messages"][-1]
    assert tool_message == {"role": "tool", "tool_call_id": "call_1", "content": "remember the milk\n"}
    [file] = session_files(tmp_path)
    roles = [message.role for message in SessionStore.open(file).build_context().messages]
    assert roles == ["system", "user", "assistant", "toolResult", "assistant"]


async def test_a_failed_tool_call_is_named_on_stderr_and_the_run_still_succeeds(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    """The model saw the failure and answered, so the run succeeds; stderr says which call failed
    (issue #27 item 13: nothing did)."""
    openai_server.enqueue(bash_call_reply("echo broken >&2; exit 3"), text_reply("It failed."))

    code, out, err = await run_cli("-p", "run it", *endpoint(openai_server), cwd=tmp_path)

    assert (code, out) == (0, "It failed.\n"), err
    [line] = [line for line in err.splitlines() if "tool bash" in line]
    assert line == "pi-tui: tool bash failed: broken"


async def test_server_error_goes_to_stderr_with_exit_1(openai_server: OpenAIServer, tmp_path: Path) -> None:
    openai_server.enqueue(ErrorReply(401, {"error": {"message": "Incorrect API key provided"}}))

    code, out, err = await run_cli("-p", "hello", *endpoint(openai_server), cwd=tmp_path)

    assert (code, out) == (1, "")
    assert "401" in err and "Incorrect API key provided" in err
    assert "Traceback" not in err
    [file] = session_files(tmp_path)
    messages = SessionStore.open(file).build_context().messages
    assert [message.role for message in messages[:2]] == ["system", "user"] and messages[
        -1
    ].role == "assistant"


async def test_unreachable_endpoint_is_a_clear_error(tmp_path: Path) -> None:
    server = OpenAIServer()
    await server.start()
    url = server.base_url
    await server.stop()

    code, _, err = await run_cli(
        "-p", "hello", "--base-url", url, "--model", "m", "--api-key", "k", cwd=tmp_path
    )

    assert code == 1
    assert "Connection error" in err and "Traceback" not in err


async def test_no_session_keeps_nothing_on_disk(openai_server: OpenAIServer, tmp_path: Path) -> None:
    openai_server.enqueue(text_reply("ok"))

    code, _, _ = await run_cli("-p", "--no-session", "hello", *endpoint(openai_server), cwd=tmp_path)

    assert code == 0
    assert not session_dir_for_cwd(str(tmp_path)).exists()


async def test_continue_sends_the_previous_conversation(openai_server: OpenAIServer, tmp_path: Path) -> None:
    openai_server.enqueue(text_reply("first"), text_reply("second"))

    await run_cli("-p", "one", *endpoint(openai_server), cwd=tmp_path)
    code, out, _ = await run_cli("-p", "-c", "two", *endpoint(openai_server), cwd=tmp_path)

    assert (code, out) == (0, "second\n")
    sent = [text_of(message.get("content")) for message in openai_server.requests[1].body["messages"][1:]]
    assert sent == ["one", "first", "two"]
    assert len(session_files(tmp_path)) == 1


async def test_stdin_and_file_arguments_form_the_first_prompt(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    (tmp_path / "a.py").write_text("print('hi')\n")
    openai_server.enqueue(text_reply("ok"))

    code, _, _ = await run_cli(
        "-p", "@a.py", "review this", *endpoint(openai_server), cwd=tmp_path, stdin=b"piped context"
    )

    assert code == 0
    user = text_of(openai_server.requests[0].body["messages"][1]["content"])
    assert user == (
        f"piped context\n\n<file name=\"{tmp_path / 'a.py'}\">\nprint('hi')\n\n</file>\n\nreview this"
    )


async def test_missing_file_argument_is_reported(tmp_path: Path) -> None:
    code, _, err = await run_cli("-p", "@nope.txt", "--model", "m", "--api-key", "k", cwd=tmp_path)
    assert code == 1 and "file not found: nope.txt" in err


async def test_in_process_run_uses_the_given_session_choice(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    openai_server.enqueue(text_reply("stored"))
    out, err = io.StringIO(), io.StringIO()
    options = RunOptions(
        messages=["hello"],
        print_mode=True,
        base_url=openai_server.base_url,
        model="m",
        api_key="k",
        session=SessionChoice(session_dir=str(tmp_path / "elsewhere")),
    )

    code = await run_print_mode(options, cwd=str(tmp_path), stdin_text=None, stdout=out, stderr=err)

    assert (code, out.getvalue()) == (0, "stored\n")
    assert list((tmp_path / "elsewhere").rglob("*.jsonl"))
    assert not session_files(tmp_path)


@pytest.mark.parametrize("max_bytes", ["100000000000", "1e11"])
async def test_an_absurd_tools_max_bytes_still_sends_a_bounded_request(
    openai_server: OpenAIServer, tmp_path: Path, max_bytes: str
) -> None:
    """tools.maxBytes 100000000000 kept a bash run's whole output and sent it (100 MB of output: a
    100 MB request, 5.2 GB peak): it is clamped to 1 MiB and said so; 1e11 is not an integer, so it is
    reported and the default used."""
    settings = project_settings_path(tmp_path)
    settings.parent.mkdir(parents=True)
    settings.write_text('{"tools": {"maxBytes": ' + max_bytes + "}}\n")
    command = "head -c 3000000 /dev/zero | tr '\\0' a"
    openai_server.enqueue(
        StreamReply(
            [
                chunk(
                    tool_calls=[
                        tool_call_delta(
                            0, call_id="c1", name="bash", arguments=json.dumps({"command": command})
                        )
                    ]
                ),
                chunk(finish_reason="tool_calls"),
                chunk(no_choices=True, usage=usage(100, 10)),
            ]
        ),
        text_reply("done"),
    )

    code, out, err = await run_cli("-p", "print a lot", *endpoint(openai_server), cwd=tmp_path)

    assert (code, out) == (0, "done\n")
    result_request = openai_server.requests[1]
    assert int(result_request.headers["content-length"]) < MAX_TOOL_BYTES + 20_000
    tool_message = result_request.body["messages"][-1]
    assert tool_message["role"] == "tool" and "a" * 1000 in tool_message["content"]
    expected = (
        f"pi-tui: {settings}:1:24: tools.maxBytes: 100000000000 is above the largest value allowed,"
        " 1,048,576: 1,048,576 is used"
        if max_bytes == "100000000000"
        else f"pi-tui: {settings}:1:24: tools.maxBytes: Input should be a valid integer"
    )
    assert expected in err.splitlines()


async def test_a_reserve_larger_than_half_the_window_is_said_on_stderr(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    settings = project_settings_path(tmp_path)
    settings.parent.mkdir(parents=True)
    settings.write_text('{"compaction": {"reserveTokens": 128000}}')
    openai_server.enqueue(text_reply("hi"))

    code, out, err = await run_cli("-p", "hello", *endpoint(openai_server), cwd=tmp_path)

    assert (code, out) == (0, "hi\n")
    assert (
        "pi-tui: compaction.reserveTokens 128,000 is more than half of openai/m's window (128,000 tokens):"
        " 64,000 is reserved"
    ) in err.splitlines()
