from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pi_tui.ai.messages import CustomMessage
from pi_tui.config.settings import CompactionSettings
from pi_tui.context.accounting.boundary import BoundaryFinder, span_start
from pi_tui.context.compaction.cut_point import find_cut_point
from pi_tui.context.path_items import CompactionInfo, PathItem
from tests.context.accounting.builders import call, reply, result, user

KINDS = ("user", "assistant", "call", "result", "custom", "custom_message", "model_change", "compaction")


def make_item(index: int, kind: str, size: int) -> PathItem:
    entry_id = f"e{index}"
    text = "x" * size
    if kind == "user":
        return PathItem(entry_id, "message", "t", message=user(text))
    if kind == "assistant":
        return PathItem(entry_id, "message", "t", message=reply(text))
    if kind == "call":
        return PathItem(entry_id, "message", "t", message=call(f"c{index}", text))
    if kind == "result":
        return PathItem(entry_id, "message", "t", message=result(f"c{index}", text))
    if kind == "custom_message":
        return PathItem(entry_id, "custom_message", "t", message=CustomMessage(custom_type="n", content=text))
    if kind == "compaction":
        info = CompactionInfo(summary="s", first_kept_entry_id=f"e{max(0, index - 3)}", tokens_before=1)
        return PathItem(entry_id, "compaction", "t", compaction=info)
    return PathItem(entry_id, kind, "t")  # type: ignore[arg-type]


branches = st.lists(st.tuples(st.sampled_from(KINDS), st.integers(0, 400)), min_size=1, max_size=60)


@settings(max_examples=300, deadline=None)
@given(branch=branches, keep=st.integers(0, 1500), start_fraction=st.floats(0, 1))
def test_first_kept_index_matches_find_cut_point(
    branch: list[tuple[str, int]], keep: int, start_fraction: float
) -> None:
    items = [make_item(i, kind, size) for i, (kind, size) in enumerate(branch)]
    start = int(start_fraction * (len(items) - 1))
    expected = find_cut_point(items, start, len(items), keep).first_kept_index
    assert BoundaryFinder().first_kept_index(items, start, keep) == expected


def test_keep_boundary_starts_at_the_previous_compactions_first_kept_entry() -> None:
    kinds = ["user", "assistant", "user", "assistant", "compaction", "user", "assistant"]
    items = [make_item(i, kind, 40) for i, kind in enumerate(kinds)]
    positions = {item.entry_id: i for i, item in enumerate(items)}
    assert span_start(items, 4, positions.get) == 1
    assert span_start(items, -1, positions.get) == 0
    finder = BoundaryFinder()
    assert finder.keep_boundary(items, CompactionSettings(keep_recent_tokens=15), 4, positions.get) == "e5"
    assert finder.keep_boundary(items, CompactionSettings(keep_recent_tokens=10**6), 4, positions.get) == "e1"
    assert finder.keep_boundary(items[:5], CompactionSettings(), 4, positions.get) is None
    assert finder.keep_boundary([], CompactionSettings(), -1, positions.get) is None
