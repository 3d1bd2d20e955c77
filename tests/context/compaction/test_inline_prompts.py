"""The instructions of an inline summary, the choice of strategy, and what decides a provider's cache."""

from __future__ import annotations

import pytest

from pi_tui.ai.messages import AssistantMessage, TextContent, ToolCall, ToolResultMessage, UserMessage
from pi_tui.ai.prompt_cache import is_local_server, prompt_cache_kind, summary_tool_choice
from pi_tui.config.compat import CompatOverrides
from pi_tui.config.model_config import ModelConfig
from pi_tui.context.compaction.inline_prompts import (
    STOP_PREAMBLE,
    TURN_CONTEXT_DIVIDER,
    InlineSpan,
    describe,
    inline_instructions,
    split_reply,
)
from pi_tui.context.compaction.prompts import PINNED_INSTRUCTION, SUMMARY_FORMAT, UPDATE_RULES_AND_FORMAT
from pi_tui.context.compaction.strategy import INSTRUCTIONS_ALLOWANCE, choose_strategy


def user(text: str) -> UserMessage:
    return UserMessage(content=[TextContent(text=text)], timestamp=0)


def test_a_message_is_named_by_its_author_and_its_first_words() -> None:
    assert describe(user("Fix   the\nbug")) == "the user message that begins “Fix the bug”"
    long = "word " * 40
    assert describe(user(long)) == f"the user message that begins “{long.strip()[:80]}…”"
    assert describe(AssistantMessage(content=[TextContent(text="Done.")])) == "your reply that begins “Done.”"
    call = AssistantMessage(content=[ToolCall(id="c", name="read", arguments={"path": "a.py"})])
    assert describe(call) == "your `read` call with the arguments “{'path': 'a.py'}”"
    result = ToolResultMessage(tool_call_id="c", tool_name="bash", content=[TextContent(text="ok")])
    assert describe(result) == "the result of the `bash` call that begins “ok”"


def test_first_summary_instructions_name_where_to_stop_and_use_pis_sections() -> None:
    text = inline_instructions(InlineSpan(kept_first=user("Next task"), kept_count=4))
    assert text.startswith(STOP_PREAMBLE)
    assert SUMMARY_FORMAT in text and UPDATE_RULES_AND_FORMAT not in text
    assert text.endswith(
        "Where the summary stops: the user message that begins “Next task”: that message and the 3 after it"
        " stay in the context word for word, so leave them out of the summary."
    )


def test_an_update_merges_into_the_summary_the_conversation_opens_with() -> None:
    span = InlineSpan(kept_first=user("Next"), kept_count=1, updates_previous=True)
    text = inline_instructions(span, custom_instructions="the tests", pins=("port 8080",))
    assert UPDATE_RULES_AND_FORMAT in text and "begins with a summary of earlier work (in <summary>)" in text
    assert "Additional focus: the tests" in text
    assert "that message stay in the context" in text
    assert text.endswith(f"<pinned>\n- port 8080\n</pinned>\n\n{PINNED_INSTRUCTION}")


def test_a_split_turn_asks_for_both_summaries_divided_by_one_line() -> None:
    span = InlineSpan(kept_first=user("kept"), kept_count=2, turn_start=user("Do it all"))
    text = inline_instructions(span)
    assert f"Then a line containing only {TURN_CONTEXT_DIVIDER}" in text
    assert "up to (not including) the user message that begins “Do it all”" in text
    assert "from the user message that begins “Do it all” up to (not including)" in text
    alone = inline_instructions(InlineSpan(user("kept"), 2, turn_start=user("Do it"), history_empty=True))
    assert TURN_CONTEXT_DIVIDER not in alone and SUMMARY_FORMAT not in alone


@pytest.mark.parametrize(
    ("reply", "parts"),
    [
        (
            f"## Goal\nA\n\n{TURN_CONTEXT_DIVIDER}\n\n## Original Request\nB",
            ("## Goal\nA", "## Original Request\nB"),
        ),
        (
            f"## Goal\nA\n**{TURN_CONTEXT_DIVIDER}**\n## Original Request\nB",
            ("## Goal\nA", "## Original Request\nB"),
        ),
        ("## Goal\nA\n\n## Original Request\nB", None),
        (f"{TURN_CONTEXT_DIVIDER}\n## Original Request\nB", None),
    ],
)
def test_a_split_reply_is_divided_only_at_the_divider_line(reply: str, parts: tuple[str, str] | None) -> None:
    assert split_reply(reply) == parts


def model(base_url: str, provider: str = "custom", **compat: object) -> ModelConfig:
    return ModelConfig(
        id="m", provider=provider, base_url=base_url, context_window=100_000, compat=CompatOverrides(**compat)
    )


@pytest.mark.parametrize(
    ("url", "local"),
    [
        ("http://127.0.0.1:8080/v1", True),
        ("http://localhost:11434/v1", True),
        ("http://192.168.1.20:8000/v1", True),
        ("http://gpu-box.local:8000/v1", True),
        ("https://api.openai.com/v1", False),
        ("https://8.8.8.8/v1", False),
    ],
)
def test_local_servers_are_recognised_by_address(url: str, local: bool) -> None:
    assert is_local_server(url) is local


def test_cache_kind_and_summary_tool_choice_by_provider() -> None:
    assert prompt_cache_kind(model("https://api.openai.com/v1", "openai")) == "automatic"
    assert summary_tool_choice(model("https://api.openai.com/v1", "openai")) == "none"
    assert prompt_cache_kind(model("https://api.deepseek.com/v1")) == "automatic"
    anthropic = model("https://openrouter.ai/api/v1", "openrouter", cache_control_format="anthropic")
    assert prompt_cache_kind(anthropic) == "marker"
    assert summary_tool_choice(anthropic) is None, "a changed tool_choice drops Anthropic's message cache"
    local = model("http://127.0.0.1:8080/v1")
    assert prompt_cache_kind(local) == "automatic" and summary_tool_choice(local) is None
    assert prompt_cache_kind(model("https://api.mistral.ai/v1", "mistral")) is None


def choose(setting: str = "auto", url: str = "http://127.0.0.1:1/v1", **kwargs: object) -> tuple[str, str]:
    arguments: dict[str, object] = {"overflow": False, "has_conversation": True, "context_tokens": 10_000}
    arguments.update(kwargs)
    choice = choose_strategy(setting, model(url), output_tokens=13_107, **arguments)  # type: ignore[arg-type]
    return choice.name, choice.reason


def test_auto_summarises_inline_only_where_a_cache_would_serve_the_history() -> None:
    assert choose() == ("inline", "the provider caches prompts (automatic)")
    assert choose(url="https://api.mistral.ai/v1") == (
        "serialize",
        "the provider is not known to cache prompts",
    )
    assert choose("inline", url="https://api.mistral.ai/v1") == ("inline", "compaction.strategy is inline")
    assert choose("serialize") == ("serialize", "compaction.strategy is serialize")


def test_inline_is_not_used_when_the_conversation_cannot_be_sent_as_it_is() -> None:
    assert choose("inline", overflow=True) == ("serialize", "the conversation no longer fits the window")
    assert choose("inline", has_conversation=False)[0] == "serialize"
    # At the threshold (above 100,000 - 16,384) there is still room for the instructions and the reply.
    room = 100_000 - 13_107 - INSTRUCTIONS_ALLOWANCE
    assert room > 100_000 - 16_384
    assert choose(context_tokens=room)[0] == "inline"
    assert choose(context_tokens=room + 1) == ("serialize", "the conversation leaves no room for the summary")
