"""`/compact --preview`: the cut, items summarised vs kept, and token counts, without a model call."""

from __future__ import annotations

from pi_tui.config.settings import CompactionSettings
from pi_tui.context.compaction.preview import preview_compaction
from tests.context.compaction.items import assistant, compaction, tool_result, user, words


def test_preview_of_a_split_turn() -> None:
    items = [
        user("u1", words(100)),
        assistant("a1", words(100), total_tokens=700),
        user("u2", words(10)),
        assistant("a2", "", [("read", {"path": "a.py"})], total_tokens=800),
        tool_result("t2", words(300), name="read"),
        assistant("a3", words(90), stop_reason="error"),
    ]
    preview = preview_compaction(items, CompactionSettings(keep_recent_tokens=80, reserve_tokens=1000))
    assert not isinstance(preview, str)
    assert preview.first_kept_entry_id == "a3" and preview.is_split_turn
    assert [(item.entry_id, item.role, item.tokens) for item in preview.summarized] == [
        ("u1", "user", 100),
        ("a1", "assistant", 100),
    ]
    assert [item.entry_id for item in preview.turn_prefix] == ["u2", "a2", "t2"]
    assert [item.entry_id for item in preview.kept] == ["a3"]
    # before: a2's usage (the last reply that did not fail) + estimates of t2 and a3
    assert preview.tokens_before == 800 + 300 + 90
    # after (no previous summary): the kept reply + the file tags `\n\n<read-files>\na.py\n</read-files>`
    assert preview.tokens_after_estimate == 90 + 9
    assert preview.summary_budget == 800
    assert preview.read_files == ["a.py"]
    assert preview.to_json_obj()["kept"] == [{"id": "a3", "role": "assistant", "tokens": 90}]


def test_preview_refusals_use_pi_texts() -> None:
    assert preview_compaction([], CompactionSettings()) == "Nothing to compact (session too small)"
    done = [user("u", "x"), compaction("k", "s", "u")]
    assert preview_compaction(done, CompactionSettings()) == "Already compacted"
