"""Cut points of a streamed Markdown reply: only before a paragraph that starts a new top-level block."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Markdown

from pi_tui.ai.messages import AssistantMessage, TextContent
from pi_tui.tui.markdown_segments import safe_cut
from pi_tui.tui.widgets import message_blocks
from pi_tui.tui.widgets.message_blocks import AssistantBlock


def test_cuts_at_the_last_blank_line_before_a_paragraph() -> None:
    text = "# Title\n\nFirst para.\n\nSecond para.\n\nThird"
    assert safe_cut(text, 0, 0) == text.index("Third")


def test_never_cuts_inside_a_fenced_code_block() -> None:
    text = "Intro.\n\n```\ncode\n\nmore code\n```\n\nAfter"
    assert safe_cut(text, 0, 0) == text.index("After")
    unclosed = "Intro.\n\n```python\ncode\n\nnot a paragraph"
    assert safe_cut(unclosed, 0, 0) is None


def test_a_shorter_or_other_fence_does_not_close_the_block() -> None:
    text = "````\n```\n\ninside\n~~~~\n\ninside too\n````\n\nOutside"
    assert safe_cut(text, 0, 0) == text.index("Outside")


def test_only_a_paragraph_may_follow_the_cut() -> None:
    for follower in ("- item", "1. item", "> quote", "    indented", "| a | b |", "<div>", "## head", "```"):
        assert safe_cut(f"Para.\n\n{follower}\n", 0, 0) is None, follower


def test_list_continuations_are_not_cut() -> None:
    text = "- one\n\n  still one\n\n- two\n\nAfter the list"
    assert safe_cut(text, 0, 0) == text.index("After")


def test_cut_is_not_before_what_was_already_written() -> None:
    text = "A.\n\nB.\n\nC"
    assert safe_cut(text, 0, text.index("C")) == text.index("C")
    assert safe_cut(text, 0, text.index("C") + 1) is None
    assert safe_cut(text, 0, text.index("B") + 1) == text.index("C")


def test_needs_the_first_character_of_the_next_block() -> None:
    assert safe_cut("Para.\n\n", 0, 0) is None


def test_fence_state_starts_at_the_segment() -> None:
    text = "```\ncode\n```\n\nNext.\n\n```\nx\n\ny"
    start = text.index("Next")
    assert safe_cut(text, start, start) is None
    assert safe_cut(text, 0, 0) == start


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


async def _rendered_rows(streamed: bool) -> tuple[int, list[list[tuple[str, str]]]]:
    app = ReplyHost(None if streamed else _message(REPLY))
    async with app.run_test(size=(80, 200)) as pilot:
        block = app.query_one(AssistantBlock)
        if streamed:
            await pilot.pause()
            for end in range(7, len(REPLY) + 7, 7):
                await block.show(_message(REPLY[:end]))
            await block.finish(_message(REPLY))
        await pilot.pause()
        await pilot.pause()
        rows = [[(s.text, str(s.style)) for s in strip] for strip in app.screen._compositor.render_strips()]
        assert "".join(markdown.source for markdown in block.query(Markdown)) == REPLY
        return len(block.query(Markdown)), rows


async def test_a_segmented_stream_renders_like_one_document(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(message_blocks, "SEGMENT_BLOCKS", 4)
    segments, streamed = await _rendered_rows(streamed=True)
    _, composed = await _rendered_rows(streamed=False)
    assert segments >= 3
    assert any("Done with step 6." in "".join(text for text, _ in row) for row in streamed)
    assert streamed == composed
