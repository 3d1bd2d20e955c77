"""Strict tool schemas, as pi 1.6 makes them for models that take them (its `constrained-sampling`).

A tool that asks for JSON-schema constrained sampling (`ToolSpec.constrained_sampling`, `strict:
"prefer"` on pi's read, bash, edit and write) is sent with `strict: true` and a strict schema when the
model supports strict tools and the schema can be made strict; otherwise (`prefer`) as an ordinary tool.
Making a schema strict: every object lists all its properties as required, an optional property becomes
`anyOf: [<its schema>, {"type": "null"}]` (unless it already allows null), and `additionalProperties` is
false. Schemas strict mode cannot express (`$ref`, `oneOf`, tuples, unions of objects, a provider's
unsupported keywords, ...) make the tool go without.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping
from typing import Any

from pi_tui.ai.stream import ToolSpec

UnsupportedKeyword = Callable[[str, Any], bool]
"""Whether a provider's strict mode refuses a keyword with that value."""

_UNSUPPORTED_KEYS = (
    "$ref",
    "$defs",
    "definitions",
    "allOf",
    "oneOf",
    "patternProperties",
    "dependentSchemas",
    "dependencies",
    "unevaluatedProperties",
    "propertyNames",
    "contains",
    "prefixItems",
    "not",
    "if",
    "then",
    "else",
)


class UnsupportedStrictSchema(ValueError):
    """The schema cannot be made strict (the message says why)."""


class StrictToolRequired(ValueError):
    """A tool that requires strict sampling (`strict: "require"`) cannot have it on this model."""


def _is_object(value: Any) -> bool:
    return isinstance(value, dict)


def _structured(schema: Any) -> bool:
    if not _is_object(schema):
        return False
    kind = schema.get("type")
    types = [kind] if isinstance(kind, str) else kind if isinstance(kind, list) else []
    return "object" in types or "array" in types or "properties" in schema or "items" in schema


def _allows_null(schema: Any) -> bool:
    if not _is_object(schema):
        return False
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    if "const" in schema and schema["const"] is None:
        return True
    if isinstance(schema.get("enum"), list) and None in schema["enum"]:
        return True
    variants = schema.get("anyOf")
    return isinstance(variants, list) and any(_allows_null(variant) for variant in variants)


def _make_strict(schema: Any, unsupported: UnsupportedKeyword | None) -> None:
    if not _is_object(schema):
        raise UnsupportedStrictSchema("boolean schemas are unsupported")
    for key in _UNSUPPORTED_KEYS:
        if key in schema:
            raise UnsupportedStrictSchema(f"{key} schemas are unsupported")
    if unsupported is not None:
        for key, value in schema.items():
            if unsupported(key, value):
                raise UnsupportedStrictSchema(f"{key}: {json.dumps(value)} is unsupported")
    if "type" not in schema and "anyOf" not in schema and "enum" not in schema:
        raise UnsupportedStrictSchema("schemas without a type are unsupported")
    if "anyOf" in schema:
        variants = schema["anyOf"]
        if not isinstance(variants, list) or not variants:
            raise UnsupportedStrictSchema("anyOf must contain at least one schema")
        for variant in variants:
            if _structured(variant):
                raise UnsupportedStrictSchema("object and array unions are unsupported")
            _make_strict(variant, unsupported)
    if "items" in schema:
        if isinstance(schema["items"], list):
            raise UnsupportedStrictSchema("tuple schemas are unsupported")
        _make_strict(schema["items"], unsupported)
    is_object = schema.get("type") == "object"
    if "properties" in schema and not is_object:
        raise UnsupportedStrictSchema("properties require type object")
    if not is_object:
        return
    if "additionalProperties" in schema and schema["additionalProperties"] is not False:
        raise UnsupportedStrictSchema("schema-valued or true additionalProperties is unsupported")
    properties = schema.get("properties", {})
    if not _is_object(properties):
        raise UnsupportedStrictSchema("object properties must be a schema map")
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(key, str) for key in required):
        raise UnsupportedStrictSchema("object required must be a string array")
    if any(key not in properties for key in required):
        raise UnsupportedStrictSchema("required contains an unknown property")
    for key, value in properties.items():
        _make_strict(value, unsupported)
        if key not in required and not _allows_null(value):
            properties[key] = {"anyOf": [value, {"type": "null"}]}
    # In place, as JavaScript assigns: a key the schema had keeps its position, a new one goes last.
    schema["required"] = list(properties)
    schema["additionalProperties"] = False


def strict_schema(schema: Mapping[str, Any], unsupported: UnsupportedKeyword | None = None) -> dict[str, Any]:
    """A strict copy of a tool's parameter schema (pi's `makeStrictJsonSchema`)."""
    cloned = copy.deepcopy(dict(schema))
    _make_strict(cloned, unsupported)
    if cloned.get("type") != "object":
        raise UnsupportedStrictSchema("root schema must have type object")
    return cloned


def prefers_strict(tool: ToolSpec) -> bool:
    config = tool.constrained_sampling or {}
    return config.get("type") == "json_schema" and config.get("strict") == "prefer"


def sends_strict(tool: ToolSpec, supported: bool, unsupported: UnsupportedKeyword | None = None) -> bool:
    """pi's `resolveJsonSchemaStrictSampling`: whether `tool` goes with `strict: true`."""
    config = tool.constrained_sampling or {}
    if config.get("type") != "json_schema":
        return False
    requires = config.get("strict") == "require"
    if supported:
        try:
            strict_schema(tool.parameters, unsupported)
        except UnsupportedStrictSchema as reason:
            if requires:
                raise StrictToolRequired(
                    f'Tool "{tool.name}" requires JSON-schema constrained sampling, but {reason}.'
                ) from None
            return False
        return True
    if requires:
        raise StrictToolRequired(
            f'Tool "{tool.name}" requires JSON-schema constrained sampling, but strict tools are unsupported.'
        )
    return False
