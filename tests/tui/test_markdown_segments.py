"""Cut points of a streamed Markdown reply: only before a paragraph that starts a new top-level block."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Markdown

from pi_tui.ai.messages import AssistantMessage, TextContent
from pi_tui.tui.markdown_segments import Cut, paragraph_verdict, safe_cut
from pi_tui.tui.widgets import message_blocks
from pi_tui.tui.widgets.message_blocks import AssistantBlock

from .screen_capture import screen_picture, screen_text


def test_cuts_at_the_last_blank_line_before_a_paragraph() -> None:
    text = "# Title\n\nFirst para.\n\nSecond para.\n\nThird\nline"
    assert safe_cut(text, 0, 0) == Cut(text.index("Third"), ready=True)


def test_never_cuts_inside_a_fenced_code_block() -> None:
    text = "Intro.\n\n```\ncode\n\nmore code\n```\n\nAfter\nthat"
    assert safe_cut(text, 0, 0) == Cut(text.index("After"), ready=True)
    unclosed = "Intro.\n\n```python\ncode\n\nnot a paragraph"
    assert safe_cut(unclosed, 0, 0) is None


def test_a_shorter_or_other_fence_does_not_close_the_block() -> None:
    text = "````\n```\n\ninside\n~~~~\n\ninside too\n````\n\nOutside\nit"
    assert safe_cut(text, 0, 0) == Cut(text.index("Outside"), ready=True)


def test_only_a_paragraph_may_follow_the_cut() -> None:
    for follower in ("- item", "1. item", "> quote", "    indented", "| a | b |", "<div>", "## head", "```"):
        assert safe_cut(f"Para.\n\n{follower}\n", 0, 0) is None, follower


def test_list_continuations_are_not_cut() -> None:
    text = "- one\n\n  still one\n\n- two\n\nAfter the list\nends"
    assert safe_cut(text, 0, 0) == Cut(text.index("After"), ready=True)


def test_cut_is_not_before_what_was_already_written() -> None:
    text = "A.\n\nB.\n\nC\nc"
    assert safe_cut(text, 0, text.index("C")) == Cut(text.index("C"), ready=True)
    assert safe_cut(text, 0, text.index("C") + 1) is None
    assert safe_cut(text, 0, text.index("B") + 1) == Cut(text.index("C"), ready=True)


def test_needs_the_first_character_of_the_next_block() -> None:
    assert safe_cut("Para.\n\n", 0, 0) is None


def test_a_decided_cut_wins_over_a_later_undecided_one() -> None:
    text = "A.\n\nB.\nb\n\nC"
    assert safe_cut(text, 0, 0) == Cut(text.index("B"), ready=True)


def test_a_paragraph_that_turns_into_a_heading_or_table_is_no_cut() -> None:
    heading = "A.\n\nTitle\n===\n\nB.\nstill B\n"
    assert safe_cut(heading, 0, 0) == Cut(heading.index("B."), ready=True)
    dashed = "A.\n\nTitle\n---\n"
    assert safe_cut(dashed, 0, 0) is None
    table = "A.\n\nx | y\n--|--\n\nAfter.\nmore\n"
    assert safe_cut(table, 0, 0) == Cut(table.index("After"), ready=True)


def test_the_second_line_decides_and_until_it_comes_the_cut_waits() -> None:
    start = len("A.\n\n")
    for pending in ("A.\n\nTit", "A.\n\nTitle\n", "A.\n\nTitle\n-", "A.\n\nTitle\n  =="):
        assert safe_cut(pending, 0, 0) == Cut(start, ready=False), pending
    for settled in ("A.\n\nTitle\nand more", "A.\n\nTitle\n\n", "A.\n\nTitle\n- item\n"):
        assert safe_cut(settled, 0, 0) == Cut(start, ready=True), settled
    assert paragraph_verdict("Title\n--\n", 0) is False


def test_fence_state_starts_at_the_segment() -> None:
    text = "```\ncode\n```\n\nNext.\n\n```\nx\n\ny"
    start = text.index("Next")
    assert safe_cut(text, start, start) is None
    assert safe_cut(text, 0, 0) == Cut(start, ready=True)


REPLY = "".join(
    f"## Step {n}\n\nThe module `m{n}.py` reads the cache and **checks** every entry.\n\n"
    f"- keep the timeout at {n} s\n- retry twice\n\n"
    f"```python\ndef step_{n}(cache):\n\n    return cache\n```\n\n"
    f"> A quote for step {n}.\n\nDone with step {n}.\n\n"
    for n in range(1, 7)
)


def _message(text: str) -> AssistantMessage:
    return AssistantMessage(
        content=[TextContent(text=text)], api="t", provider="t", model="t", stop_reason="stop"
    )


class ReplyHost(App[None]):
    def __init__(self, final: AssistantMessage | None) -> None:
        super().__init__()
        self.final = final

    def compose(self) -> ComposeResult:
        yield AssistantBlock(final=self.final)


async def _rendered_rows(streamed: bool, reply: str = REPLY) -> tuple[int, str, str]:
    app = ReplyHost(None if streamed else _message(reply))
    async with app.run_test(size=(80, 200)) as pilot:
        block = app.query_one(AssistantBlock)
        if streamed:
            await pilot.pause()
            for end in range(7, len(reply) + 7, 7):
                await block.show(_message(reply[:end]))
            await block.finish(_message(reply))
        await pilot.pause()
        await pilot.pause()
        rows = screen_picture(app)
        assert "".join(markdown.source for markdown in block.query(Markdown)) == reply
        return len(block.query(Markdown)), rows, screen_text(app)


async def test_a_segmented_stream_renders_like_one_document(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(message_blocks, "SEGMENT_BLOCKS", 4)
    segments, streamed, streamed_text = await _rendered_rows(streamed=True)
    _, composed, _ = await _rendered_rows(streamed=False)
    assert segments >= 3
    assert "Done with step 6." in streamed_text
    assert streamed == composed


HEADED_REPLY = "".join(
    "".join(f"Paragraph {n}.{k} of the answer.\n\n" for k in range(n % 4 + 1))
    + f"Section {n}\n{('=' if n % 2 else '-') * 11}\n\n"
    + ("" if n % 3 else f"name | value\n--- | ---\nstep | {n}\n\n")
    for n in range(1, 13)
)


async def test_headings_and_tables_after_a_paragraph_render_like_one_document(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(message_blocks, "SEGMENT_BLOCKS", 2)
    segments, streamed, _ = await _rendered_rows(streamed=True, reply=HEADED_REPLY)
    _, composed, _ = await _rendered_rows(streamed=False, reply=HEADED_REPLY)
    assert segments >= 3
    assert streamed == composed
