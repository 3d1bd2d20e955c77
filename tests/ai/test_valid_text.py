"""The two rules that make text valid where it enters (`pi_tui/ai/valid_text.py`), pinned against pi."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess

import pytest

from pi_tui.ai.valid_text import text_from_bytes, text_from_os, valid_json_value, without_lone_surrogates

# pi's sanitizeSurrogates, as its bundle writes the pattern.
PI_PATTERN = re.compile("[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]")
SAMPLES = ["plain", "a\ud800b", "\udc00x", "pair \ud83d\ude00 kept", "\ude00\ud83d", "\ud800\ud800\udc00", ""]


@pytest.mark.parametrize("text", SAMPLES)
def test_lone_surrogates_go_as_pi_removes_them(text: str) -> None:
    cleaned = without_lone_surrogates(text)

    assert cleaned == PI_PATTERN.sub("", text).encode("utf-16-le", "surrogatepass").decode("utf-16-le")
    cleaned.encode("utf-8")


def test_two_halves_of_one_pair_become_the_character() -> None:
    assert without_lone_surrogates("\ud83d" + "\ude00") == "\U0001f600"


def test_clean_text_is_returned_as_it_is() -> None:
    text = "already fine \u201cquoted\u201d"
    assert without_lone_surrogates(text) is text
    value = {"a": [text, 1, None], "b": {"c": "d"}}
    assert valid_json_value(value) is value


def test_json_values_are_cleaned_in_keys_and_nested_strings() -> None:
    value = json.loads('{"k\\ud800": ["x\\udfff", {"y": "\\ud83d\\ude00"}], "n": 1}')

    assert valid_json_value(value) == {"k": ["x", {"y": "\U0001f600"}], "n": 1}


def test_operating_system_bytes_become_replacement_characters() -> None:
    name = os.fsdecode(b"caf\xe9 \xe2\x82 ok \xff\xfe")

    assert text_from_os(name) == "caf\ufffd \ufffd ok \ufffd\ufffd"
    assert text_from_os(name) == text_from_bytes(b"caf\xe9 \xe2\x82 ok \xff\xfe")
    assert text_from_os("a\ud800b") == "ab"


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node on PATH")
def test_bytes_decode_as_node_decodes_them() -> None:
    node = shutil.which("node")
    assert node is not None
    data = b"caf\xe9 \xe2\x82 ok \xff\xfe \xf0\x9f\x98 end \xed\xa0\x80"
    script = "process.stdout.write(JSON.stringify(Buffer.from(process.argv[1], 'hex').toString('utf8')))"
    out = subprocess.run([node, "-e", script, data.hex()], capture_output=True, check=True, text=True).stdout

    assert text_from_bytes(data) == json.loads(out)
