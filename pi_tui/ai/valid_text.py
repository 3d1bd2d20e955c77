"""Text made valid Unicode where it enters pi-tui, by pi's two rules (docs/reliability.md, section 12).

Python can hold strings no encoder accepts: a lone UTF-16 surrogate from a JSON escape (`"\\ud800"`,
which pi itself writes and a provider may stream), or a byte that is not UTF-8 in an operating-system
string (argv, a file name), which Python decodes to a surrogate in `\\udc80`-`\\udcff`
(surrogateescape). Either makes the next request, the session's HTML page or a print fail with
"surrogates not allowed". pi, running on JavaScript, meets the same inputs in two ways, and these are
the two rules:

- `text_from_os`: bytes that are not UTF-8 become U+FFFD, as Node decodes argv, stdin, file names and
  process output for pi;
- `without_lone_surrogates`: JSON-born text (provider replies, session files) loses its lone
  surrogates, pi's `sanitizeSurrogates` (pi applies it to what it sends; pi-tui applies it where the
  text arrives, so what is stored is what is sent). Two halves of one pair in one string are joined.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")
_ESCAPED_BYTES = re.compile("[\udc80-\udcff]+")
REPLACEMENT = "\ufffd"


def has_surrogates(text: str) -> bool:
    return _SURROGATE.search(text) is not None


def without_lone_surrogates(text: str) -> str:
    """pi's rule for JSON text: lone surrogates removed, pairs joined into their character."""
    if _SURROGATE.search(text) is None:
        return text
    joined = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    return _SURROGATE.sub("", joined)


def text_from_os(text: str) -> str:
    """An operating-system string (surrogateescape-decoded) as Node would have decoded its bytes:
    every invalid sequence one U+FFFD; any other lone surrogate removed."""
    if _SURROGATE.search(text) is None:
        return text
    restored = _ESCAPED_BYTES.sub(
        lambda run: run.group(0).encode("utf-8", "surrogateescape").decode("utf-8", "replace"), text
    )
    return without_lone_surrogates(restored)


def text_from_bytes(data: bytes) -> str:
    """Bytes from outside (stdin, a stream) as text: invalid UTF-8 becomes U+FFFD, as Node decodes it."""
    return data.decode("utf-8", "replace")


def valid_json_value(value: Any) -> Any:
    """A parsed JSON value with `without_lone_surrogates` applied to every string, keys included.
    Returns `value` itself when nothing needed changing, so clean input costs no copy."""
    return _mapped(value, without_lone_surrogates)


def valid_os_value(value: Any) -> Any:
    """`text_from_os` applied to every string of a JSON-like value (a tool result built from file names);
    `value` itself when nothing needed changing."""
    return _mapped(value, text_from_os)


def _mapped(value: Any, clean: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, dict):
        changed = False
        cleaned: dict[Any, Any] = {}
        for key, item in value.items():
            new_key = clean(key) if isinstance(key, str) else key
            new_item = _mapped(item, clean)
            changed = changed or new_key is not key or new_item is not item
            cleaned[new_key] = new_item
        return cleaned if changed else value
    if isinstance(value, list):
        items = [_mapped(item, clean) for item in value]
        return items if any(new is not old for new, old in zip(items, value, strict=True)) else value
    return value
