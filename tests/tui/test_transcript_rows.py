"""The first-page estimate: Markdown drawn lines, rows per message kind, and that it never overshoots
what the conversation really draws."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult

from pi_tui.ai.messages import (
    AssistantMessage,
    BashExecutionMessage,
    CompactionSummaryMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from pi_tui.tui.widgets.conversation import ConversationView
from pi_tui.tui.widgets.message_blocks import AssistantBlock
from pi_tui.tui.widgets.transcript_rows import estimated_rows, markdown_lines, newest_filling, text_rows
from tests.support.waiting import until

STEPS = "".join(
    f"## Step {n}\n\nThe module `m{n}.py` reads the cache,\nthen checks every entry against the limits.\n\n"
    f"- keep the timeout at {n} s\n- retry twice\n  on a 503\n\n"
    f"```python\ndef step_{n}(cache):\n\n    return cache\n```\n\n"
    for n in range(1, 4)
)
SAMPLES = [
    STEPS,
    "one paragraph\nwith soft\nline breaks " + "and a long tail " * 20,
    "> a quote\n> on two lines\n\n1. first\n2. second\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nDone.",
    "# Title\nText right under it.\n\n\n\nAfter three blank lines.",
]


def test_markdown_lines_join_soft_breaks_and_keep_blocks_apart() -> None:
    text = "a\nb\n\n\n- x\n  y\n- z\n# H\ntext\n\n```\ncode\n\n  more\n```\n| a |\n| b |\n"
    assert markdown_lines(text) == [
        "a b",
        "",
        "- x y",
        "- z",
        "# H",
        "",
        "text",
        "",
        "code",
        "",
        "  more",
        "| a |",
        "| b |",
    ]


def test_text_rows_wrap_by_length() -> None:
    assert text_rows("", 10) == 0
    assert text_rows("x" * 25 + "\n\nshort", 10) == 3 + 1 + 1


def test_rows_by_message_kind() -> None:
    call = ToolCall(id="c", name="bash", arguments={"command": "ls"})
    reply = AssistantMessage(
        content=[ThinkingContent(thinking="x\n" * 50), TextContent(text="Running it."), call]
    )
    assert estimated_rows(reply, 80) == 1 + 1  # thinking may be collapsed: not counted
    assert estimated_rows(UserMessage(content="hi\nthere", timestamp=0), 80) == 2
    result = ToolResultMessage(tool_call_id="c", tool_name="bash", content=[TextContent(text="a\n" * 99)])
    assert estimated_rows(result, 80) == 0
    bash = BashExecutionMessage(command="ls", output="a\nb", exit_code=0, timestamp=0)
    assert estimated_rows(bash, 80) == 3
    assert estimated_rows(CompactionSummaryMessage(summary="long\n" * 40, tokens_before=9), 80) == 1


def test_newest_filling_counts_back_from_the_newest() -> None:
    messages = [UserMessage(content="\n".join(["x"] * rows), timestamp=0) for rows in (5, 10, 20, 30)]
    assert newest_filling(messages, 80, 30) == 1
    assert newest_filling(messages, 80, 31) == 2
    assert newest_filling(messages, 80, 60) == 3
    assert newest_filling(messages, 80, 1000) == 4
    assert newest_filling([], 80, 10) == 0


class ConversationHost(App[None]):
    def compose(self) -> ComposeResult:
        yield ConversationView()


@pytest.mark.parametrize("width", [50, 90])
async def test_the_estimate_never_exceeds_the_rows_drawn(width: int) -> None:
    app = ConversationHost()
    async with app.run_test(size=(width, 40)) as pilot:
        view = app.query_one(ConversationView)
        messages = [AssistantMessage(content=[TextContent(text=text)]) for text in SAMPLES]
        await view.show_transcript(messages)
        await until(lambda: len(view.query_children(AssistantBlock)) == len(messages), pilot=pilot)
        await pilot.pause()
        await pilot.pause()
        columns = view.scrollable_content_region.width
        for block, message in zip(view.query_children(AssistantBlock), messages, strict=True):
            estimate = estimated_rows(message, columns)
            assert 0.6 * block.outer_size.height <= estimate <= block.outer_size.height, message.text
