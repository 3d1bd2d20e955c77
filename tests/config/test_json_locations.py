"""Paths in a JSON document mapped to line and column."""

from __future__ import annotations

from pi_tui.config.json_locations import line_column, locate, value_offsets


def test_every_value_has_an_offset() -> None:
    text = '{"a": [1, {"b": "x"}], "c": {}, "d": "q\\"uote"}'
    offsets = value_offsets(text)
    assert text[offsets[("a", 1, "b")] :].startswith('"x"')
    assert text[offsets[("d",)] :].startswith('"q')
    assert offsets[()] == 0
    assert set(offsets) == {(), ("a",), ("a", 0), ("a", 1), ("a", 1, "b"), ("c",), ("d",)}


def test_locate_falls_back_to_the_deepest_existing_parent() -> None:
    text = '{\n  "a": {\n    "b": 1\n  }\n}'
    offsets = value_offsets(text)
    assert locate(text, offsets, ("a", "b")) == (3, 10)
    assert locate(text, offsets, ("a", "missing")) == (2, 8)
    assert locate(text, offsets, ("nothing",)) == (1, 1)
    assert line_column("x\ny", 2) == (2, 1)
