"""Hostile text and hostile provider replies through the real CLI (docs/reliability.md, section 12).

Each test runs `pi-tui -p` as a subprocess against the loopback server with the real `openai` client and
real files, then checks what a user would: the exit code, stdout and stderr, the session file (it loads,
holds no lone surrogate, no key, no impossible number), what the next request carried, and that
`pi-tui tree` and `pi-tui export` still work on it.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

from pi_tui.config.paths import session_dir_for_cwd
from pi_tui.session_file.loader import read_session_file
from tests.support.openai_server import (
    ErrorReply,
    OpenAIServer,
    StreamReply,
    chunk,
    text_reply,
    tool_call_delta,
)
from tests.support.responses_stream import FunctionCall, responses_events, responses_text_reply

KEY = "sk-loop-secret-4f9a2c71"
HEADER_KEY = "hdr-secret-77aa91bc"
GOOGLE_KEY = "goog-secret-3c1d55ef"
BEARER_KEY = "bearer-secret-9e0b2a4d"
SURROGATE = re.compile("[\ud800-\udfff]")


def write_config(
    server: OpenAIServer, *, api: str = "openai-completions", headers: dict[str, str] | None = None
) -> None:
    """models.json naming the loopback server (model `loop/m`), and quick retries."""
    home = Path(os.environ["PI_TUI_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    provider: dict[str, Any] = {
        "baseUrl": server.base_url,
        "apiKey": KEY,
        "api": api,
        "models": [{"id": "m", "contextWindow": 32000}],
    }
    if headers:
        provider["headers"] = headers
    (home / "models.json").write_text(json.dumps({"providers": {"loop": provider}}))
    (home / "settings.json").write_text(json.dumps({"retry": {"baseDelayMs": 10, "maxRetries": 2}}))


async def run_cli(
    *args: str, cwd: Path, stdin: bytes = b"", env: dict[str, str] | None = None
) -> tuple[int, bytes, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "pi_tui",
        *args,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(stdin), timeout=90)
    assert process.returncode is not None
    assert "Traceback" not in err.decode(errors="replace"), err.decode(errors="replace")
    return process.returncode, out, err.decode("utf-8")


async def prompt(*args: str, cwd: Path, **options: Any) -> tuple[int, bytes, str]:
    return await run_cli("-p", "--model", "loop/m", *args, cwd=cwd, **options)


def only_session(cwd: Path) -> Path:
    [path] = sorted(session_dir_for_cwd(str(cwd)).glob("*.jsonl"))
    return path


def messages(path: Path) -> list[dict[str, Any]]:
    """The conversation's messages in the file (pi 1.6's prompt checkpoints left out)."""
    lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [
        line["message"]
        for line in lines
        if line.get("type") == "message" and line["message"].get("role") != "system"
    ]


def all_strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for key, item in value.items() for text in (key, *all_strings(item))]
    if isinstance(value, list):
        return [text for item in value for text in all_strings(item)]
    return []


def request_strings(server: OpenAIServer, number: int = -1) -> list[str]:
    return all_strings(server.requests[number].body)


async def assert_session_usable(
    path: Path, cwd: Path, server: OpenAIServer, *, with_model: bool = True
) -> None:
    """The file loads without lone surrogates, two user messages never follow each other, `tree` and
    `export` succeed (a whole, valid UTF-8 page), and one more prompt continues it."""
    loaded = read_session_file(path)
    assert loaded.writable
    assert not any(
        SURROGATE.search(text) for entry in loaded.entries for text in all_strings(entry.model_dump())
    )
    roles = [message["role"] for message in messages(path)]
    assert all(not (a == b == "user") for a, b in itertools.pairwise(roles)), roles
    code, out, err = await run_cli("tree", str(path), cwd=cwd)
    assert code == 0, err
    out.decode("utf-8")
    page = cwd / "page.html"
    code, _, err = await run_cli("export", str(path), str(page), cwd=cwd)
    assert code == 0, err
    assert page.read_bytes().decode("utf-8").rstrip().endswith("</html>")
    page.unlink()
    if with_model:
        before = len(server.requests)
        server.enqueue(text_reply("continued"))
        code, out, err = await prompt("--session", str(path), "and now?", cwd=cwd)
        assert (code, out) == (0, b"continued\n"), err
        assert len(server.requests) == before + 1
        assert not any(SURROGATE.search(text) for text in request_strings(server))


# --- item 1: bytes that are not UTF-8 and lone surrogates ---------------------------------------------


async def test_a_stray_byte_in_the_prompt_becomes_a_replacement_character(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    write_config(openai_server)
    openai_server.enqueue(text_reply("seen"))

    code, out, err = await prompt(os.fsdecode(b"bad \xff byte"), cwd=tmp_path)

    assert (code, out) == (0, b"seen\n"), err
    assert "bad \ufffd byte" in request_strings(openai_server)
    path = only_session(tmp_path)
    assert messages(path)[0]["content"][0]["text"] == "bad \ufffd byte"
    await assert_session_usable(path, tmp_path, openai_server)


async def test_a_stray_byte_on_stdin_and_in_an_at_file_name(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    write_config(openai_server)
    (tmp_path / os.fsdecode(b"f\xffe.txt")).write_bytes(b"caf\xe9 inside\n")
    openai_server.enqueue(text_reply("seen"))

    code, out, err = await prompt(
        "@" + os.fsdecode(b"f\xffe.txt"), "look", cwd=tmp_path, stdin=b"piped \xfe text"
    )

    assert (code, out) == (0, b"seen\n"), err
    [sent] = [text for text in request_strings(openai_server) if text.startswith("piped")]
    assert sent.startswith("piped \ufffd text\n\n<file name=")
    assert "f\ufffde.txt" in sent and "caf\ufffd inside" in sent
    await assert_session_usable(only_session(tmp_path), tmp_path, openai_server)


async def test_file_names_that_are_not_utf8_in_ls_find_and_grep_output(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    write_config(openai_server)
    (tmp_path / os.fsdecode(b"caf\xe9.txt")).write_bytes(b"hello\n")
    calls = [
        ("ls", {"path": "."}),
        ("find", {"pattern": "*.txt"}),
        ("grep", {"pattern": "hello"}),
    ]
    deltas = [
        tool_call_delta(index, call_id=f"call_{index}", name=name, arguments=json.dumps(arguments))
        for index, (name, arguments) in enumerate(calls)
    ]
    openai_server.enqueue(
        StreamReply([chunk(tool_calls=deltas), chunk(finish_reason="tool_calls")]), text_reply("listed")
    )

    code, out, err = await prompt("--tools", "ls,find,grep", "list", cwd=tmp_path)

    assert (code, out) == (0, b"listed\n"), err
    results = [message for message in openai_server.requests[1].body["messages"] if message["role"] == "tool"]
    assert len(results) == 3
    for result in results:
        assert "caf\ufffd.txt" in json.dumps(result, ensure_ascii=False), result
    await assert_session_usable(only_session(tmp_path), tmp_path, openai_server)


async def test_lone_surrogate_escapes_from_the_provider_are_dropped_as_pi_drops_them(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    write_config(openai_server)
    arguments = json.dumps({"command": "echo \ud800done"})  # the escape inside the argument text
    openai_server.enqueue(
        StreamReply(
            [
                'data: {"choices":[{"index":0,"delta":{"content":"half \\ud800 way"}}]}',
                chunk(tool_calls=[tool_call_delta(0, call_id="call_1", name="bash", arguments=arguments)]),
                chunk(finish_reason="tool_calls"),
            ]
        ),
        text_reply("after"),
    )

    code, out, err = await prompt("go", cwd=tmp_path)

    assert (code, out) == (0, b"after\n"), err
    path = only_session(tmp_path)
    reply = messages(path)[1]
    assert reply["content"][0] == {"type": "text", "text": "half  way"}
    assert reply["content"][1]["arguments"] == {"command": "echo done"}
    assert "done" in messages(path)[2]["content"][0]["text"]
    await assert_session_usable(path, tmp_path, openai_server)


def pi_session_with_surrogates(pi_fixtures: Path, folder: Path) -> Path:
    """pi's own tools session with `\\ud800` and `\\udce9` escapes in every user and tool text, as pi
    writes them (JSON.stringify escapes a lone surrogate)."""
    lines = []
    for line in (pi_fixtures / "pi16" / "sessions" / "b-tools.jsonl").read_text().splitlines():
        entry = json.loads(line)
        if entry.get("type") == "session":
            entry["cwd"] = str(folder)
        message = entry.get("message") if entry.get("type") == "message" else None
        if message and message["role"] in ("user", "toolResult") and isinstance(message["content"], list):
            for block in message["content"]:
                if block.get("type") == "text":
                    block["text"] += " bad\ud800 \udce9x"
        lines.append(json.dumps(entry))
    path = folder / "pi.jsonl"
    path.write_text("\n".join(lines) + "\n")
    assert "\\ud800" in path.read_text()
    return path


async def test_a_pi_session_holding_surrogates_loads_continues_and_exports(
    openai_server: OpenAIServer, tmp_path: Path, pi_fixtures: Path
) -> None:
    write_config(openai_server)
    path = pi_session_with_surrogates(pi_fixtures, tmp_path)

    await assert_session_usable(path, tmp_path, openai_server)

    assert any(text.endswith(" bad x") for text in request_strings(openai_server))


async def test_a_stdout_that_is_not_utf8_prints_the_reply_safely(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    write_config(openai_server)
    openai_server.enqueue(text_reply("a \u201cquoted\u201d reply"))

    code, out, err = await prompt("hi", cwd=tmp_path, env={"PYTHONIOENCODING": "ascii"})

    assert (code, out) == (0, b"a ?quoted? reply\n"), err
    assert messages(only_session(tmp_path))[1]["content"][0]["text"] == "a \u201cquoted\u201d reply"


async def test_json_mode_on_a_stdout_that_is_not_utf8_escapes_what_it_cannot_encode(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    write_config(openai_server)
    openai_server.enqueue(text_reply("a \u201cquoted\u201d \U0001f600"))

    code, out, err = await run_cli(
        "--mode", "json", "--model", "loop/m", "hi", cwd=tmp_path, env={"PYTHONIOENCODING": "ascii"}
    )

    assert code == 0, err
    events = [json.loads(line) for line in out.decode("ascii").splitlines()]
    ends = [event for event in events if event.get("type") == "message_end"]
    assert ends[-1]["message"]["content"][0]["text"] == "a \u201cquoted\u201d \U0001f600"


# --- item 7: a Retry-After that is not a finite number ---------------------------------------------------


async def test_an_infinite_retry_after_is_ignored_and_the_retry_recorded(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    write_config(openai_server)
    for value in ("inf", "1e400"):
        openai_server.enqueue(
            ErrorReply(429, {"message": "slow down"}, headers={"retry-after": value}),
            text_reply(f"ok {value}"),
        )
    code, out, err = await prompt("one", cwd=tmp_path)
    assert (code, out) == (0, b"ok inf\n"), err
    code, out, err = await prompt("-c", "two", cwd=tmp_path)
    assert (code, out) == (0, b"ok 1e400\n"), err

    assert len(openai_server.requests) == 4
    path = only_session(tmp_path)
    assert [(m["role"], m.get("stopReason")) for m in messages(path)] == [
        ("user", None),
        ("assistant", "error"),
        ("assistant", "stop"),
        ("user", None),
        ("assistant", "error"),
        ("assistant", "stop"),
    ]
    await assert_session_usable(path, tmp_path, openai_server)


# --- item 9: keys in every field of an error ------------------------------------------------------------


def assert_no_secret(*texts: str) -> None:
    for text in texts:
        for secret in (KEY, HEADER_KEY, GOOGLE_KEY, BEARER_KEY):
            assert secret not in text


async def test_a_key_in_the_code_of_a_chat_completions_stream_error_is_redacted(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    write_config(openai_server)
    error = {"error": {"message": f"invalid key {KEY}", "code": KEY, "type": f"auth {KEY}"}}
    openai_server.enqueue(StreamReply([chunk(content="x"), error], done=False))

    code, out, err = await prompt("hi", cwd=tmp_path)

    assert code == 1
    text = only_session(tmp_path).read_text()
    assert "[redacted]" in text
    assert_no_secret(text, out.decode(), err)


async def test_a_key_in_a_responses_failure_or_error_event_is_redacted(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    write_config(openai_server, api="openai-responses")
    start = responses_events(text="x")[:2]
    failed = {
        "type": "response.failed",
        "response": {"id": "r", "status": "failed", "error": {"code": KEY, "message": f"invalid key {KEY}"}},
    }
    error = {"type": "error", "code": KEY, "message": f"invalid key {KEY}", "param": KEY}
    for ending in (failed, error):
        openai_server.enqueue(StreamReply([*start, ending]))
        code, out, err = await prompt("--no-session" if ending is error else "-c", "hi", cwd=tmp_path)
        assert code == 1
        assert_no_secret(out.decode(), err)
    text = only_session(tmp_path).read_text()
    assert "[redacted]" in text
    assert_no_secret(text)


async def test_credential_headers_from_models_json_are_treated_as_keys(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    headers = {"api-key": HEADER_KEY, "x-goog-api-key": GOOGLE_KEY, "authorization": f"Bearer {BEARER_KEY}"}
    write_config(openai_server, headers=headers)
    echo = f"denied: api-key={HEADER_KEY} x-goog-api-key={GOOGLE_KEY} authorization=Bearer {BEARER_KEY}"
    openai_server.enqueue(ErrorReply(401, {"message": echo, "code": HEADER_KEY}))

    code, out, err = await prompt("hi", cwd=tmp_path)

    assert code == 1
    assert openai_server.requests[0].headers["api-key"] == HEADER_KEY
    path = only_session(tmp_path)
    page = tmp_path / "page.html"
    assert (await run_cli("export", str(path), str(page), cwd=tmp_path))[0] == 0
    assert "denied: api-key=[redacted]" in path.read_text()
    assert_no_secret(path.read_text(), page.read_text(), out.decode(), err)


# --- item 10: a tool call delivered twice runs once -----------------------------------------------------


async def test_a_responses_stream_repeating_output_item_done_runs_the_call_once(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    write_config(openai_server, api="openai-responses")
    call = FunctionCall(
        "bash", json.dumps({"command": "echo run >> runs.txt"}), call_id="call_1", item_id="fc_1"
    )
    events = responses_events(calls=[call])
    done = next(event for event in events if event["type"] == "response.output_item.done")
    events.insert(events.index(done) + 1, dict(done))
    openai_server.enqueue(StreamReply(list(events)), responses_text_reply("ran"))

    code, out, err = await prompt("go", cwd=tmp_path)

    assert (code, out) == (0, b"ran\n"), err
    assert (tmp_path / "runs.txt").read_text() == "run\n"
    calls = [item for item in openai_server.requests[1].body["input"] if item.get("type") == "function_call"]
    assert len(calls) == 1


async def test_a_chat_completions_reply_repeating_a_tool_call_id_runs_it_once(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    write_config(openai_server)
    arguments = json.dumps({"command": "echo run >> runs.txt"})
    deltas = [tool_call_delta(index, call_id="call_1", name="bash", arguments=arguments) for index in (0, 1)]
    openai_server.enqueue(
        StreamReply([chunk(tool_calls=deltas), chunk(finish_reason="tool_calls")]), text_reply("ran")
    )

    code, out, err = await prompt("go", cwd=tmp_path)

    assert (code, out) == (0, b"ran\n"), err
    assert (tmp_path / "runs.txt").read_text() == "run\n"
    [assistant] = [m for m in openai_server.requests[1].body["messages"] if m.get("tool_calls")]
    assert [call["id"] for call in assistant["tool_calls"]] == ["call_1"]


# --- item 12: absurd usage ----------------------------------------------------------------------------


async def test_absurd_usage_is_refused_with_a_diagnostic(openai_server: OpenAIServer, tmp_path: Path) -> None:
    write_config(openai_server)
    absurd = {"prompt_tokens": 1e308, "completion_tokens": 5, "total_tokens": 1e308}
    huge_int = '{"id":"c","choices":[],"usage":{"prompt_tokens":' + "9" * 400 + ',"completion_tokens":1}}'
    openai_server.enqueue(
        StreamReply(
            [chunk(content="one"), chunk(finish_reason="stop"), chunk(no_choices=True, usage=absurd)]
        ),
        StreamReply([chunk(content="two"), chunk(finish_reason="stop"), "data: " + huge_int]),
    )

    code, _, err = await prompt("first", cwd=tmp_path)
    assert code == 0, err
    code, _, err = await prompt("-c", "second", cwd=tmp_path)
    assert code == 0, err

    path = only_session(tmp_path)
    assert not re.search(r"\d{20,}", path.read_text().replace("9" * 400, ""))
    replies = [m for m in messages(path) if m["role"] == "assistant"]
    for reply in replies:
        assert reply["usage"]["input"] == 0
        assert [d["type"] for d in reply["diagnostics"]] == ["usage_out_of_range"]
    code, out, err = await run_cli("context", str(path), cwd=tmp_path)
    assert code == 0, err
    percents = [float(value.replace(",", "")) for value in re.findall(r"([\d,.]+)%", out.decode())]
    assert percents and max(percents) <= 100
    await assert_session_usable(path, tmp_path, openai_server)


# --- item 14: a tool call without a name ----------------------------------------------------------------


async def test_a_tool_call_without_id_or_name_is_neither_stored_nor_sent_back(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    write_config(openai_server)
    nameless = tool_call_delta(0, arguments=json.dumps({"command": "echo run >> runs.txt"}))
    openai_server.enqueue(StreamReply([chunk(tool_calls=[nameless]), chunk(finish_reason="tool_calls")]))

    code, _, err = await prompt("go", cwd=tmp_path)

    assert code == 1
    assert "without a name" in err
    assert not (tmp_path / "runs.txt").exists()
    path = only_session(tmp_path)
    [reply] = [m for m in messages(path) if m["role"] == "assistant"]
    assert reply["stopReason"] == "error"
    assert not [block for block in reply["content"] if block["type"] == "toolCall"]
    await assert_session_usable(path, tmp_path, openai_server)
    assert not [m for m in openai_server.requests[-1].body["messages"] if m.get("tool_calls")]
