"""Summary calls through the scripted provider: exact prompts, budgets, parallel split turn, failures."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from pi_tui.ai.abort import AbortSignal
from pi_tui.ai.messages import TextContent, UserMessage
from pi_tui.ai.scripted import ScriptedProvider, ScriptedReply
from pi_tui.ai.stream import LlmContext, StreamEvent, StreamFunction, StreamOptions
from pi_tui.config.model_config import ModelConfig
from pi_tui.config.settings import CompactionSettings
from pi_tui.context.compaction.preparation import prepare_compaction
from pi_tui.context.compaction.prompts import (
    NO_PRIOR_HISTORY,
    PINNED_INSTRUCTION,
    SPLIT_TURN_SEPARATOR,
    SUMMARIZATION_PROMPT,
    SUMMARIZATION_SYSTEM_PROMPT,
    TURN_PREFIX_SUMMARIZATION_PROMPT,
    UPDATE_SUMMARIZATION_PROMPT,
)
from pi_tui.context.compaction.summaries import summarize_compaction
from pi_tui.context.compaction.summary_call import SummaryFailure, SummaryModel
from pi_tui.session_file.entries import SessionEntry
from tests.context.compaction.items import assistant, compaction, tool_result, user, words

SETTINGS = CompactionSettings(keep_recent_tokens=100, reserve_tokens=10000)
MODEL = ModelConfig(id="sum-model", provider="test", reasoning=True)


def _prompt(provider: ScriptedProvider, call: int) -> str:
    message = provider.contexts[call].messages[0]
    assert isinstance(message, UserMessage) and not isinstance(message.content, str)
    block = message.content[0]
    assert isinstance(block, TextContent)
    return block.text


def _split_branch(with_previous: bool) -> list[SessionEntry]:
    head: list[SessionEntry] = [user("u0", "Old request"), assistant("a0", "Old answer")]
    if with_previous:
        head.append(compaction("k0", "PREVIOUS SUMMARY", "u1", details={"readFiles": ["old.txt"]}))
    return [
        *head[:2],
        user("u1", "Please fix bug 7"),
        assistant("a1", "Done with step one"),
        *head[2:],
        user("u2", "Refactor src/app.py"),
        assistant("a2", "", [("read", {"path": "src/app.py"})]),
        tool_result("t2", words(300), name="read"),
        assistant("a3", "", [("edit", {"path": "src/app.py", "edits": []})]),
        tool_result("t3", words(50), name="edit"),
        assistant("a4", words(10)),
    ]


def _target(provider: StreamFunction, level: str | None = "high") -> SummaryModel:
    return SummaryModel(MODEL, provider, api_key="k", thinking_level=level)  # type: ignore[arg-type]


class HeldUntilAllStarted:
    """A stream function whose calls, once streaming, each wait until `parties` calls have started: both
    summaries started before either finished. Calls made one after the other never get there (the first
    waits for the second until the wait gives up, after 20 s)."""

    def __init__(self, provider: ScriptedProvider, parties: int) -> None:
        self.provider = provider
        self.parties = parties
        self.started = 0
        self.all_started = asyncio.Event()

    def __call__(
        self, model: ModelConfig, context: LlmContext, options: StreamOptions
    ) -> AsyncIterator[StreamEvent]:
        events = self.provider(model, context, options)  # takes its reply in call order
        return self._after_all_started(events)

    async def _after_all_started(self, events: AsyncIterator[StreamEvent]) -> AsyncIterator[StreamEvent]:
        self.started += 1
        if self.started == self.parties:
            self.all_started.set()
        await asyncio.wait_for(self.all_started.wait(), 20)
        async for event in events:
            yield event


async def test_split_turn_runs_both_summaries_in_parallel_with_exact_prompts() -> None:
    items = _split_branch(with_previous=False)
    prepared = prepare_compaction(items, SETTINGS)
    assert prepared is not None and prepared.is_split_turn
    provider = ScriptedProvider([ScriptedReply(text="HISTORY"), ScriptedReply(text="PREFIX")])
    held = HeldUntilAllStarted(provider, parties=2)
    result = await asyncio.wait_for(summarize_compaction(prepared, _target(held)), 30)
    assert not isinstance(result, SummaryFailure), result
    assert held.all_started.is_set()

    history = (
        "[User]: Old request\n\n[Assistant]: Old answer\n\n[User]: Please fix bug 7\n\n"
        "[Assistant]: Done with step one"
    )
    prefix = (
        '[User]: Refactor src/app.py\n\n[Assistant tool calls]: read(path="src/app.py")\n\n'
        f"[Tool result]: {'x' * 1200}"
    )
    assert _prompt(provider, 0) == f"<conversation>\n{history}\n</conversation>\n\n{SUMMARIZATION_PROMPT}"
    assert _prompt(provider, 1) == (
        f"<conversation>\n{prefix}\n</conversation>\n\n{TURN_PREFIX_SUMMARIZATION_PROMPT}"
    )
    assert [context.system_prompt for context in provider.contexts] == [SUMMARIZATION_SYSTEM_PROMPT] * 2
    assert all(context.tools == [] for context in provider.contexts)
    # pi 1.6: both calls ask for the model's own output limit, not shares of the reserve (0.73.1: 0.8 and
    # 0.5 of it).
    assert [options.max_tokens for options in provider.options] == [None, None]
    assert [options.reasoning for options in provider.options] == ["high", "high"]
    assert result.summary == (
        "HISTORY" + SPLIT_TURN_SEPARATOR + "PREFIX" + "\n\n<read-files>\nsrc/app.py\n</read-files>"
    )
    assert result.first_kept_entry_id == "a3" and len(result.usages) == 2


async def test_second_compaction_sends_the_previous_summary_and_update_prompt() -> None:
    items = _split_branch(with_previous=True)
    prepared = prepare_compaction(items, SETTINGS)
    assert prepared is not None and prepared.previous_summary == "PREVIOUS SUMMARY"
    provider = ScriptedProvider([ScriptedReply(text="NEW"), ScriptedReply(text="PREFIX")])
    result = await summarize_compaction(prepared, _target(provider, "off"), custom_instructions="the bug")
    assert not isinstance(result, SummaryFailure)
    history = "[User]: Please fix bug 7\n\n[Assistant]: Done with step one"
    assert _prompt(provider, 0) == (
        f"<conversation>\n{history}\n</conversation>\n\n"
        "<previous-summary>\nPREVIOUS SUMMARY\n</previous-summary>\n\n"
        f"{UPDATE_SUMMARIZATION_PROMPT}\n\nAdditional focus: the bug"
    )
    assert "Additional focus" not in _prompt(provider, 1)  # the turn prefix never gets instructions
    assert [options.reasoning for options in provider.options] == [None, None]
    assert result.read_files == ["old.txt", "src/app.py"]


async def test_split_turn_without_history_uses_no_prior_history() -> None:
    items = [user("u1", words(5)), assistant("a1", words(300)), assistant("a2", words(200))]
    prepared = prepare_compaction(items, SETTINGS)
    assert prepared is not None and prepared.is_split_turn and prepared.history == []
    provider = ScriptedProvider([ScriptedReply(text="PREFIX")])
    result = await summarize_compaction(prepared, _target(provider))
    assert not isinstance(result, SummaryFailure)
    assert provider.calls == 1
    assert result.summary == NO_PRIOR_HISTORY + SPLIT_TURN_SEPARATOR + "PREFIX"
    assert len(result.usages) == 1


async def test_errors_carry_pi_texts() -> None:
    items = _split_branch(with_previous=False)
    prepared = prepare_compaction(items, SETTINGS)
    assert prepared is not None
    provider = ScriptedProvider([ScriptedReply(text="ok"), ScriptedReply(error="boom")])
    result = await summarize_compaction(prepared, _target(provider))
    assert result == SummaryFailure("Turn prefix summarisation failed: boom")
    whole = prepare_compaction(items[:3], CompactionSettings(keep_recent_tokens=1))
    assert whole is not None and not whole.is_split_turn
    failing = ScriptedProvider([ScriptedReply(error="rate limited")])
    assert await summarize_compaction(whole, _target(failing)) == SummaryFailure(
        "Summarisation failed: rate limited"
    )


async def test_abort_cancels() -> None:
    items = _split_branch(with_previous=False)
    prepared = prepare_compaction(items, SETTINGS)
    assert prepared is not None
    signal = AbortSignal()
    provider = ScriptedProvider([ScriptedReply(text="slow " * 50, chunk_size=1, delay_s=0.05)] * 2)
    asyncio.get_running_loop().call_later(0.1, signal.abort)
    result = await summarize_compaction(prepared, _target(provider), signal=signal)
    assert result == SummaryFailure("Compaction cancelled", cancelled=True)


async def test_pins_go_into_the_prompt_and_survive_a_model_that_drops_them() -> None:
    items = [user("u1", words(300)), assistant("a1", "ok"), user("u2", words(300))]
    prepared = prepare_compaction(items, SETTINGS)
    assert prepared is not None and not prepared.is_split_turn
    provider = ScriptedProvider([ScriptedReply(text="## Goal\nG\n\n## Pinned\n- keep port 8080")])
    pins = ["keep port 8080", "never touch prod.db"]
    result = await summarize_compaction(prepared, _target(provider), pins=pins)
    assert not isinstance(result, SummaryFailure)
    prompt = _prompt(provider, 0)
    assert "<pinned>\n- keep port 8080\n- never touch prod.db\n</pinned>\n\n" in prompt
    assert prompt.endswith(PINNED_INSTRUCTION)
    assert result.summary == "## Goal\nG\n\n## Pinned\n- keep port 8080\n- never touch prod.db"
    assert result.pinned == pins
