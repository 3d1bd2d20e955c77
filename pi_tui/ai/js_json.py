"""JSON text exactly as JavaScript's `JSON.stringify` writes it.

pi is written in TypeScript, so its session files use JavaScript number formatting (`0.000054`, not
`5.4e-05`; `1` for an integral float, not `1.0`). Writing the same way keeps files we append to
indistinguishable from pi's, line for line.
"""

from __future__ import annotations

import json
import math
import re
import secrets
from typing import Any

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
# A marker no real string can contain by accident; the number text follows it inside the quotes.
_TOKEN = f"jsnum{secrets.token_hex(8)}"
_MARK = f"\x00{_TOKEN}:"
_MARKED = re.compile(r'"\\u0000' + _TOKEN + r':([^"]*)"')


def js_number(value: float) -> str:
    """`Number.prototype.toString()` for a finite double; NaN and infinities become `null`."""
    if math.isnan(value) or math.isinf(value):
        return "null"
    text = repr(value)
    # Integral values print without a fraction; from 1e16 on repr switches to an exponent, and the
    # shortest digits (not the exact binary value) are then padded with zeros, as JavaScript does.
    if value == int(value) and "e" not in text:
        return str(int(value))
    if "e" not in text:
        return text
    mantissa, exponent_text = text.split("e")
    sign = ""
    if mantissa.startswith("-"):
        sign, mantissa = "-", mantissa[1:]
    point = mantissa.index(".") if "." in mantissa else len(mantissa)
    digits = mantissa.replace(".", "").lstrip("0").rstrip("0") or "0"
    # JavaScript's n: value = 0.<digits> x 10^n
    n = point + int(exponent_text)
    k = len(digits)
    if k <= n <= 21:
        body = digits + "0" * (n - k)
    elif 0 < n <= 21:
        body = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        body = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        body = digits[0] + ("." + digits[1:] if k > 1 else "") + "e" + ("+" if e >= 0 else "-") + str(abs(e))
    return sign + body


def _prepare(value: Any) -> Any:
    if isinstance(value, float):
        text = js_number(value)
        if text == repr(value):
            return value
        if text.lstrip("-").isdigit():
            return int(text)
        return _MARK + text
    if isinstance(value, dict):
        return {key: _prepare(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_prepare(item) for item in value]
    return value


def js_dumps(value: Any) -> str:
    """Compact JSON (no spaces), non-ASCII kept, numbers and escapes as JavaScript writes them."""
    text = json.dumps(_prepare(value), ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    if _TOKEN in text:
        text = _MARKED.sub(lambda match: match.group(1), text)
    if _LONE_SURROGATE.search(text):
        text = _LONE_SURROGATE.sub(lambda match: f"\\u{ord(match.group(0)):04x}", text)
    return text
