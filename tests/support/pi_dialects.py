"""pi 1.6's recorded dialects (tests/fixtures/pi16/requests, the contract): their configs, and the replies of
the server they were recorded against, so a test can run pi-tui (or pi itself, tests/live) through the same
conversation. pi 0.73.1's recordings of the first eight stay in tests/fixtures/pi-requests as history."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pi_tui.config.paths import pi_tui_home
from tests.support.openai_server import OpenAIServer, StreamReply, chunk, tool_call_delta, usage
from tests.support.responses_stream import FunctionCall, Reasoning, responses_reply, responses_usage

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "pi16" / "requests"
PI073_FIXTURES = FIXTURES.parents[1] / "pi-requests"
"""pi 0.73.1's recordings of the first eight dialects, kept as history (tests/ai/test_pi073_dialects.py)."""


def _dialects() -> dict[str, tuple[str, str]]:
    """`dialects.tsv`: each dialect's thinking level and the environment pi ran with (`NAME=value`)."""
    found: dict[str, tuple[str, str]] = {}
    for line in (FIXTURES / "dialects.tsv").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, thinking, env, *_ = line.split("|")
            found[name] = (thinking, env)
    return found


DIALECTS = _dialects()
"""Every recorded dialect: its thinking level and environment."""
CHAT_DIALECTS = {
    name: thinking for name, (thinking, _) in DIALECTS.items() if not name.startswith("responses")
}
"""Each Chat Completions dialect and the thinking level pi was run with."""
PI073_DIALECTS = (
    "openai-plain",
    "openai-reasoning",
    "openrouter-anthropic",
    "deepseek",
    "zai",
    "strict-proxy",
    "thinking-as-text",
)
"""The Chat Completions dialects pi 0.73.1 was recorded in."""
REASONING_FIELDS = {"ollama": "reasoning"}
"""The delta field a dialect's server streams reasoning in, where it is not `reasoning_content`."""
FIRST_PROMPT = "What is the date? Use bash."
SECOND_PROMPT = "Thanks."


def pi_requests(dialect: str, folder: Path = FIXTURES) -> list[dict[str, Any]]:
    lines = (folder / f"{dialect}.requests.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def install_models(dialect: str, server: OpenAIServer) -> str:
    """Write the dialect's models.json for `server` into pi-tui's home; returns the model's ref."""
    models = (FIXTURES / f"{dialect}.models.json").read_text(encoding="utf-8")
    home = pi_tui_home()
    home.mkdir(parents=True, exist_ok=True)
    (home / "models.json").write_text(models.replace("PORT", str(server.port)), encoding="utf-8")
    provider, entry = next(iter(json.loads(models)["providers"].items()))
    return f"{provider}/{entry['models'][0]['id']}"


def scripted_replies(server: OpenAIServer, dialect: str = "") -> None:
    """The recording server's three answers: reasoning, text and a bash call; reasoning and text; text.
    Reasoning streams in the dialect's field (`REASONING_FIELDS`)."""
    field = REASONING_FIELDS.get(dialect, "reasoning_content")
    call = tool_call_delta(0, call_id="call_1_0", name="bash", arguments='{"command":"echo 2026-11-29"}')
    server.enqueue(
        StreamReply(
            [
                chunk(**{field: "The user wants the date; run it."}),
                chunk(content="Let me check."),
                chunk(tool_calls=[call]),
                chunk(finish_reason="tool_calls"),
                chunk(no_choices=True, usage=usage(100, 10)),
            ]
        ),
        StreamReply(
            [
                chunk(**{field: "Got it."}),
                chunk(content="It is 2026-11-29."),
                chunk(finish_reason="stop"),
                chunk(no_choices=True, usage=usage(120, 8)),
            ]
        ),
        StreamReply(
            [
                chunk(content="You are welcome."),
                chunk(finish_reason="stop"),
                chunk(no_choices=True, usage=usage(130, 5)),
            ]
        ),
    )


def session_id_of(path: Path) -> str:
    lines = path.read_text(encoding="utf-8").splitlines()
    return str(json.loads(lines[0])["id"])


def responses_replies(server: OpenAIServer) -> None:
    """The recording server's three answers on the Responses API, with the usage pi recorded."""
    server.enqueue(
        responses_reply(
            reasoning=Reasoning(
                ["The user wants the date; run it."], item_id="rs_1", encrypted="ENC-1-opaque"
            ),
            text="Let me check.",
            text_id="msg_1",
            calls=[
                FunctionCall("bash", '{"command":"echo 2026-11-29"}', call_id="call_1_0", item_id="fc_1_0")
            ],
            response_id="resp_1",
            model="gpt-5-mini",
            usage=responses_usage(1411, 4),
        ),
        responses_reply(
            reasoning=Reasoning(["Got it."], item_id="rs_2", encrypted="ENC-2-opaque"),
            text="It is 2026-11-29.",
            text_id="msg_2",
            response_id="resp_2",
            model="gpt-5-mini",
            usage=responses_usage(1534, 5),
        ),
        responses_reply(
            text="You are welcome.",
            text_id="msg_3",
            response_id="resp_3",
            model="gpt-5-mini",
            usage=responses_usage(1618, 5),
        ),
    )


PROSE_TOOL_KEYS = ("description", "parameters")
TRANSPORT_HEADERS = {
    "accept",
    "accept-encoding",
    "accept-language",
    "authorization",
    "connection",
    "content-length",
    "content-type",
    "host",
    "sec-fetch-mode",
}
SESSION_HEADERS = {"session_id", "session-id", "x-client-request-id", "x-session-affinity", "x-session-id"}


def without_prose(body: dict[str, Any], session_id: str) -> dict[str, Any]:
    """The body with prose blanked and the session id replaced by a placeholder."""
    body = json.loads(json.dumps(body))
    messages = body.get("messages") or body.get("input") or []
    if messages and messages[0].get("role") in ("system", "developer"):
        content = messages[0]["content"]
        if isinstance(content, str):
            messages[0]["content"] = "<system prompt>"
        else:
            for part in content:
                part["text"] = "<system prompt>"
    for tool in body.get("tools") or []:
        function = tool.get("function", tool)
        for key in PROSE_TOOL_KEYS:
            function.pop(key, None)
    if body.get("prompt_cache_key") == session_id:
        body["prompt_cache_key"] = "<session id>"
    return body


def header_view(headers: dict[str, str], session_id: str) -> dict[str, str]:
    """Header names, with the values that must match: the session id where pi sends its own."""
    view: dict[str, str] = {}
    for name, value in headers.items():
        if name in TRANSPORT_HEADERS or name.startswith("x-stainless") or name == "user-agent":
            continue
        view[name] = "<session id>" if name in SESSION_HEADERS and value == session_id else "<value>"
    return view


def assert_same_body(ours: dict[str, Any], theirs: dict[str, Any], number: int) -> None:
    """Every field and value equal, none missing or extra (the order of the top-level fields is the
    HTTP client's)."""
    assert sorted(ours) == sorted(theirs), f"request {number}: body fields"
    assert ours == theirs, f"request {number}: body"
