"""convert_to_llm (pi's `convertToLlm`) and the provider-boundary transform (`transformMessages`)."""

from __future__ import annotations

from pi_tui.ai.convert import convert_to_llm, transform_messages
from pi_tui.ai.messages import (
    AgentMessage,
    AssistantMessage,
    BashExecutionMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UnknownMessage,
    UserMessage,
)
from pi_tui.config.model_config import ModelConfig

MODEL = ModelConfig(id="m1", provider="local", input=["text"])


def only_text(messages: list[AgentMessage]) -> str:
    [converted] = convert_to_llm(messages)
    assert isinstance(converted, UserMessage)
    assert isinstance(converted.content, list)
    [block] = converted.content
    assert isinstance(block, TextContent)
    return block.text


def test_bash_execution_with_output_and_exit_code() -> None:
    message = BashExecutionMessage(command="ls", output="a\nb", exit_code=2, timestamp=5)
    assert only_text([message]) == "Ran `ls`\n```\na\nb\n```\n\nCommand exited with code 2"


def test_bash_execution_without_output_cancelled_and_truncated() -> None:
    message = BashExecutionMessage(
        command="sleep 9",
        output="",
        exit_code=None,
        cancelled=True,
        truncated=True,
        full_output_path="/tmp/o.log",
    )
    expected = (
        "Ran `sleep 9`\n(no output)\n\n(command cancelled)\n\n[Output truncated. Full output: /tmp/o.log]"
    )
    assert only_text([message]) == expected


def test_bash_execution_exit_zero_adds_nothing_and_double_bang_is_dropped() -> None:
    assert (
        only_text([BashExecutionMessage(command="true", output="ok", exit_code=0)])
        == "Ran `true`\n```\nok\n```"
    )
    assert convert_to_llm([BashExecutionMessage(command="x", exclude_from_context=True)]) == []


def test_summaries_use_pi_texts_and_keep_timestamps() -> None:
    branch = BranchSummaryMessage(summary="did X", from_id="abc", timestamp=7)
    compaction = CompactionSummaryMessage(summary="did Y", tokens_before=100, timestamp=8)
    first, second = convert_to_llm([branch, compaction])
    assert first.timestamp == 7 and second.timestamp == 8
    assert only_text([branch]) == (
        "The following is a summary of a branch that this conversation came back from:\n\n"
        "<summary>\ndid X</summary>"
    )
    assert only_text([compaction]) == (
        "The conversation history before this point was compacted into the following summary:\n\n"
        "<summary>\ndid Y\n</summary>"
    )


def test_custom_messages_and_passthrough_and_unknown_roles() -> None:
    image = ImageContent(data="AAAA", mime_type="image/png")
    user = UserMessage(content="hi", timestamp=1)
    converted = convert_to_llm(
        [
            CustomMessage(custom_type="note", content="remember", timestamp=2),
            CustomMessage(custom_type="pic", content=[TextContent(text="see"), image], timestamp=3),
            user,
            UnknownMessage(role="futureKind"),
        ]
    )
    assert len(converted) == 3
    assert converted[0] == UserMessage(content=[TextContent(text="remember")], timestamp=2)
    assert converted[1] == UserMessage(content=[TextContent(text="see"), image], timestamp=3)
    assert converted[2] is user


def assistant(*blocks: TextContent | ThinkingContent | ToolCall, **fields: object) -> AssistantMessage:
    values: dict[str, object] = {"provider": "local", "model": "m1", "stop_reason": "stop", **fields}
    return AssistantMessage.model_validate({"content": list(blocks), **values})


def test_failed_assistant_messages_are_skipped() -> None:
    user = UserMessage(content="hi", timestamp=1)
    failed = assistant(TextContent(text="half"), stop_reason="error", error_message="boom")
    aborted = assistant(TextContent(text="half"), stop_reason="aborted", error_message="stop")
    good = assistant(TextContent(text="ok"))
    assert transform_messages([user, failed, aborted, good], MODEL) == [user, good]


def test_orphaned_tool_calls_get_synthetic_error_results() -> None:
    call_a = ToolCall(id="a", name="read", arguments={"path": "x"})
    call_b = ToolCall(id="b", name="bash", arguments={"command": "ls"})
    reply = assistant(call_a, call_b, stop_reason="toolUse", timestamp=10)
    result_a = ToolResultMessage(tool_call_id="a", tool_name="read", content=[TextContent(text="x!")])
    follow_up = UserMessage(content="next", timestamp=20)
    out = transform_messages([reply, result_a, follow_up], MODEL)
    assert out[:2] == [reply, result_a]
    synthetic = out[2]
    assert isinstance(synthetic, ToolResultMessage)
    assert (synthetic.tool_call_id, synthetic.tool_name, synthetic.text, synthetic.is_error) == (
        "b", "bash", "No result provided", True,
    )  # fmt: skip
    assert out[3] is follow_up


