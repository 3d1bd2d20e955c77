from __future__ import annotations

from pi_tui.config.settings import CompactionSettings
from pi_tui.context.accounting.geometry import budget_geometry, split_budget
from pi_tui.context.accounting.ledger import BranchLedger
from tests.context.accounting.builders import reply, user
from tests.context.accounting.test_ledger import compaction, fixed, item


def test_split_sums_to_the_window_in_every_regime() -> None:
    assert split_budget(1000, 200, 100, 50, 150, 200).free == 300
    for new_tail in (0, 200, 700, 750, 800, 1200):
        split = split_budget(1000, 200, 100, 0, 0, new_tail)
        assert split.total == max(1000, split.used)
    past = split_budget(1000, 200, 100, 0, 0, 750)
    assert (past.free, past.reserve) == (0, 150)


def test_geometry_of_a_compacted_branch() -> None:
    ledger = BranchLedger(fixed)
    ledger.reset(
        [
            item("u1", user("a")),
            item("a1", reply("b")),
            item("u2", user("c")),
            compaction("c1", "u2"),
            item("u3", user("d")),
            item("a3", reply("e", input=300, output=20)),
        ]
    )
    settings = CompactionSettings(reserve_tokens=200, keep_recent_tokens=15)
    geometry = budget_geometry(
        ledger,
        context_window=1000,
        settings=settings,
        prefix_tokens=100,
        usage=ledger.context_usage(1000),
        boundary_fn=lambda items, s: "u3",
    )
    split = geometry.split
    # The reply reported 320 for a context estimated at 140: the messages take what the prefix leaves of
    # the reported figure, in proportion to their estimates, so the bar, free and tokens left agree.
    assert (split.prefix, split.summary, split.kept, split.new_tail) == (100, 55, 55, 110)
    assert (split.free, split.reserve, split.total) == (480, 200, 1000)
    assert geometry.threshold == 800
    assert (geometry.used_tokens, geometry.used_source, geometry.tokens_left) == (320, "usage", 480)
    assert geometry.boundary is not None and (geometry.boundary.entry_id, geometry.boundary.tokens_kept) == (
        "u3",
        110,
    )


def test_without_usage_or_prefix_the_estimate_is_used_and_flagged() -> None:
    ledger = BranchLedger(fixed)
    ledger.reset([item("u1", user("a"))])
    geometry = budget_geometry(
        ledger,
        context_window=20,
        settings=CompactionSettings(reserve_tokens=10),
        prefix_tokens=None,
        usage=None,
    )
    assert (geometry.used_tokens, geometry.used_source, geometry.prefix_known) == (10, "estimate", False)
    assert geometry.tokens_left == 0 and geometry.boundary is None


def test_a_reserve_above_half_the_window_is_held_to_half() -> None:
    """reserveTokens 95 of a 100-token window left 5 tokens for the whole context: every request was
    over the threshold. The budget reserves half and shows that figure."""
    ledger = BranchLedger(fixed)
    ledger.reset([item("u1", user("a"))])
    geometry = budget_geometry(
        ledger,
        context_window=100,
        settings=CompactionSettings(reserve_tokens=95),
        prefix_tokens=None,
        usage=None,
    )
    assert (geometry.reserve_tokens, geometry.threshold, geometry.tokens_left) == (50, 50, 40)
    assert (geometry.split.free, geometry.split.reserve) == (40, 50)
