"""Cuts API keys out of a command's output as it streams, before anything stores, shows or sends it.

The filter sits between the pipe and the `OutputPipeline`, so the spill file, the live preview and the
result all hold `[redacted]` (`config.key_secrets.REDACTED`) where a key was printed. A key may arrive
split across two reads: the bytes at the end of a chunk that could begin a key are held back until
the next chunk (or the end) shows whether they do; everything else passes at once.
"""

from __future__ import annotations

from collections.abc import Iterable

from pi_tui.config.key_secrets import REDACTED

_MARKER = REDACTED.encode()


class KeyFilter:
    """Streaming replacement of every key in `keys` (longest first) by the redaction marker."""

    def __init__(self, keys: Iterable[str]) -> None:
        patterns = {key.encode("utf-8", "surrogatepass") for key in keys if key}
        self._keys = sorted(patterns, key=len, reverse=True)
        self._first_bytes = frozenset(key[0] for key in self._keys)
        self._longest = len(self._keys[0]) if self._keys else 0
        self._held = b""

    def feed(self, data: bytes) -> bytes:
        """What of `held + data` can be passed on now, keys replaced."""
        if not self._keys:
            return data
        buffer = self._held + data if self._held else data
        matches = self._matches(buffer)
        done = matches[-1][1] if matches else 0
        cut = self._open_prefix_start(buffer, done)
        self._held = buffer[cut:]
        return self._replaced(buffer[:cut], matches)

    def finish(self) -> bytes:
        """The held-back bytes: at the end of output they cannot begin a key any more."""
        held, self._held = self._held, b""
        return held

    def _matches(self, buffer: bytes) -> list[tuple[int, int]]:
        """The spans of `buffer` holding keys, leftmost first; overlapping keys make one span, so no
        part of either is left showing."""
        found: list[tuple[int, int]] = []
        for key in self._keys:
            start = buffer.find(key)
            while start >= 0:
                found.append((start, start + len(key)))
                start = buffer.find(key, start + 1)
        if not found:
            return found
        found.sort()
        chosen: list[tuple[int, int]] = []
        for start, end in found:
            if chosen and start < chosen[-1][1]:
                chosen[-1] = (chosen[-1][0], max(end, chosen[-1][1]))
            else:
                chosen.append((start, end))
        return chosen

    def _open_prefix_start(self, buffer: bytes, done: int) -> int:
        """Where the earliest tail of `buffer` (after `done`) that is a proper prefix of a key starts."""
        for start in range(max(done, len(buffer) - self._longest + 1), len(buffer)):
            if buffer[start] in self._first_bytes:
                tail = buffer[start:]
                if any(len(key) > len(tail) and key.startswith(tail) for key in self._keys):
                    return start
        return len(buffer)

    @staticmethod
    def _replaced(data: bytes, matches: list[tuple[int, int]]) -> bytes:
        if not matches:
            return data
        parts: list[bytes] = []
        position = 0
        for start, end in matches:
            parts += (data[position:start], _MARKER)
            position = end
        parts.append(data[position:])
        return b"".join(parts)
