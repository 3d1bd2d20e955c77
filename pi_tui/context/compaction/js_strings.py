"""String lengths and slices in JavaScript's units (UTF-16 code units), where pi's numbers depend on them.

pi counts `text.length` for its chars/4 estimates and cuts tool results with `text.slice(0, n)`;
both count UTF-16 code units, so a character outside the Basic Multilingual Plane counts twice.
"""

from __future__ import annotations


def js_len(text: str) -> int:
    """`text.length` in JavaScript."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def js_slice(text: str, end: int) -> str:
    """`text.slice(0, end)`; a surrogate pair cut in half keeps its lone first half, as JavaScript does."""
    if text.isascii():
        return text[:end]
    units = text.encode("utf-16-le", "surrogatepass")[: 2 * max(end, 0)]
    return units.decode("utf-16-le", "surrogatepass")


def js_sort_key(text: str) -> bytes:
    """Key reproducing JavaScript's default `Array.prototype.sort` order (UTF-16 code units)."""
    return text.encode("utf-16-be", "surrogatepass")
