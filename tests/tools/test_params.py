from __future__ import annotations

from pydantic import Field

from pi_tui.tools.params import ToolParams


class Inner(ToolParams):
    name: str = Field(description="a name")


class Sample(ToolParams):
    text: str = Field(description="some text")
    count: int | None = Field(default=None, description="optional count")
    items: list[Inner] = Field(description="nested")


def test_schema_has_pi_shape() -> None:
    assert Sample.model_json_schema() == {
        "type": "object",
        "properties": {
            "text": {"type": "string", "description": "some text"},
            "count": {"type": "integer", "description": "optional count"},
            "items": {
                "type": "array",
                "description": "nested",
                "items": {
                    "type": "object",
                    "properties": {"name": {"type": "string", "description": "a name"}},
                    "required": ["name"],
                },
            },
        },
        "required": ["text", "items"],
    }


def test_unknown_keys_ignored_and_numbers_coerced() -> None:
    sample = Sample.model_validate({"text": "t", "count": "3", "items": [], "extra": 1})
    assert sample.count == 3
