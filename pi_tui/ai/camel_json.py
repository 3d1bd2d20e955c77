"""One JSON style for dataclasses: the object pi's `JSON.stringify` gives for the TypeScript value.

`camel_json(obj, value_json)` writes `"type"` first (pi's discriminator), then the fields in declaration
order under camelCase keys, leaving out a None field whose default is None (pi's optional property
that was never set). A field's metadata from `json_field` gives it another key, its own encoder, or
spreads its encoded object's keys into the parent. See docs/architecture.md, "One JSON style".
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from pydantic import BaseModel
from pydantic.alias_generators import to_camel

ValueJson = Callable[[Any], Any]

_METADATA_KEY = "pi_tui.camel_json"
_SCALARS = frozenset({str, int, float, bool})
_AS_IS = _SCALARS | {dict}


class _JsonField(NamedTuple):
    key: str | None
    encode: ValueJson | None
    spread: bool


class _FieldPlan(NamedTuple):
    name: str
    key: str
    encode: ValueJson | None
    spread: bool
    omit_none: bool


_PLANS: dict[type, tuple[_FieldPlan, ...]] = {}
"""Per class, what `camel_json` writes: built on a class's first encoding, so later ones only read."""


def json_field(
    *, key: str | None = None, encode: ValueJson | None = None, spread: bool = False
) -> Mapping[str, Any]:
    """Metadata for `dataclasses.field(metadata=...)`: `key` replaces the camelCase key, `encode` replaces
    the value encoder, `spread` merges the encoded object's keys into the parent in place of the field."""
    return {_METADATA_KEY: _JsonField(key, encode, spread)}


def _plan(cls: type) -> tuple[_FieldPlan, ...]:
    fields = sorted(dataclasses.fields(cls), key=lambda f: f.name != "type")
    plan = []
    for f in fields:
        meta: _JsonField = f.metadata.get(_METADATA_KEY, _JsonField(None, None, False))
        plan.append(
            _FieldPlan(
                name=f.name,
                key=meta.key or to_camel(f.name),
                encode=meta.encode,
                spread=meta.spread,
                omit_none=f.default is None,
            )
        )
    _PLANS[cls] = built = tuple(plan)
    return built


def camel_json(obj: Any, value_json: ValueJson) -> dict[str, Any]:
    """`obj` (a dataclass instance) as pi's JSON object; `value_json` encodes each field's value."""
    cls = obj.__class__
    plan = _PLANS.get(cls) or _plan(cls)
    out: dict[str, Any] = {}
    for name, key, encode, spread, omit_none in plan:
        value = getattr(obj, name)
        if value is None:
            if not (omit_none or spread):
                out[key] = None
        elif encode is None and value.__class__ in _SCALARS:
            out[key] = value
        elif spread:
            out.update((encode or value_json)(value))
        else:
            out[key] = (encode or value_json)(value)
    return out


def plain_value_json(value: Any) -> Any:
    """A value as JSON: scalars as they are, pydantic models by alias (their `to_json_obj` when they
    have one), sequences as lists, nested dataclasses by `camel_json`; dicts are JSON already."""
    if value is None or value.__class__ in _AS_IS:
        return value
    to_json_obj = getattr(value, "to_json_obj", None)
    if to_json_obj is not None:
        return to_json_obj()
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True)
    if isinstance(value, list | tuple):
        return [plain_value_json(item) for item in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return camel_json(value, plain_value_json)
    return value
