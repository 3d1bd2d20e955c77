from __future__ import annotations

from pi_tui.context.accounting.forecast import forecast


def test_turns_left_use_the_median_of_recent_turns() -> None:
    outlook = forecast(
        used_tokens=1000, threshold=5000, turn_sizes=[9999, 100, 400, 5000, 300, 200], pending_tokens=20
    )
    assert outlook.next_request_tokens == 1020
    assert (outlook.typical_turn_tokens, outlook.turns_sampled) == (300, 5)
    assert outlook.turns_left == (5000 - 1020) // 300 == 13


def test_no_history_and_past_threshold() -> None:
    assert forecast(used_tokens=10, threshold=100, turn_sizes=[]).turns_left is None
    assert forecast(used_tokens=150, threshold=100, turn_sizes=[10]).turns_left == 0
