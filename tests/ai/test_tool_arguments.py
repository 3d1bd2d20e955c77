"""Tool-call argument parsing and the `invalidArguments` marker."""

from __future__ import annotations

import pytest

from pi_tui.ai.messages import AssistantMessage
from pi_tui.ai.tool_arguments import (
    invalid_arguments,
    make_tool_call,
    parse_arguments,
)


def test_valid_object_and_empty_text() -> None:
    assert parse_arguments('{"a": 1}') == ({"a": 1}, None)
    assert parse_arguments("  ") == ({}, None)
    call = make_tool_call("c", "ls", '{"path": "."}')
    assert call.arguments == {"path": "."}
    assert invalid_arguments(call) is None


@pytest.mark.parametrize(
    ("raw", "reason"), [('{"a": ', "invalid JSON"), ("[1, 2]", "got list"), ('"x"', "got str")]
)
def test_invalid_arguments_keep_raw_text(raw: str, reason: str) -> None:
    call = make_tool_call("c", "ls", raw)
    assert call.arguments == {}
    assert invalid_arguments(call) == raw
    _, why = parse_arguments(raw)
    assert why is not None and reason in why


def test_marker_survives_a_round_trip_through_json() -> None:
    message = AssistantMessage(content=[make_tool_call("c", "ls", "{oops")], stop_reason="toolUse")
    loaded = AssistantMessage.model_validate(message.to_json_obj())
    assert message.to_json_obj()["content"][0]["invalidArguments"] == "{oops"
    assert invalid_arguments(loaded.tool_calls[0]) == "{oops"
