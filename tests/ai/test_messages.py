from __future__ import annotations

from typing import Any

import pytest
from pydantic import TypeAdapter

from pi_tui.ai.js_json import js_dumps
from pi_tui.ai.messages import (
    AgentMessage,
    AssistantMessage,
    BashExecutionMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    ModelPrices,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UnknownMessage,
    Usage,
    UserMessage,
    compute_cost,
    user_text,
)

ADAPTER: TypeAdapter[AgentMessage] = TypeAdapter(AgentMessage)

USAGE = {
    "input": 1387,
    "output": 18,
    "cacheRead": 0,
    "cacheWrite": 0,
    "totalTokens": 1405,
    "cost": {"input": 0.001387, "output": 0.000036, "cacheRead": 0, "cacheWrite": 0, "total": 0.001423},
}

EXAMPLES: list[tuple[type[Any], dict[str, Any]]] = [
    (
        UserMessage,
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "hi"},
                {"type": "image", "data": "iVBOR", "mimeType": "image/png"},
            ],
            "timestamp": 1795993475799,
        },
    ),
    (UserMessage, {"role": "user", "content": "plain", "timestamp": 1}),
    (
        AssistantMessage,
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "t", "thinkingSignature": "s", "redacted": False},
                {"type": "text", "text": "x", "textSignature": '{"v":1}'},
                {"type": "toolCall", "id": "call_1", "name": "bash", "arguments": {"command": "ls"}},
            ],
            "api": "openai-completions",
            "provider": "fake",
            "model": "fake-model",
            "usage": USAGE,
            "stopReason": "toolUse",
            "timestamp": 2,
            "responseId": "chatcmpl-1",
        },
    ),
    (
        AssistantMessage,
        {
            "role": "assistant",
            "content": [],
            "api": "openai-completions",
            "provider": "p",
            "model": "m",
            "usage": USAGE,
            "stopReason": "error",
            "timestamp": 3,
            "errorMessage": "boom",
        },
    ),
    (
        ToolResultMessage,
        {
            "role": "toolResult",
            "toolCallId": "call_1",
            "toolName": "bash",
            "content": [{"type": "text", "text": "out"}],
            "details": {},
            "isError": True,
            "timestamp": 4,
        },
    ),
    (
        BashExecutionMessage,
        {
            "role": "bashExecution",
            "command": "ls",
            "output": "",
            "cancelled": False,
            "truncated": True,
            "fullOutputPath": "/tmp/x",
            "timestamp": 5,
            "excludeFromContext": True,
        },
    ),
    (
        CustomMessage,
        {"role": "custom", "customType": "ext", "content": "c", "display": False, "timestamp": 6},
    ),
    (BranchSummaryMessage, {"role": "branchSummary", "summary": "s", "fromId": "abcd1234", "timestamp": 7}),
    (
        CompactionSummaryMessage,
        {"role": "compactionSummary", "summary": "s", "tokensBefore": 9, "timestamp": 8},
    ),
]


@pytest.mark.parametrize(
    ("kind", "obj"), EXAMPLES, ids=[f"{o['role']}-{i}" for i, (_, o) in enumerate(EXAMPLES)]
)
def test_message_round_trip_is_exact(kind: type[Any], obj: dict[str, Any]) -> None:
    message = ADAPTER.validate_python(obj)
    assert type(message) is kind
    assert js_dumps(message.to_json_obj()) == js_dumps(obj)


def test_unknown_role_and_extra_keys_survive() -> None:
    odd = {"role": "hologram", "payload": {"x": 1}}
    message = ADAPTER.validate_python(odd)
    assert isinstance(message, UnknownMessage) and message.to_json_obj() == odd
    extra = ADAPTER.validate_python({"role": "user", "content": "x", "timestamp": 1, "futureField": [1]})
    assert extra.to_json_obj()["futureField"] == [1]


def test_unset_optionals_are_omitted_like_undefined() -> None:
    obj = AssistantMessage(content=[TextContent(text="x")]).to_json_obj()
    assert "errorMessage" not in obj and "responseId" not in obj
    assert list(obj) == ["role", "content", "api", "provider", "model", "usage", "stopReason", "timestamp"]


def test_helpers() -> None:
    reply = AssistantMessage(
        content=[TextContent(text="a"), ToolCall(id="1", name="n"), TextContent(text="b")],
        stop_reason="aborted",
    )
    assert reply.text == "ab" and [call.id for call in reply.tool_calls] == ["1"] and reply.failed
    assert user_text(UserMessage(content=[TextContent(text="x"), TextContent(text="y")], timestamp=0)) == "xy"
    assert Usage(input=1, output=2, cache_read=3).context_tokens() == 6
    cost = compute_cost(Usage(input=1_000_000, output=500_000), ModelPrices(input=3, output=15))
    assert (cost.input, cost.output, cost.total) == (3, 7.5, 10.5)
