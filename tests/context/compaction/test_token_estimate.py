"""pi's chars/4 estimates, usage-based context size and the compaction trigger."""

from __future__ import annotations

from pi_tui.ai.messages import (
    AssistantMessage,
    BashExecutionMessage,
    CompactionSummaryMessage,
    CustomMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UnknownMessage,
    Usage,
    UserMessage,
)
from pi_tui.config.settings import CompactionSettings
from pi_tui.context.compaction.token_estimate import (
    estimate_context_tokens,
    estimate_tokens,
    should_compact,
)

IMAGE = ImageContent(data="AAAA", mime_type="image/png")


def test_user_counts_text_only_and_rounds_up() -> None:
    assert estimate_tokens(UserMessage(content="abcde", timestamp=0)) == 2
    blocks = UserMessage(content=[TextContent(text="abcd"), IMAGE, TextContent(text="ef")], timestamp=0)
    assert estimate_tokens(blocks) == 2  # 6 chars; the image counts nothing for a user message


def test_astral_characters_count_two_javascript_units() -> None:
    assert estimate_tokens(UserMessage(content="😀😀", timestamp=0)) == 1  # 4 UTF-16 units
    assert estimate_tokens(UserMessage(content="😀😀😀", timestamp=0)) == 2


def test_assistant_counts_text_thinking_and_tool_call_json() -> None:
    message = AssistantMessage(
        content=[
            TextContent(text="abcd"),
            ThinkingContent(thinking="efgh"),
            ToolCall(id="1", name="read", arguments={"path": "a.py"}),
        ]
    )
    # 4 + 4 + len("read") + len('{"path":"a.py"}') = 8 + 4 + 15
    assert estimate_tokens(message) == 7


def test_tool_result_and_custom_charge_4800_chars_per_image() -> None:
    result = ToolResultMessage(tool_call_id="1", tool_name="read", content=[TextContent(text="ab"), IMAGE])
    assert estimate_tokens(result) == 1201  # ceil(4802 / 4)
    custom = CustomMessage(custom_type="x", content=[IMAGE])
    assert estimate_tokens(custom) == 1200
    assert estimate_tokens(CustomMessage(custom_type="x", content="abcdefgh")) == 2


def test_bash_summaries_and_unknown_roles() -> None:
    assert estimate_tokens(BashExecutionMessage(command="ls", output="a\nb\n")) == 2
    assert estimate_tokens(CompactionSummaryMessage(summary="x" * 41, tokens_before=5)) == 11
    assert estimate_tokens(UnknownMessage(role="future")) == 0


def _reply(total: int, stop_reason: str = "stop") -> AssistantMessage:
    return AssistantMessage(usage=Usage(total_tokens=total), stop_reason=stop_reason)  # type: ignore[arg-type]


def test_context_tokens_use_the_last_valid_usage_plus_later_estimates() -> None:
    messages = [
        UserMessage(content="x" * 400, timestamp=0),
        _reply(1000),
        UserMessage(content="y" * 40, timestamp=0),
        _reply(5000, "error"),  # failed replies are no usage source but are estimated
    ]
    estimate = estimate_context_tokens(messages)
    assert (estimate.tokens, estimate.usage_tokens, estimate.trailing_tokens) == (1010, 1000, 10)
    assert estimate.last_usage_index == 1


def test_context_tokens_without_usage_estimate_everything() -> None:
    usage_by_parts = AssistantMessage(usage=Usage(input=10, output=5, cache_read=2, cache_write=1))
    assert estimate_context_tokens([usage_by_parts]).tokens == 18
    only_users = [UserMessage(content="x" * 8, timestamp=0), _reply(99, "aborted")]
    estimate = estimate_context_tokens(only_users)
    assert (estimate.tokens, estimate.last_usage_index) == (2, None)


def test_should_compact_is_strictly_over_window_minus_reserve() -> None:
    settings = CompactionSettings(reserve_tokens=16384)
    assert not should_compact(128000 - 16384, 128000, settings)
    assert should_compact(128000 - 16383, 128000, settings)
    assert not should_compact(10**6, 128000, CompactionSettings(enabled=False))
    assert should_compact(1, 0, CompactionSettings(reserve_tokens=0))
