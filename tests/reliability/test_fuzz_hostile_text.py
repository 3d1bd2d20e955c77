"""Random bytes through every way text enters, then the session must load, continue and export.

Each example (hypothesis, derandomised like `test_fuzz.py`) runs pi's print mode in-process with the
real tools and the real `openai` client against the loopback server: the prompt is random bytes as argv
delivers them (surrogateescape), piped stdin is random bytes, a file in the project has a random byte
name, the model's tool calls `ls` it and run a command printing random bytes, and the provider's reply
carries random bytes and random `\\uXXXX` escapes (lone surrogates included) in its text and arguments.
Afterwards the session file loads writable with no lone surrogate anywhere, exports to valid UTF-8
HTML, and a second run continues it; no request ever carried a lone surrogate.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pi_tui.export.exporter import export_session
from pi_tui.modes.print_mode import run_print_mode
from pi_tui.modes.run_options import RunOptions
from pi_tui.session.store_opening import SessionChoice
from pi_tui.session_file.loader import read_session_file
from pi_tui.session_file.store import SessionStore
from tests.support.openai_server import OpenAIServer, StreamReply, chunk, text_reply, tool_call_delta

FULL = os.environ.get("RELIABILITY_FULL") == "1"
HOSTILE_FUZZ = settings(
    max_examples=200 if FULL else 12,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
SURROGATE = re.compile("[\ud800-\udfff]")

escapes = st.integers(min_value=0xD780, max_value=0xE0FF).map(lambda code: f"\\u{code:04x}".encode())
hostile_bytes = st.lists(st.one_of(st.binary(min_size=1, max_size=6), escapes), max_size=8).map(b"".join)
file_names = st.binary(min_size=1, max_size=12).map(
    lambda name: name.replace(b"/", b"_").replace(b"\0", b"_")
)


def json_string_bytes(raw: bytes) -> bytes:
    """`raw` inside a JSON string: quotes, backslashes not starting a `\\u` escape, and control bytes
    escaped; everything else (invalid UTF-8, escapes of lone surrogates) left for the client to meet."""
    out = bytearray()
    index = 0
    while index < len(raw):
        byte = raw[index]
        if raw.startswith(b"\\u", index) and re.fullmatch(rb"[0-9a-f]{4}", raw[index + 2 : index + 6]):
            out += raw[index : index + 6]
            index += 6
            continue
        if byte in (0x22, 0x5C) or byte < 0x20:
            out += f"\\u{byte:04x}".encode()
        else:
            out.append(byte)
        index += 1
    return bytes(out)


def strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for key, item in value.items() for text in (key, *strings(item))]
    if isinstance(value, list):
        return [text for item in value for text in strings(item)]
    return []


def first_reply(reply_text: bytes, argument: bytes, output: bytes) -> StreamReply:
    text_line = (
        b'data: {"choices":[{"index":0,"delta":{"content":"' + json_string_bytes(reply_text) + b'"}}]}'
    )
    command = json.dumps({"command": "printf '%b' '" + "".join(f"\\{byte:03o}" for byte in output) + "'"})
    ls_arguments = b'{"path":".","x":"' + json_string_bytes(argument) + b'"}'
    ls_call = b'{"index":1,"id":"call_ls","type":"function","function":{"name":"ls","arguments":'
    ls_line = (
        b'data: {"choices":[{"index":0,"delta":{"tool_calls":['
        + ls_call
        + json.dumps(ls_arguments.decode("latin-1")).encode("latin-1")
        + b"}}]}}]}"
    )
    return StreamReply(
        [
            text_line.decode("latin-1"),
            chunk(tool_calls=[tool_call_delta(0, call_id="call_sh", name="bash", arguments=command)]),
            ls_line.decode("latin-1"),
            chunk(finish_reason="tool_calls"),
        ]
    )


class Latin1Server(OpenAIServer):
    """Sends raw string chunks as the bytes they stand for (one character per byte), so a reply can
    carry bytes that are not UTF-8."""

    async def _write_chunk(self, writer: asyncio.StreamWriter, data: bytes) -> None:
        await super()._write_chunk(writer, data.decode("utf-8").encode("latin-1", "ignore"))


async def one_run(
    prompt: bytes, stdin: bytes, name: bytes, reply_text: bytes, argument: bytes, output: bytes
) -> None:
    server = Latin1Server()
    await server.start()
    try:
        with tempfile.TemporaryDirectory() as folder:
            cwd = Path(folder)
            with_name = os.fsdecode(name)
            if with_name not in (".", ".."):
                (cwd / with_name).write_bytes(b"content\n")
            server.enqueue(
                first_reply(reply_text, argument, output), text_reply("first done"), text_reply("again")
            )
            session = cwd / "s.jsonl"
            base = RunOptions(
                print_mode=True,
                base_url=server.base_url,
                model="m",
                api_key="k",
                tools=["read", "bash", "ls", "find", "grep"],
                session=SessionChoice(session=str(session)),
            )
            out, err = io.StringIO(), io.StringIO()
            options = RunOptions(
                **{**base.__dict__, "messages": [os.fsdecode(b"go " + prompt.replace(b"\0", b""))]}
            )
            code = await run_print_mode(
                options, cwd=str(cwd), stdin_text=stdin.decode("utf-8", "replace"), stdout=out, stderr=err
            )
            assert code == 0, err.getvalue()

            loaded = read_session_file(session)
            assert loaded.writable and not loaded.diagnostics, loaded.diagnostics
            texts = [text for entry in loaded.entries for text in strings(entry.model_dump())]
            assert not any(SURROGATE.search(text) for text in texts)
            store = SessionStore.open(session)
            page = cwd / "page.html"
            export_session(store, page)
            assert page.read_bytes().decode("utf-8").rstrip().endswith("</html>")

            again = RunOptions(**{**base.__dict__, "messages": ["continue"]})
            code = await run_print_mode(again, cwd=str(cwd), stdin_text=None, stdout=out, stderr=err)
            assert code == 0, err.getvalue()
            assert out.getvalue().endswith("again\n")
            assert len(server.requests) == 3
            for request in server.requests:
                assert not any(SURROGATE.search(text) for text in strings(request.body))
    finally:
        await server.stop()


@pytest.mark.slow  # about a minute of examples on two cores
@HOSTILE_FUZZ
@given(hostile_bytes, hostile_bytes, file_names, hostile_bytes, hostile_bytes, st.binary(max_size=64))
def test_random_bytes_everywhere_leave_a_session_that_loads_continues_and_exports(
    prompt: bytes, stdin: bytes, name: bytes, reply_text: bytes, argument: bytes, output: bytes
) -> None:
    asyncio.run(one_run(prompt, stdin, name, reply_text, argument, output))
