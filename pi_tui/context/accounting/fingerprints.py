"""Short content hashes and the rolling prefix chain that makes "longest common prefix" cheap.

A fingerprint names bytes: equal fingerprints mean the model was shown the same bytes. The chain link
for segment `i` hashes link `i-1` with fingerprint `i`, so two requests share their first `n` segments
exactly when their `n`-th links are equal, and the first divergence is found by binary search.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

FINGERPRINT_CHARS = 16
CHAIN_SEED = ""


def fingerprint(text: str) -> str:
    """The same 16-hex-digit form as `PromptSegment.fingerprint`."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:FINGERPRINT_CHARS]


def chain_link(previous: str, segment_fingerprint: str) -> str:
    return hashlib.sha256(f"{previous}|{segment_fingerprint}".encode()).hexdigest()[:FINGERPRINT_CHARS]


def extend_chain(chain: list[str], fingerprints: Sequence[str]) -> list[str]:
    """`chain` (the links of the first `len(chain)` fingerprints) extended over the rest of them."""
    links = list(chain)
    previous = links[-1] if links else CHAIN_SEED
    for value in fingerprints[len(links) :]:
        previous = chain_link(previous, value)
        links.append(previous)
    return links


def common_prefix_length(a: Sequence[str], b: Sequence[str]) -> int:
    """How many leading links two chains share (binary search: a link equal implies all before it are)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[middle - 1] == b[middle - 1]:
            low = middle
        else:
            high = middle - 1
    return low
