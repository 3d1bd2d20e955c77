"""The output cap of a request is pi 1.6's: the model's limit, lowered to the room the context leaves."""

from __future__ import annotations

from pi_tui.ai.chat_request import build_chat_request
from pi_tui.ai.messages import AssistantMessage, TextContent, Usage, UserMessage
from pi_tui.ai.output_room import estimated_input_tokens, output_tokens
from pi_tui.ai.responses_request import build_responses_request
from pi_tui.ai.stream import LlmContext, StreamOptions, ToolSpec
from pi_tui.config.model_config import ModelConfig

MODEL = ModelConfig(id="m", provider="local", context_window=200_000, max_tokens=64_000)


def user(text: str, timestamp: int = 1) -> UserMessage:
    return UserMessage(content=[TextContent(text=text)], timestamp=timestamp)


def answered(tokens: int) -> AssistantMessage:
    return AssistantMessage(
        content=[TextContent(text="ok")], usage=Usage(input=tokens, total_tokens=tokens), timestamp=2
    )


def test_a_short_context_asks_for_the_models_whole_limit() -> None:
    context = LlmContext("You help.", [user("hi")])
    assert output_tokens(MODEL, context) == 64_000
    assert build_chat_request(MODEL, context, StreamOptions()).body["max_completion_tokens"] == 64_000
    assert output_tokens(MODEL, context, requested=2_000) == 2_000


def test_the_estimate_is_the_last_usage_plus_the_messages_after_it() -> None:
    context = LlmContext("You help.", [user("hi"), answered(150_000), user("x" * 700, timestamp=3)])
    assert estimated_input_tokens(context) == 150_000 + 200  # 700 characters at 3.5 a token
    # 200,000 - 150,200 - 22,530 (15% of the input) leaves 27,270: under 32,768, so the margin shrinks to
    # 4,096, and the output to at most 32,768.
    assert output_tokens(MODEL, context) == 32_768
    fuller = LlmContext("You help.", [user("hi"), answered(170_000), user("x" * 700, timestamp=3)])
    assert output_tokens(MODEL, fuller) == 200_000 - 170_200 - 4_096


def test_without_usage_the_system_prompt_and_tools_count_too() -> None:
    tool = ToolSpec("read", "Read a file", {"type": "object"})
    bare = LlmContext("p" * 35, [user("q" * 7)])
    with_tools = LlmContext("p" * 35, [user("q" * 7)], [tool])
    assert estimated_input_tokens(bare) == 10 + 2
    assert estimated_input_tokens(with_tools) > estimated_input_tokens(bare)


def test_a_full_context_still_asks_for_one_token_and_responses_for_sixteen() -> None:
    full = LlmContext("", [user("hi"), answered(199_000), user("more", timestamp=3)])
    assert output_tokens(MODEL, full) == 1
    responses = MODEL.model_copy(update={"api": "openai-responses"})
    assert build_responses_request(responses, full, StreamOptions()).body["max_output_tokens"] == 16


def test_a_small_window_keeps_a_sixth_of_itself_as_margin_not_pis_4096() -> None:
    """pi 1.6 keeps 4,096 tokens whatever the window: on an 8,192-token window a context of 4,100 tokens
    could ask for one output token (pi-tui's documented difference; from 24,576 tokens up it is pi's)."""
    small = MODEL.model_copy(update={"context_window": 8_192, "max_tokens": 4_096})
    context = LlmContext("", [user("hi"), answered(4_100), user("more", timestamp=3)])
    used = estimated_input_tokens(context)
    assert output_tokens(small, context) == 8_192 - used - 1_365
    at_pis_size = MODEL.model_copy(update={"context_window": 24_576, "max_tokens": 24_576})
    assert output_tokens(at_pis_size, context) == 24_576 - used - 4_096
