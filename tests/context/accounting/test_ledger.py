from __future__ import annotations

from pi_tui.ai import tokens
from pi_tui.ai.messages import AgentMessage
from pi_tui.context.accounting.ledger import BranchLedger
from pi_tui.session_file.entries import CompactionEntry, MessageEntry
from tests.context.accounting.builders import reply, user


def item(entry_id: str, message: AgentMessage) -> MessageEntry:
    return MessageEntry(id=entry_id, timestamp="t", message=message)


def compaction(entry_id: str, first_kept: str) -> CompactionEntry:
    return CompactionEntry(
        id=entry_id, timestamp="t", summary="what happened", first_kept_entry_id=first_kept, tokens_before=500
    )


def fixed(_: AgentMessage) -> int:
    return 10


def test_usage_is_last_reported_usage_plus_later_estimates() -> None:
    ledger = BranchLedger(fixed)
    ledger.reset([item("u1", user("a")), item("a1", reply("b", input=100, output=20)), item("u2", user("c"))])
    usage = ledger.context_usage(1000)
    assert usage is not None
    assert (usage.tokens, usage.usage_tokens, usage.trailing_tokens, usage.source) == (130, 120, 10, "usage")
    assert usage.percent == 13.0
    assert usage.last_usage_entry_id == "a1"
    assert ledger.context_usage(0) is None


def test_without_usage_everything_is_estimated_and_failed_replies_do_not_count() -> None:
    ledger = BranchLedger(fixed)
    ledger.reset([item("u1", user("a")), item("e1", reply("x", input=900, stop="error"))])
    usage = ledger.context_usage(1000)
    assert usage is not None and (usage.tokens, usage.source) == (20, "estimate")


def test_usage_is_unknown_after_a_compaction_until_fresh_usage() -> None:
    ledger = BranchLedger(fixed)
    ledger.reset([item("u1", user("a")), item("a1", reply("b", input=100)), item("u2", user("c"))])
    ledger.append(compaction("c1", "u2"))
    usage = ledger.context_usage(1000)
    assert usage is not None and usage.tokens is None and usage.percent is None
    ledger.append(item("u3", user("d")))
    ledger.append(item("a3", reply("e", input=0)))
    assert ledger.context_usage(1000).tokens is None  # type: ignore[union-attr]
    ledger.append(item("a4", reply("f", input=50, output=5)))
    usage = ledger.context_usage(1000)
    assert usage is not None and usage.tokens == 55


def test_context_after_compaction_is_summary_kept_and_new() -> None:
    ledger = BranchLedger(fixed)
    ledger.reset(
        [
            item("u1", user("a")),
            item("a1", reply("b")),
            item("u2", user("c")),
            compaction("c1", "a1"),
            item("u3", user("d")),
        ]
    )
    assert ledger.keys == ["compaction-summary", "a1", "u2", "u3"]
    assert ledger.zone_tokens == {"summary": 10, "kept": 20, "new": 10}
    assert ledger.tokens_from("u2") == 20
    assert ledger.tokens_from("c1") == 10
    assert ledger.tokens_from("nope") is None


def test_appending_matches_a_full_reset_and_counts_each_entry_once() -> None:
    counted: list[str] = []

    def counting(message: AgentMessage) -> int:
        counted.append(message.role)
        return tokens.count_message(message)

    items = [item(f"e{i}", user(f"message {i}") if i % 2 == 0 else reply(f"r{i}", input=i)) for i in range(8)]
    grown = BranchLedger(counting)
    for entry in items:
        grown.append(entry)
    grown.reset(items)
    assert len(counted) == 8
    fresh = BranchLedger()
    fresh.reset(items)
    assert (grown.keys, grown.message_tokens, grown.turn_sizes) == (
        fresh.keys,
        fresh.message_tokens,
        fresh.turn_sizes,
    )
    assert grown.context_usage(100) == fresh.context_usage(100)
