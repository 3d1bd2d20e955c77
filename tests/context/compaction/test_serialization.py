"""pi's `serializeConversation` text, byte for byte."""

from __future__ import annotations

from pi_tui.ai.messages import (
    AssistantMessage,
    BashExecutionMessage,
    CompactionSummaryMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from pi_tui.context.compaction.serialization import (
    serialize_conversation,
    serialize_messages,
    truncate_for_summary,
)


def test_roles_and_parts_in_pi_format() -> None:
    messages = [
        UserMessage(content=[TextContent(text="Fix "), TextContent(text="it")], timestamp=0),
        AssistantMessage(
            content=[
                ThinkingContent(thinking="plan a"),
                TextContent(text="Looking."),
                ThinkingContent(thinking="plan b"),
                TextContent(text="Now."),
                ToolCall(id="1", name="read", arguments={"path": "a.py", "offset": 3}),
                ToolCall(id="2", name="bash", arguments={"command": 'echo "hi"'}),
            ]
        ),
        ToolResultMessage(
            tool_call_id="1",
            tool_name="read",
            content=[
                TextContent(text="line1"),
                ImageContent(data="A", mime_type="image/png"),
                TextContent(text="!"),
            ],
        ),
        UserMessage(content="", timestamp=0),
        ToolResultMessage(tool_call_id="2", tool_name="bash", content=[]),
    ]
    assert serialize_conversation(messages) == (
        "[User]: Fix it\n\n"
        "[Assistant thinking]: plan a\nplan b\n\n"
        "[Assistant]: Looking.\nNow.\n\n"
        '[Assistant tool calls]: read(path="a.py", offset=3); bash(command="echo \\"hi\\"")\n\n'
        "[Tool result]: line1!"
    )


def test_tool_results_are_cut_to_2000_characters_with_pi_notice() -> None:
    assert truncate_for_summary("a" * 2000) == "a" * 2000
    assert truncate_for_summary("a" * 2500) == "a" * 2000 + "\n\n[... 500 more characters truncated]"
    text = serialize_conversation(
        [ToolResultMessage(tool_call_id="1", tool_name="bash", content=[TextContent(text="b" * 2001)])]
    )
    assert text == "[Tool result]: " + "b" * 2000 + "\n\n[... 1 more characters truncated]"


def test_custom_kinds_become_user_lines_after_conversion() -> None:
    text = serialize_messages(
        [
            BashExecutionMessage(command="ls", output="a.txt", exit_code=0),
            BashExecutionMessage(command="secret", output="x", exclude_from_context=True),
            CompactionSummaryMessage(summary="S", tokens_before=1),
        ]
    )
    assert text == (
        "[User]: Ran `ls`\n```\na.txt\n```\n\n"
        "[User]: The conversation history before this point was compacted into the following summary:"
        "\n\n<summary>\nS\n</summary>"
    )
