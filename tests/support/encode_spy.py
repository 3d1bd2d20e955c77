"""The real tokenizer, recording the length of every text it is asked to encode."""

from __future__ import annotations

from typing import Any

from pi_tui.ai import tokens


class EncodeSpy:
    """Install with `monkeypatch.setattr(tokens, "_encoding", EncodeSpy())`."""

    def __init__(self) -> None:
        self.real = tokens.get_encoding()
        self.lengths: list[int] = []

    def encode(self, text: str, **options: Any) -> list[int]:
        self.lengths.append(len(text))
        return list(self.real.encode(text, **options))
