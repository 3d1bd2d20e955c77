from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pi_tui.ai.messages import AgentMessage
from pi_tui.config.settings import CompactionSettings
from pi_tui.context.accounting.boundary import BoundaryFinder
from pi_tui.context.compaction.cut_point import find_cut_point
from pi_tui.context.compaction.preparation import boundary_start
from pi_tui.session_file.entries import (
    CompactionEntry,
    CustomEntry,
    CustomMessageEntry,
    MessageEntry,
    ModelChangeEntry,
    SessionEntry,
)
from tests.context.accounting.builders import call, reply, result, user

KINDS = ("user", "assistant", "call", "result", "custom", "custom_message", "model_change", "compaction")


def make_item(index: int, kind: str, size: int) -> SessionEntry:
    entry_id = f"e{index}"
    text = "x" * size
    messages: dict[str, AgentMessage] = {
        "user": user(text),
        "assistant": reply(text),
        "call": call(f"c{index}", text),
        "result": result(f"c{index}", text),
    }
    if kind in messages:
        return MessageEntry(id=entry_id, timestamp="t", message=messages[kind])
    if kind == "custom_message":
        return CustomMessageEntry(id=entry_id, timestamp="t", custom_type="n", content=text)
    if kind == "compaction":
        first_kept = f"e{max(0, index - 3)}"
        return CompactionEntry(
            id=entry_id, timestamp="t", summary="s", first_kept_entry_id=first_kept, tokens_before=1
        )
    if kind == "custom":
        return CustomEntry(id=entry_id, timestamp="t", custom_type="n")
    return ModelChangeEntry(id=entry_id, timestamp="t", provider="p", model_id="m")


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
    positions = {item.id: i for i, item in enumerate(items)}
    assert boundary_start(items, 4, positions.get) == boundary_start(items, 4) == 1
    assert boundary_start(items, -1, positions.get) == 0
    finder = BoundaryFinder()
    assert finder.keep_boundary(items, CompactionSettings(keep_recent_tokens=15), 4, positions.get) == "e5"
    assert finder.keep_boundary(items, CompactionSettings(keep_recent_tokens=10**6), 4, positions.get) == "e1"
    assert finder.keep_boundary(items[:5], CompactionSettings(), 4, positions.get) is None
    assert finder.keep_boundary([], CompactionSettings(), -1, positions.get) is None
