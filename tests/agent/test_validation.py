"""pi-worded validation messages for the common pydantic error kinds."""

from __future__ import annotations

from typing import ClassVar, Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field

from pi_tui.agent.validation import (
    ToolArgumentsError,
    invalid_json_failure,
    pretty_arguments,
    validate_tool_arguments,
)
from pi_tui.ai.messages import ToolCall
from pi_tui.ai.tool_arguments import make_tool_call

from .fakes import EchoTool


class Params(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(default="x", min_length=2, max_length=4, pattern="^[a-z]+$")
    mode: Literal["fast", "slow"] = "fast"
    count: int = Field(default=1, ge=1, le=10)
    ratio: float = Field(default=0.5, gt=0, lt=1)
    tags: list[str] = Field(default_factory=list, min_length=1)
    flag: bool = False


class ParamsTool(EchoTool):
    name: ClassVar[str] = "p"
    parameters: ClassVar[type[BaseModel]] = Params


def errors_for(**arguments: object) -> list[str]:
    tool_call = ToolCall(id="c", name="p", arguments=arguments)
    with pytest.raises(ToolArgumentsError) as raised:
        validate_tool_arguments(ParamsTool(), tool_call, dict(arguments))
    text = str(raised.value)
    body = text.split("\n\nReceived arguments:\n")[0]
    return body.splitlines()[1:]


def test_messages_match_pi_wording() -> None:
    assert errors_for(name="a", mode="medium", count=0, ratio=1, tags=[], flag="maybe") == [
        "  - name: must NOT have fewer than 2 characters",
        "  - mode: must be equal to one of the allowed values",
        "  - count: must be >= 1",
        "  - ratio: must be < 1",
        "  - tags: must NOT have fewer than 1 items",
        "  - flag: must be boolean",
    ]
    assert errors_for(name="ABC", count=11, ratio=0) == [
        '  - name: must match pattern "^[a-z]+$"',
        "  - count: must be <= 10",
        "  - ratio: must be > 0",
    ]
    assert errors_for(name="abcde", tags=[1]) == [
        "  - name: must NOT have more than 4 characters",
        "  - tags.0: must be string",
    ]
    assert errors_for(surprise=True) == ["  - root: must NOT have additional properties"]


def test_pretty_arguments_print_like_javascript() -> None:
    assert pretty_arguments({"a": 1.0, "b": [0.5, "ü"], "c": {}}) == (
        '{\n  "a": 1,\n  "b": [\n    0.5,\n    "ü"\n  ],\n  "c": {}\n}'
    )


def test_invalid_json_failure_only_for_unparseable_arguments() -> None:
    assert invalid_json_failure(ToolCall(id="c", name="p", arguments={"text": "fine"})) is None
    assert invalid_json_failure(make_tool_call("c", "p", '{"text": "fine"}')) is None
    raw = make_tool_call("c", "p", "[1,")
    assert invalid_json_failure(raw) == (
        'Validation failed for tool "p":\n  - root: must be object (the arguments are not valid JSON)\n\n'
        "Received arguments:\n[1,"
    )
