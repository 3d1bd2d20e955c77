"""The Chat Completions wire form of messages and tools."""

from __future__ import annotations

from pi_tui.ai.messages import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from pi_tui.ai.openai_messages import WireDialect, to_openai_messages, to_openai_tools
from pi_tui.ai.stream import ToolSpec
from pi_tui.config.compat import Compat

IMAGE = ImageContent(data="QUJD", mime_type="image/png")


def test_roles_tool_calls_and_tool_results() -> None:
    messages = [
        UserMessage(content="read a.txt", timestamp=1),
        AssistantMessage(
            content=[
                ThinkingContent(thinking="I should read it"),
                TextContent(text="Reading."),
                ToolCall(id="c1", name="read", arguments={"path": "a.txt", "limit": 0.5}),
            ],
            stop_reason="toolUse",
        ),
        ToolResultMessage(tool_call_id="c1", tool_name="read", content=[TextContent(text="hello")]),
    ]
    assert to_openai_messages("sys", messages) == [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "read a.txt"},
        {
            "role": "assistant",
            "content": "Reading.",
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "read", "arguments": '{"path":"a.txt","limit":0.5}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "hello"},
    ]


def test_thinking_only_reply_is_not_sent_and_tool_only_reply_has_null_content() -> None:
    wire = to_openai_messages(
        "",
        [
            AssistantMessage(content=[ThinkingContent(thinking="hmm")]),
            AssistantMessage(content=[ToolCall(id="x", name="ls")], stop_reason="toolUse"),
        ],
    )
    assert wire == [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "x", "type": "function", "function": {"name": "ls", "arguments": "{}"}}],
        }
    ]


def test_user_blocks_become_parts_with_data_urls() -> None:
    wire = to_openai_messages("", [UserMessage(content=[TextContent(text="see"), IMAGE], timestamp=1)])
    assert wire == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "see"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,QUJD"}},
            ],
        }
    ]


def test_tool_result_images_follow_as_one_user_message() -> None:
    wire = to_openai_messages(
        "",
        [
            ToolResultMessage(tool_call_id="a", tool_name="read", content=[IMAGE]),
            ToolResultMessage(tool_call_id="b", tool_name="read", content=[TextContent(text="t"), IMAGE]),
            UserMessage(content="next", timestamp=2),
        ],
    )
    assert [message["role"] for message in wire] == ["tool", "tool", "user", "user"]
    assert wire[0]["content"] == "(see attached image)"
    assert wire[1]["content"] == "t"
    assert wire[2]["content"][0] == {"type": "text", "text": "Attached image(s) from tool result:"}
    assert len(wire[2]["content"]) == 3


def test_tools_are_function_specs_in_order() -> None:
    specs = [
        ToolSpec("b", "B tool", {"type": "object"}),
        ToolSpec("a", "A tool", {"type": "object", "properties": {}}),
    ]
    b_tool = {"name": "b", "description": "B tool", "parameters": {"type": "object"}}
    a_tool = {"name": "a", "description": "A tool", "parameters": {"type": "object", "properties": {}}}
    assert to_openai_tools(specs) == [  # pi 1.6: no `strict` unless the compat says the server knows it
        {"type": "function", "function": b_tool},
        {"type": "function", "function": a_tool},
    ]
    strict = WireDialect(compat=Compat(supports_strict_mode=True))
    assert to_openai_tools(specs, strict) == [
        {"type": "function", "function": {**b_tool, "strict": False}},
        {"type": "function", "function": {**a_tool, "strict": False}},
    ]
