"""One summariser call: options sent, text assembly and failure values."""

from __future__ import annotations

from collections.abc import AsyncIterator

from pi_tui.ai.messages import AssistantMessage, TextContent, ThinkingContent
from pi_tui.ai.scripted import ScriptedProvider, ScriptedReply
from pi_tui.ai.stream import LlmContext, StreamEvent, StreamOptions
from pi_tui.config.model_config import ModelConfig
from pi_tui.context.compaction.summary_call import (
    SummaryFailure,
    SummaryModel,
    SummaryText,
    complete,
    reply_outcome,
)


async def test_reasoning_only_for_reasoning_models_and_levels_other_than_off() -> None:
    provider = ScriptedProvider([ScriptedReply(text="a")] * 4)
    for model, level in ((ModelConfig(id="r", reasoning=True), "medium"), (ModelConfig(id="n"), "medium")):
        await complete(
            SummaryModel(model, provider, "key", level), "p", max_tokens=7, signal=None, reasoning=True
        )  # type: ignore[arg-type]
    await complete(
        SummaryModel(ModelConfig(id="r", reasoning=True), provider, None, "off"),
        "p",
        max_tokens=7,
        signal=None,
        reasoning=True,
    )
    assert [options.reasoning for options in provider.options] == ["medium", None, None]
    assert provider.options[0].api_key == "key" and provider.options[0].max_tokens == 7


def test_text_blocks_joined_with_newlines_and_failures() -> None:
    reply = AssistantMessage(
        content=[TextContent(text="a"), ThinkingContent(thinking="t"), TextContent(text="b")]
    )
    assert reply_outcome(reply, "X") == SummaryText("a\nb", reply.usage)
    failed = AssistantMessage(stop_reason="error", error_message="nope")
    assert reply_outcome(failed, "Summarisation failed") == SummaryFailure("Summarisation failed: nope")
    silent = AssistantMessage(stop_reason="error")
    assert reply_outcome(silent, "X") == SummaryFailure("X: Unknown error")
    aborted = AssistantMessage(stop_reason="aborted", error_message="Request was aborted.")
    assert reply_outcome(aborted, "X") == SummaryFailure("Request was aborted.", cancelled=True)


async def test_a_stream_without_a_terminal_event_is_an_error() -> None:
    async def silent(
        model: ModelConfig, context: LlmContext, options: StreamOptions
    ) -> AsyncIterator[StreamEvent]:
        yield StreamEvent("start", AssistantMessage())

    reply = await complete(
        SummaryModel(ModelConfig(id="m"), silent), "p", max_tokens=1, signal=None, reasoning=False
    )
    assert reply.stop_reason == "error"
