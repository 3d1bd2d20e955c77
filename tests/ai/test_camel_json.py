"""`camel_json`: pi's key order and names for a dataclass, with per-field overrides."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from pi_tui.ai.camel_json import camel_json, json_field, plain_value_json
from pi_tui.ai.messages import TextContent, Usage


@dataclass(frozen=True)
class Inner:
    entry_id: str
    tool_names: tuple[str, ...]


@dataclass(frozen=True)
class Sample:
    first_name: str
    leaf_id: str | None
    inner: Inner
    usage: Usage
    blocks: list[TextContent]
    extra: dict[str, Any]
    note: str | None = None
    type: Literal["sample"] = field(default="sample", init=False)


@dataclass(frozen=True)
class Overrides:
    label: str = field(metadata=json_field(key="displayLabel"))
    count: int = field(metadata=json_field(encode=lambda n: f"{n:,}"))
    figures: Inner = field(metadata=json_field(spread=True, encode=lambda i: {"a": i.entry_id, "b": 2}))
    last: bool = False


def _text(obj: Any) -> str:
    return json.dumps(obj)


def test_type_first_then_fields_in_order_camel_cased() -> None:
    sample = Sample(
        "Ada",
        None,
        Inner("e1", ("ls", "read")),
        Usage(input=3, cache_read=1),
        [TextContent(text="hi")],
        {"snake_key": [1]},
    )
    assert _text(camel_json(sample, plain_value_json)) == _text(
        {
            "type": "sample",
            "firstName": "Ada",
            "leafId": None,
            "inner": {"entryId": "e1", "toolNames": ["ls", "read"]},
            "usage": Usage(input=3, cache_read=1).to_json_obj(),
            "blocks": [{"type": "text", "text": "hi"}],
            "extra": {"snake_key": [1]},
        }
    )


def test_a_none_field_is_left_out_only_when_its_default_is_none() -> None:
    sample = Sample("Ada", None, Inner("e1", ()), Usage(), [], {}, note="set")
    obj = camel_json(sample, plain_value_json)
    assert obj["leafId"] is None
    assert obj["note"] == "set"


def test_metadata_renames_encodes_and_spreads() -> None:
    obj = camel_json(Overrides("x", 12345, Inner("e1", ())), plain_value_json)
    assert _text(obj) == _text({"displayLabel": "x", "count": "12,345", "a": "e1", "b": 2, "last": False})


def test_non_scalar_values_go_through_the_callers_encoder() -> None:
    sample = Sample("Ada", "l1", Inner("e1", ()), Usage(), [], {})
    obj = camel_json(sample, lambda value: "encoded")
    assert (obj["firstName"], obj["leafId"]) == ("Ada", "l1")
    assert obj["inner"] == obj["usage"] == obj["blocks"] == obj["extra"] == "encoded"
    assert camel_json(Overrides("x", 1, Inner("e1", ())), lambda value: "encoded")["count"] == "1"
