"""Tool-call arguments as the model wrote them: parsed once complete, raw text kept when invalid.

A model may stream arguments that are not a JSON object (truncated, malformed, a bare string). That must
not crash the reply: the `ToolCall` keeps `arguments = {}` and carries the raw text in the extra field
`invalidArguments` (camelCase, stored with the message like any unknown key; pi ignores it). The agent
loop asks `invalid_arguments(call)` and, when it returns a text, answers the call with a validation error
result quoting that text instead of running the tool. When replayed to a model the call is sent with `{}`.
"""

from __future__ import annotations

import json
from typing import Any

from pi_tui.ai.messages import ToolCall
from pi_tui.ai.valid_text import valid_json_value, without_lone_surrogates

INVALID_ARGUMENTS_FIELD = "invalidArguments"


def parse_arguments(raw: str) -> tuple[dict[str, Any], str | None]:
    """`(arguments, None)` for a JSON object (empty text counts as `{}`), else `({}, reason)`."""
    if not raw.strip():
        return {}, None
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as error:
        return {}, f"invalid JSON: {error}"
    except (ValueError, RecursionError) as error:  # an integer of 4300+ digits, nesting too deep
        return {}, f"invalid JSON: {error}"
    if not isinstance(value, dict):
        return {}, f"expected a JSON object, got {type(value).__name__}"
    # A `\\ud800` escape inside the argument text becomes a lone surrogate only now.
    return valid_json_value(value), None


def make_tool_call(call_id: str, name: str, raw: str) -> ToolCall:
    """A finished tool call; invalid argument text is kept under `invalidArguments`."""
    arguments, error = parse_arguments(raw)
    if error is None:
        return ToolCall(id=call_id, name=name, arguments=arguments)
    return ToolCall.model_validate(
        {"id": call_id, "name": name, "arguments": {}, INVALID_ARGUMENTS_FIELD: without_lone_surrogates(raw)}
    )


def invalid_arguments(call: ToolCall) -> str | None:
    """The raw argument text when the model's arguments could not be parsed, else None."""
    extra = call.model_extra or {}
    raw = extra.get(INVALID_ARGUMENTS_FIELD)
    return raw if isinstance(raw, str) else None
