"""`js_dumps` must produce what JavaScript's JSON.stringify produces (expected values checked in node)."""

from __future__ import annotations

import json
import math

import pytest

from pi_tui.ai.js_json import js_dumps, js_number


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0.000054, "0.000054"),
        (1.9999999999999998e-05, "0.000019999999999999998"),
        (0.0013959999999999999, "0.0013959999999999999"),
        (1e-6, "0.000001"),
        (1e-7, "1e-7"),
        (1.23e-18, "1.23e-18"),
        (5e-324, "5e-324"),
        (0.1 + 0.2, "0.30000000000000004"),
        (1.5, "1.5"),
        (1.0, "1"),
        (-0.0, "0"),
        (-2.5, "-2.5"),
        (1e20, "100000000000000000000"),
        (1.2345678901234568e20, "123456789012345680000"),
        (1e21, "1e+21"),
        (1.5e300, "1.5e+300"),
        (1.7976931348623157e308, "1.7976931348623157e+308"),
        (float(2**53), "9007199254740992"),
        (123456.789, "123456.789"),
    ],
)
def test_numbers_as_javascript_prints_them(value: float, expected: str) -> None:
    assert js_number(value) == expected
    assert js_dumps({"n": value}) == '{"n":' + expected + "}"
    assert float(json.loads(expected)) == value  # and it reads back as the same double


def test_non_finite_numbers_become_null() -> None:
    assert js_dumps([math.nan, math.inf, -math.inf]) == "[null,null,null]"


def test_integers_bools_and_none() -> None:
    assert js_dumps({"a": 1795993475799, "b": True, "c": None, "d": -3}) == (
        '{"a":1795993475799,"b":true,"c":null,"d":-3}'
    )


def test_lone_surrogates_are_escaped_and_pairs_kept() -> None:
    assert js_dumps("a\ud800b") == '"a\\ud800b"'
    assert js_dumps("\udfff") == '"\\udfff"'
    assert js_dumps("😀") == '"😀"'
    assert json.loads(js_dumps("x\ud83dy")) == "x\ud83dy"


def test_control_characters_escaped_like_json_stringify() -> None:
    assert js_dumps("\x00\x01\x1f") == '"\\u0000\\u0001\\u001f"'
    assert js_dumps("\b\f\n\r\t") == '"\\b\\f\\n\\r\\t"'
    assert js_dumps("\x7f") == '"\x7f"'  # DEL is not escaped
    assert js_dumps("\u2028\u2029") == '"\u2028\u2029"'  # nor are the line separators
    assert js_dumps('q"b\\s/') == '"q\\"b\\\\s/"'


def test_non_ascii_is_kept_and_output_is_compact() -> None:
    assert js_dumps({"k": ["é", "✓", {"x": [1, 2]}]}) == '{"k":["é","✓",{"x":[1,2]}]}'


def test_key_order_is_insertion_order() -> None:
    assert js_dumps({"z": 1, "a": 2}) == '{"z":1,"a":2}'
