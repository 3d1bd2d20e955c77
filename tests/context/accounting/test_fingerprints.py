from __future__ import annotations

import hashlib

from pi_tui.context.accounting.fingerprints import chain_link, common_prefix_length, extend_chain, fingerprint
from pi_tui.context.system_prompt import PromptSegment


def test_fingerprint_matches_prompt_segment_fingerprint() -> None:
    assert fingerprint("hello") == PromptSegment("base", "base", "hello").fingerprint
    assert fingerprint("hello") == hashlib.sha256(b"hello").hexdigest()[:16]


def test_chain_links_hash_the_previous_link_with_the_segment() -> None:
    chain = extend_chain([], ["a", "b"])
    assert chain[0] == hashlib.sha256(b"|a").hexdigest()[:16]
    assert chain[1] == chain_link(chain[0], "b")
    assert extend_chain(chain[:1], ["a", "b", "c"]) == extend_chain([], ["a", "b", "c"])


def test_common_prefix_is_found_at_every_position() -> None:
    base = [f"s{i}" for i in range(9)]
    full = extend_chain([], base)
    assert common_prefix_length(full, full) == 9
    for at in range(9):
        changed = extend_chain([], [*base[:at], "x", *base[at + 1 :]])
        assert common_prefix_length(full, changed) == at
    assert common_prefix_length(full, full[:4]) == 4
    assert common_prefix_length([], full) == 0
