"""Integer settings held within their bounds: a value out of range is replaced by the nearest bound and
reported, never fatal and never silent.

The bounds are the `ge`/`gt`/`le`/`lt` constraints on the pydantic fields themselves (settings.py,
models.py), so each is stated once; README lists them. `clamp_integers` walks a raw JSON document
beside the model that will validate it and returns a copy with each out-of-range integer clamped; the
caller validates the copy and keeps the document as read (a file is never rewritten with the clamped
value). Values that are not integers at all are left for validation to report. The reserve for the
reply is also bounded by the model's window, which only the budget knows: `reserve_within_window`.
"""

from __future__ import annotations

import types
import typing
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from pi_tui.config.settings import BranchSummarySettings, CompactionSettings, Settings

JsonPath = tuple[str | int, ...]

_BOUND_RULES = (("ge", 0), ("gt", 1), ("le", 0), ("lt", -1))
"""pydantic's constraint attributes and what each adds to give an inclusive integer bound."""
SHOWN_DIGITS = 16
"""A clamped value is quoted up to this many digits (JSON admits integers of 4,300)."""
RESERVE_WINDOW_SHARE = 2
"""The reserve for the reply is at most 1/this of the window: the rest is left for the context."""


@dataclass(frozen=True)
class Clamped:
    """One integer replaced by the bound it crossed."""

    path: JsonPath
    value: int
    used: int

    @property
    def key(self) -> str:
        return ".".join(str(part) for part in self.path)

    @property
    def message(self) -> str:
        side = "above the largest" if self.value > self.used else "below the smallest"
        digits = str(self.value)
        shown = digits if len(digits) <= SHOWN_DIGITS else f"{digits[:SHOWN_DIGITS]}… ({len(digits)} digits)"
        return f"{shown} is {side} value allowed, {self.used:,}: {self.used:,} is used"


def _integer_range(info: FieldInfo) -> tuple[int | None, int | None] | None:
    """The field's bounds when it holds an integer (or an optional one), else None."""
    annotation = info.annotation
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        kinds = {kind for kind in typing.get_args(annotation) if kind is not type(None)}
        annotation = kinds.pop() if len(kinds) == 1 else None
    if annotation is not int:
        return None
    low = high = None
    for rule in info.metadata:
        for name, shift in _BOUND_RULES:
            bound = getattr(rule, name, None)
            if isinstance(bound, int):
                if name in ("ge", "gt"):
                    low = bound + shift
                else:
                    high = bound + shift
    return low, high


def _model_of(annotation: Any) -> tuple[str, type[BaseModel]] | None:
    """How a field holds sub-models: ("one", M), ("list", M) or ("dict", M) for M, list[M], dict[str, M]."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        kinds = [kind for kind in typing.get_args(annotation) if kind is not type(None)]
        annotation = kinds[0] if len(kinds) == 1 else None
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "one", annotation
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    inner = args[-1] if args else None
    if origin in (list, dict) and isinstance(inner, type) and issubclass(inner, BaseModel):
        return ("list" if origin is list else "dict"), inner
    return None


def clamp_integers(document: Any, model: type[BaseModel], path: JsonPath = ()) -> tuple[Any, list[Clamped]]:
    """`document` with every integer outside its field's bounds clamped (a copy where anything changed)."""
    if not isinstance(document, dict):
        return document, []
    result = dict(document)
    found: list[Clamped] = []
    for name, info in model.model_fields.items():
        key = info.alias or name
        if key not in document:
            continue
        value = document[key]
        bounds = _integer_range(info)
        if bounds is not None:
            if type(value) is int:  # a bool or a float is the validator's to report
                low, high = bounds
                used = max(low, value) if low is not None else value
                used = min(high, used) if high is not None else used
                if used != value:
                    result[key] = used
                    found.append(Clamped((*path, key), value, used))
            continue
        shape = _model_of(info.annotation)
        if shape is None:
            continue
        kind, inner = shape
        if kind == "one":
            result[key], more = clamp_integers(value, inner, (*path, key))
            found += more
        elif kind == "list" and isinstance(value, list):
            items = []
            for index, item in enumerate(value):
                clamped, more = clamp_integers(item, inner, (*path, key, index))
                items.append(clamped)
                found += more
            result[key] = items
        elif kind == "dict" and isinstance(value, dict):
            entries = {}
            for entry_key, item in value.items():
                entries[entry_key], more = clamp_integers(item, inner, (*path, key, entry_key))
                found += more
            result[key] = entries
    return (result if found else document), found


def reserve_within_window(reserve_tokens: int, context_window: int) -> int:
    """The reserve a budget of `context_window` tokens uses: at most half of it (a reserve as large as
    the window would put every request over the compaction threshold). A window of 0 is unknown: the
    reserve is kept as set."""
    if context_window <= 0:
        return reserve_tokens
    return max(0, min(reserve_tokens, context_window // RESERVE_WINDOW_SHARE))


def reserve_note(
    key: str,
    section: CompactionSettings | BranchSummarySettings,
    context_window: int,
    model_ref: str | None = None,
) -> str | None:
    """What the budget says when the reserve a settings file set as `key` is more than half the window.
    None when it fits, and for the default (16,384), which nobody chose: it shrinks for windows under
    32,768 without a word."""
    used = reserve_within_window(section.reserve_tokens, context_window)
    if used == section.reserve_tokens or "reserve_tokens" not in section.model_fields_set:
        return None
    whose = f"{model_ref}'s window" if model_ref else "the window"
    return (
        f"{key} {section.reserve_tokens:,} is more than half of {whose} ({context_window:,} tokens):"
        f" {used:,} is reserved"
    )


def reserve_notes(settings: Settings, context_window: int, model_ref: str) -> list[str]:
    """The notes for both reserves (compaction and branch summaries)."""
    notes = (
        reserve_note("compaction.reserveTokens", settings.compaction, context_window, model_ref),
        reserve_note("branchSummary.reserveTokens", settings.branch_summary, context_window, model_ref),
    )
    return [note for note in notes if note is not None]