def test_results_no_call_asked_for_are_dropped() -> None:
    call = ToolCall(id="a", name="read", arguments={"path": "x"})
    reply = assistant(call, stop_reason="toolUse", timestamp=10)
    first = UserMessage(content="first", timestamp=5)
    stray = ToolResultMessage(tool_call_id="z", tool_name="read", content=[TextContent(text="?")])
    late = ToolResultMessage(tool_call_id="a", tool_name="read", content=[TextContent(text="late")])
    answer = ToolResultMessage(tool_call_id="a", tool_name="read", content=[TextContent(text="x!")])
    follow_up = UserMessage(content="next", timestamp=20)
    out = transform_messages([first, stray, reply, answer, follow_up, late], MODEL)
    assert out == [first, reply, answer, follow_up]


def test_orphaned_tool_calls_at_the_end_are_answered() -> None:
    reply = assistant(ToolCall(id="z", name="ls"), stop_reason="toolUse")
    out = transform_messages([reply], MODEL)
    assert len(out) == 2
    assert isinstance(out[1], ToolResultMessage) and out[1].tool_call_id == "z"


def test_images_replaced_for_text_only_models_and_consecutive_collapse() -> None:
    image = ImageContent(data="AAAA", mime_type="image/png")
    user = UserMessage(
        content=[TextContent(text="look"), image, image, TextContent(text="and"), image], timestamp=1
    )
    result = ToolResultMessage(tool_call_id="t", tool_name="read", content=[image])
    reply = assistant(ToolCall(id="t", name="read"), stop_reason="toolUse")
    out = transform_messages([user, reply, result], MODEL)
    converted_user = out[0]
    assert isinstance(converted_user, UserMessage) and isinstance(converted_user.content, list)
    omitted = "(image omitted: model does not support images)"
    texts = [block.text for block in converted_user.content if isinstance(block, TextContent)]
    assert texts == ["look", omitted, "and", omitted]
    converted_result = out[2]
    assert isinstance(converted_result, ToolResultMessage)
    assert converted_result.text == "(tool image omitted: model does not support images)"
    assert isinstance(user.content, list) and user.content[1] is image  # the input is not modified
    vision = MODEL.model_copy(update={"input": ["text", "image"]})
    assert transform_messages([user], vision)[0] is user


def test_thinking_from_another_model_is_dropped() -> None:
    reply = assistant(
        ThinkingContent(thinking="plan", thinking_signature="reasoning_content"),
        ThinkingContent(thinking="  "),
        ThinkingContent(thinking="secret", redacted=True),
        ToolCall(id="c", name="ls", thought_signature="sig"),
        model="other-model",
        stop_reason="toolUse",
    )
    converted = transform_messages([reply], MODEL)[0]
    assert isinstance(converted, AssistantMessage)
    assert len(converted.content) == 1  # pi 1.6 replays no other model's thinking, not even as text
    call = converted.content[0]
    assert isinstance(call, ToolCall) and call.thought_signature is None
    same = assistant(ThinkingContent(thinking="plan"), TextContent(text="ok"))
    assert transform_messages([same], MODEL)[0] is same


RESPONSES = ModelConfig(id="gpt-5-mini", provider="openai", api="openai-responses")


def test_responses_tool_call_ids_are_made_portable_with_their_results() -> None:
    long_call = "call_" + "x" * 60
    reply = assistant(
        TextContent(text="Two calls.", text_signature='{"v":1,"id":"msg_1"}'),
        ToolCall(id="call_1|fc_1", name="bash"),
        ToolCall(id=f"{long_call}|fc_2", name="read"),
        ToolCall(id="call.odd:3|fc_3", name="ls"),
        api="openai-responses",
        provider="openai",
        model="gpt-5-mini",
        stop_reason="toolUse",
    )
    results = [
        ToolResultMessage(tool_call_id="call_1|fc_1", tool_name="bash", timestamp=3),
        ToolResultMessage(tool_call_id=f"{long_call}|fc_2", tool_name="read", timestamp=3),
    ]
    converted = transform_messages([reply, *results], MODEL)
    first = converted[0]
    assert isinstance(first, AssistantMessage)
    ids = [call.id for call in first.tool_calls]
    assert ids == ["call_1", long_call[:40], "call_odd_3"]
    assert first.content[0] == TextContent(text="Two calls.")  # the other API's item id is not kept
    assert [message.tool_call_id for message in converted[1:] if isinstance(message, ToolResultMessage)] == [
        "call_1",
        long_call[:40],
        "call_odd_3",  # the unanswered call is answered under its new id
    ]
    assert (
        reply.tool_calls[0].id == "call_1|fc_1" and results[0].tool_call_id == "call_1|fc_1"
    )  # inputs untouched


def test_ids_stay_as_they_are_for_the_same_model_and_for_plain_ids() -> None:
    reply = assistant(
        ToolCall(id="call_1|fc_1", name="bash"),
        api="openai-responses",
        provider="openai",
        model="gpt-5-mini",
        stop_reason="toolUse",
    )
    result = ToolResultMessage(tool_call_id="call_1|fc_1", tool_name="bash", timestamp=3)
    same = transform_messages([reply, result], RESPONSES)
    assert same[0] is reply and same[1] is result
    chat_reply = assistant(ToolCall(id="functions.bash:0", name="bash"), model="other", stop_reason="toolUse")
    converted = transform_messages([chat_reply], RESPONSES)
    first = converted[0]
    assert isinstance(first, AssistantMessage) and first.tool_calls[0].id == "functions.bash:0"
