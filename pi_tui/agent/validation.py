"""Tool-argument validation with pi's error text.

The text the model gets back on a bad call is part of the contract:

    Validation failed for tool "<name>":
      - <dotted.path>: <message>

    Received arguments:
    <the original arguments as 2-space JSON>

Messages are worded as pi's validator words them (`must be string`, `must have required properties
path`, …) rather than pydantic's, so a model trained on pi's feedback reads the same hints.
"""

from __future__ import annotations

import json
from typing import Any, get_args

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from pi_tui.agent.tool import AgentTool
from pi_tui.ai.js_json import js_number
from pi_tui.ai.messages import ToolCall
from pi_tui.ai.tool_arguments import invalid_arguments

"""The extra `ToolCall` field `pi_tui.ai.tool_arguments` uses for unparseable argument text."""

INVALID_JSON_MESSAGE = "must be object (the arguments are not valid JSON)"

_TYPE_MESSAGES = {
    "string_type": "must be string",
    "string_unicode": "must be string",
    "int_type": "must be integer",
    "int_parsing": "must be integer",
    "int_from_float": "must be integer",
    "float_type": "must be number",
    "float_parsing": "must be number",
    "bool_type": "must be boolean",
    "bool_parsing": "must be boolean",
    "list_type": "must be array",
    "tuple_type": "must be array",
    "set_type": "must be array",
    "dict_type": "must be object",
    "model_type": "must be object",
    "model_attributes_type": "must be object",
    "none_required": "must be null",
    "literal_error": "must be equal to one of the allowed values",
    "enum": "must be equal to one of the allowed values",
    "extra_forbidden": "must NOT have additional properties",
}


class ToolArgumentsError(Exception):
    """Arguments a tool cannot run with; `str(error)` is the complete text for the tool result."""


def _number(value: Any) -> str:
    return js_number(value) if isinstance(value, int | float) and not isinstance(value, bool) else str(value)


def _message(error: ErrorDetails) -> str:
    kind = error["type"]
    ctx = error.get("ctx") or {}
    if kind == "missing":
        return f"must have required properties {error['loc'][-1]}" if error["loc"] else "must be object"
    if kind in _TYPE_MESSAGES:
        return _TYPE_MESSAGES[kind]
    bounds = {"greater_than_equal": ">=", "greater_than": ">", "less_than_equal": "<=", "less_than": "<"}
    if kind in bounds:
        limit = next(iter(ctx.values()), "")
        return f"must be {bounds[kind]} {_number(limit)}"
    if kind == "string_too_short":
        return f"must NOT have fewer than {ctx.get('min_length')} characters"
    if kind == "string_too_long":
        return f"must NOT have more than {ctx.get('max_length')} characters"
    if kind == "too_short":
        return f"must NOT have fewer than {ctx.get('min_length')} items"
    if kind == "too_long":
        return f"must NOT have more than {ctx.get('max_length')} items"
    if kind == "string_pattern_mismatch":
        return f'must match pattern "{ctx.get("pattern")}"'
    return str(error["msg"])


def _path(error: ErrorDetails) -> str:
    loc = error["loc"]
    if error["type"] == "extra_forbidden":
        # pi reports an unexpected property on the object that holds it.
        loc = loc[:-1]
    return ".".join(str(part) for part in loc) or "root"


def _js_like(value: Any) -> Any:
    """Integral floats print as integers, as JavaScript prints them."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return int(value)
    if isinstance(value, dict):
        return {key: _js_like(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_js_like(item) for item in value]
    return value


def pretty_arguments(arguments: Any) -> str:
    """`JSON.stringify(arguments, null, 2)`."""
    return json.dumps(_js_like(arguments), indent=2, ensure_ascii=False, default=str)


def format_validation_failure(tool_name: str, lines: list[tuple[str, str]], received: str) -> str:
    errors = "\n".join(f"  - {path}: {message}" for path, message in lines) or "Unknown validation error"
    return f'Validation failed for tool "{tool_name}":\n{errors}\n\nReceived arguments:\n{received}'


def invalid_json_failure(tool_call: ToolCall) -> str | None:
    """The error text for a call whose arguments were not valid JSON (quoting the raw text), else None."""
    raw = invalid_arguments(tool_call)
    if raw is None:
        return None
    return format_validation_failure(tool_call.name, [("root", INVALID_JSON_MESSAGE)], raw)


def _accepts_none(annotation: Any) -> bool:
    return (
        annotation is None
        or annotation is type(None)
        or annotation is Any
        or type(None) in get_args(annotation)
    )


def _without_optional_nulls(model: type[BaseModel], arguments: dict[str, Any]) -> dict[str, Any]:
    """Drop `null` for optional fields that do not take None (pi's `normalizeOptionalNulls`)."""
    droppable: set[str] = set()
    for name, info in model.model_fields.items():
        if not info.is_required() and not _accepts_none(info.annotation):
            droppable.update({name, info.alias or name})
    return {key: value for key, value in arguments.items() if not (value is None and key in droppable)}


def validate_tool_arguments(
    tool: AgentTool[Any], tool_call: ToolCall, arguments: dict[str, Any]
) -> BaseModel:
    """The parameter model for `arguments` (already through `prepare_arguments`), or `ToolArgumentsError`.

    Validation is pydantic's lax mode, which coerces as pi does (numeric strings to numbers, "true" to
    True). The error text echoes the call's original arguments, not the prepared ones.
    """
    try:
        return tool.parameters.model_validate(_without_optional_nulls(tool.parameters, arguments))
    except ValidationError as error:
        lines = [(_path(detail), _message(detail)) for detail in error.errors()]
        received = pretty_arguments(tool_call.arguments)
        raise ToolArgumentsError(format_validation_failure(tool_call.name, lines, received)) from None
