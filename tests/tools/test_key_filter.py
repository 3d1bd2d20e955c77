"""The streaming key filter: a key is cut out wherever the reads split it, nothing else changes."""

from __future__ import annotations

from pi_tui.config.key_secrets import REDACTED
from pi_tui.tools.key_filter import KeyFilter

KEY = "sk-live-0123456789abcdef"
OTHER = "other-secret-value-42"


def filtered(chunks: list[bytes], keys: list[str]) -> bytes:
    key_filter = KeyFilter(keys)
    return b"".join(key_filter.feed(chunk) for chunk in chunks) + key_filter.finish()


def test_a_key_split_at_every_byte_boundary_is_cut_out() -> None:
    data = f"before {KEY} middle {OTHER}\nafter {KEY}".encode()
    expected = f"before {REDACTED} middle {REDACTED}\nafter {REDACTED}".encode()
    for first in range(len(data) + 1):
        for second in range(first, len(data) + 1, 7):
            chunks = [data[:first], data[first:second], data[second:]]
            assert filtered(chunks, [KEY, OTHER]) == expected, (first, second)


def test_a_key_arriving_one_byte_at_a_time_is_cut_out() -> None:
    data = f"{KEY}{KEY}x".encode()
    assert filtered([bytes([byte]) for byte in data], [KEY]) == f"{REDACTED}{REDACTED}x".encode()


def test_only_a_possible_key_start_is_held_back() -> None:
    key_filter = KeyFilter([KEY])
    assert key_filter.feed(b"plain text sk-li") == b"plain text "
    assert key_filter.feed(b"ke this.") == b"sk-like this."
    assert key_filter.feed(b" ends with sk-") == b" ends with "
    assert key_filter.finish() == b"sk-"


def test_overlapping_keys_leave_no_part_showing() -> None:
    first, second = "AAAA-1111-BBBB", "BBBB-2222-CCCC"
    assert filtered([b"x AAAA-1111-BBBB-2222-CCCC y"], [first, second]) == f"x {REDACTED} y".encode()


def test_without_keys_output_passes_untouched() -> None:
    key_filter = KeyFilter([])
    assert key_filter.feed(b"sk-anything") == b"sk-anything"
    assert key_filter.finish() == b""


def test_non_ascii_keys_are_matched_as_utf8() -> None:
    key = "clé-secrète-ü-12345"
    data = f"[{key}]".encode()
    assert filtered([data[:5], data[5:]], [key]) == f"[{REDACTED}]".encode()
