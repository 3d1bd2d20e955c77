"""Where each value of a JSON document starts, so a validation error can point at line and column.

`json` reports positions only for syntax errors; pydantic reports a path (`providers.x.models.0.id`).
`value_offsets` walks already-valid JSON text once and maps every path to its value's offset.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

JsonPath = tuple[str | int, ...]

_WHITESPACE = " \t\r\n"
_DECODER = json.JSONDecoder()


def value_offsets(text: str) -> dict[JsonPath, int]:
    """Offsets of every value in `text` (which must be valid JSON), keyed by path."""
    offsets: dict[JsonPath, int] = {}

    def skip(index: int) -> int:
        while index < len(text) and text[index] in _WHITESPACE:
            index += 1
        return index

    def walk(index: int, path: JsonPath) -> int:
        index = skip(index)
        offsets[path] = index
        opener = text[index]
        if opener not in "{[":
            _, end = _DECODER.raw_decode(text, index)
            return end
        closer = "}" if opener == "{" else "]"
        index = skip(index + 1)
        position = 0
        while text[index] != closer:
            if opener == "{":
                key, index = json.decoder.scanstring(text, index + 1)  # type: ignore[attr-defined]
                index = walk(skip(index) + 1, (*path, key))
            else:
                index = walk(index, (*path, position))
                position += 1
            index = skip(index)
            if text[index] == ",":
                index = skip(index + 1)
        return index + 1

    walk(0, ())
    return offsets


def line_column(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of `offset`."""
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column


def locate(text: str, offsets: dict[JsonPath, int], path: Sequence[str | int]) -> tuple[int, int]:
    """Line and column of the deepest existing value on `path` (the document start if none)."""
    parts = tuple(path)
    while parts and parts not in offsets:
        parts = parts[:-1]
    return line_column(text, offsets.get(parts, 0))
