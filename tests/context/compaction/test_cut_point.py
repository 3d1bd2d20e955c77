"""pi's `findCutPoint` on hand-built branches."""

from __future__ import annotations

from pi_tui.context.compaction.cut_point import CutPoint, find_cut_point, find_turn_start_index
from tests.context.compaction.items import (
    assistant,
    bash_run,
    branch_summary,
    compaction,
    custom,
    custom_message,
    setting,
    tool_result,
    user,
    words,
)


def test_budget_never_reached_keeps_everything_from_the_first_legal_cut() -> None:
    items = [setting("m"), user("u1", words(10)), assistant("a1", words(10))]
    assert find_cut_point(items, 0, 3, 1000) == CutPoint(0, -1, False)  # moved back over model_change


def test_cut_at_the_user_message_where_the_budget_is_crossed() -> None:
    items = [
        user("u1", words(100)),
        assistant("a1", words(100)),
        user("u2", words(50)),
        assistant("a2", words(60)),
    ]
    # From the end: 60, then 110 ≥ 100 at index 2 → cut at u2, not split.
    assert find_cut_point(items, 0, 4, 100) == CutPoint(2, -1, False)


def test_never_cuts_at_a_tool_result_and_detects_the_split_turn() -> None:
    items = [
        user("u1", words(10)),
        assistant("a1", "", [("bash", {"command": "ls"})]),
        tool_result("t1", words(500)),
        assistant("a2", "", [("bash", {"command": "pwd"})]),
        tool_result("t2", words(50)),
        assistant("a3", words(10)),
    ]
    # 10, 60 (t2), 60+… crossing 100 happens at t1 (index 2) → first legal cut ≥ 2 is a2 (index 3).
    cut = find_cut_point(items, 0, 6, 100)
    assert cut == CutPoint(3, 0, True)
    assert items[cut.first_kept_index].id == "a2"


def test_only_tool_results_after_the_crossing_point_keeps_everything() -> None:
    # pi quirk: when no legal cut exists at or after the crossing index, the default (first) cut stays.
    items = [
        user("u1", words(10)),
        assistant("a1", "", [("read", {"path": "a"})]),
        tool_result("t1", words(40)),
        tool_result("t2", words(400)),
    ]
    assert find_cut_point(items, 0, 4, 100) == CutPoint(0, -1, False)


def test_a_single_giant_message_at_the_end_is_kept_alone() -> None:
    items = [user("u1", words(10)), assistant("a1", words(10)), user("u2", words(50_000))]
    assert find_cut_point(items, 0, 3, 20_000) == CutPoint(2, -1, False)


def test_a_giant_assistant_reply_splits_its_turn() -> None:
    items = [user("u1", words(10)), assistant("a1", words(30_000))]
    assert find_cut_point(items, 0, 2, 20_000) == CutPoint(1, 0, True)


def test_cut_moves_back_over_custom_label_and_setting_entries() -> None:
    # The cut keeps the entries before u2 with it; the kept region still opens with u2's turn, so nothing
    # is split (pi would call it a split turn and summarise u1's whole turn again as a "prefix").
    items = [
        user("u1", words(100)),
        assistant("a1", words(100)),
        custom("c1"),
        setting("l1", "label"),
        setting("t1", "thinking_level_change"),
        user("u2", words(200)),
    ]
    assert find_cut_point(items, 0, 6, 150) == CutPoint(2, -1, False)


def test_a_cut_before_an_assistant_reply_still_splits_its_turn_after_moving_back() -> None:
    items = [
        user("u1", words(100)),
        custom("c1"),
        assistant("a1", words(300)),
    ]
    assert find_cut_point(items, 0, 3, 150) == CutPoint(1, 0, True)


def test_custom_messages_and_branch_summaries_are_free_but_legal_cuts() -> None:
    items = [
        user("u1", words(100)),
        assistant("a1", words(100)),
        branch_summary("b1", words(5000)),
        custom_message("cm", words(5000)),
        user("u2", words(40)),
    ]
    # Only u2 (40) and a1 (100) count: the crossing is at a1 (index 1) → cut at a1, moved back over
    # nothing (u1 is a message). a1 is not a user message: its turn starts at u1.
    assert find_cut_point(items, 0, 5, 120) == CutPoint(1, 0, True)


def test_backward_extension_stops_at_a_compaction_item() -> None:
    items = [
        user("u1", words(10)),
        compaction("k1", "old", "u1"),
        custom("c1"),
        user("u2", words(300)),
    ]
    # The cut moves back to c1 and no further; the kept region opens with u2's turn.
    assert find_cut_point(items, 0, 4, 100) == CutPoint(2, -1, False)
    assert find_cut_point(items, 2, 4, 100) == CutPoint(2, -1, False)


def test_range_starts_at_the_previous_compactions_kept_region() -> None:
    items = [
        user("u0", words(1000)),
        assistant("a0", words(1000)),
        user("u1", words(50)),
        assistant("a1", words(50)),
        compaction("k1", "old", "u1"),
        user("u2", words(50)),
        assistant("a2", words(50)),
    ]
    # Counting skips the compaction item; the cut never moves back across it.
    assert find_cut_point(items, 2, 7, 90) == CutPoint(5, -1, False)
    assert find_cut_point(items, 2, 7, 120) == CutPoint(3, 2, True)
    assert find_cut_point(items, 2, 7, 10_000) == CutPoint(2, -1, False)


def test_no_legal_cut_returns_the_start() -> None:
    items = [setting("m"), tool_result("t", words(10))]
    assert find_cut_point(items, 0, 2, 5) == CutPoint(0, -1, False)


def test_cut_at_a_bash_run_is_a_split_with_an_empty_prefix() -> None:
    items = [user("u1", words(100)), assistant("a1", words(100)), bash_run("b", "ls", words(200))]
    assert find_cut_point(items, 0, 3, 150) == CutPoint(2, 2, True)
    assert find_turn_start_index(items, 1, 0) == 0
    assert find_turn_start_index([assistant("a", "x")], 0, 0) == -1
