"""Base for tool parameter models whose JSON schema reads like pi's TypeBox schemas.

pydantic's default schema adds `title`s, `default: null` and `anyOf [T, null]` for optional fields;
the model sees the schema on every request, so it is kept to pi's shape: plain types, descriptions,
`required` for the non-optional fields.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import DEFAULT_REF_TEMPLATE, GenerateJsonSchema, JsonSchemaMode


class ToolParams(BaseModel):
    """Tool parameters: unknown keys are ignored (TypeBox objects allow them), values coerced as pi does."""

    @classmethod
    def model_json_schema(
        cls,
        by_alias: bool | None = None,
        ref_template: str = DEFAULT_REF_TEMPLATE,
        schema_generator: type[GenerateJsonSchema] = GenerateJsonSchema,
        mode: JsonSchemaMode = "validation",
        **kwargs: Any,
    ) -> dict[str, Any]:
        schema = super().model_json_schema(by_alias, ref_template, schema_generator, mode, **kwargs)
        definitions = schema.pop("$defs", {})
        cleaned: dict[str, Any] = _clean(schema, definitions)
        return cleaned


def _clean(node: Any, definitions: dict[str, Any]) -> Any:
    if isinstance(node, list):
        return [_clean(item, definitions) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        target = definitions[node["$ref"].rsplit("/", 1)[-1]]
        merged = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
        return _clean(merged, definitions)
    any_of = node.get("anyOf")
    if isinstance(any_of, list):
        non_null = [option for option in any_of if option != {"type": "null"}]
        if len(non_null) == 1 and len(non_null) != len(any_of):
            rest = {k: v for k, v in node.items() if k != "anyOf"}
            node = {**non_null[0], **rest}
    cleaned: dict[str, Any] = {}
    for key, value in node.items():
        if key == "title":
            continue
        if key == "default" and value is None:
            continue
        if key == "properties" and isinstance(value, dict):
            cleaned[key] = {name: _clean(prop, definitions) for name, prop in value.items()}
        else:
            cleaned[key] = _clean(value, definitions)
    return cleaned
