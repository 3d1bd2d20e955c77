"""Comparing JSON texts by value while keeping number text (`1.0` ≠ `1`, `5.4e-05` ≠ `0.000054`)."""

from __future__ import annotations

import json
from typing import Any

_NUMBER = "\x00number:"


def _number(text: str) -> str:
    return _NUMBER + text


def parse_keeping_numbers(text: str) -> Any:
    """Parse JSON, turning every number into a marked string of its original text."""
    return json.loads(text, parse_float=_number, parse_int=_number, parse_constant=_number)


def canonical(text: str) -> str:
    """Key-order-independent form of a JSON text in which number text still matters."""
    return json.dumps(parse_keeping_numbers(text), sort_keys=True, ensure_ascii=False)
