"""`/compact --preview`: the cut, items summarised vs kept, and token counts, without a model call."""

from __future__ import annotations

from pi_tui.config.settings import CompactionSettings
from pi_tui.context.compaction.preview import preview_compaction, rows_text
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
    asked: list[tuple[str, str]] = []

    def sizer(first_kept: str, summary: str) -> tuple[int, int]:
        asked.append((first_kept, summary))
        return 5000, 1200

    settings = CompactionSettings(keep_recent_tokens=80, reserve_tokens=1000)
    preview = preview_compaction(items, settings, sizer)
    assert not isinstance(preview, str)
    assert preview.first_kept_entry_id == "a3" and preview.is_split_turn
    assert [(item.entry_id, item.role, item.tokens) for item in preview.summarized] == [
        ("u1", "user", 100),
        ("a1", "assistant", 100),
    ]
    assert [item.entry_id for item in preview.turn_prefix] == ["u2", "a2", "t2"]
    assert [item.entry_id for item in preview.kept] == ["a3"]
    # The whole request is measured by the caller, with the summary assumed to hold (no previous summary)
    # just the file tags.
    assert asked == [("a3", "\n\n<read-files>\na.py\n</read-files>")]
    assert (preview.tokens_before, preview.tokens_after_estimate) == (5000, 1200)
    assert [item.entry_id for item in preview.summarised_rows] == ["u1", "a1", "u2", "a2", "t2"]
    assert (
        rows_text(preview.summarised_rows)
        == "5 messages, ~" + f"{sum(i.tokens for i in preview.summarised_rows):,} tokens"
    )
    assert rows_text(preview.kept) == "1 message, ~90 tokens"
    assert preview.summary_budget == 800
    assert preview.read_files == ["a.py"]
    assert preview.to_json_obj()["kept"] == [{"id": "a3", "role": "assistant", "tokens": 90}]


def test_preview_refusals_use_pi_texts() -> None:
    assert preview_compaction([], CompactionSettings(), no_size) == "Nothing to compact (session too small)"
    done = [user("u", "x"), compaction("k", "s", "u")]
    assert preview_compaction(done, CompactionSettings(), no_size) == "Already compacted"


def no_size(first_kept: str, summary: str) -> tuple[int, int]:
    raise AssertionError("nothing to measure")
