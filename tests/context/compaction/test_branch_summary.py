"""Branch summaries: budgeted selection and the single summary call."""

from __future__ import annotations

from pi_tui.ai.messages import TextContent, UserMessage
from pi_tui.ai.scripted import ScriptedProvider, ScriptedReply
from pi_tui.config.model_config import ModelConfig
from pi_tui.context.compaction.branch_summary import (
    BranchSummary,
    generate_branch_summary,
    prepare_branch_entries,
)
from pi_tui.context.compaction.prompts import BRANCH_SUMMARY_PREAMBLE, BRANCH_SUMMARY_PROMPT
from pi_tui.context.compaction.summary_call import SummaryFailure, SummaryModel
from tests.context.compaction.items import (
    assistant,
    branch_summary,
    compaction,
    tool_result,
    user,
    words,
)


def test_tool_results_dropped_and_summaries_included_as_messages() -> None:
    items = [
        branch_summary("b0", "earlier", details={"readFiles": ["r.md"], "modifiedFiles": ["m.py"]}),
        compaction("k", "compacted", "x"),
        user("u1", "go"),
        assistant("a1", "", [("write", {"path": "w.py"})]),
        tool_result("t1", words(100)),
    ]
    prepared = prepare_branch_entries(items)
    assert [message.role for message in prepared.messages] == [
        "branchSummary",
        "compactionSummary",
        "user",
        "assistant",
    ]
    assert prepared.file_ops.lists() == (["r.md"], ["m.py", "w.py"])


def test_budget_keeps_newest_and_a_summary_under_90_percent() -> None:
    items = [
        user("u0", words(500)),
        branch_summary("b", words(30)),
        user("u1", words(40)),
        user("u2", words(40)),
    ]
    prepared = prepare_branch_entries(items, 100)
    # 40 + 40 = 80 < 90 → the summary (30) still goes in, over budget; then the walk stops.
    assert [message.role for message in prepared.messages] == ["branchSummary", "user", "user"]
    assert prepared.total_tokens == 110
    tight = prepare_branch_entries(items, 85)
    assert [message.role for message in tight.messages] == ["user", "user"]


async def test_summary_call_prompt_preamble_and_file_tags() -> None:
    provider = ScriptedProvider([ScriptedReply(text="## Goal\nX")])
    target = SummaryModel(ModelConfig(id="m", reasoning=True), provider, thinking_level="high")
    items = [user("u1", "try"), assistant("a1", "", [("read", {"path": "f.py"})])]
    result = await generate_branch_summary(items, target, 16384, custom_instructions="focus")
    assert isinstance(result, BranchSummary) and result.usage is not None  # the call's cost is kept
    assert result == BranchSummary(
        BRANCH_SUMMARY_PREAMBLE + "## Goal\nX\n\n<read-files>\nf.py\n</read-files>",
        ["f.py"],
        [],
        result.usage,
    )
    message = provider.contexts[0].messages[0]
    assert isinstance(message, UserMessage) and isinstance(message.content, list)
    block = message.content[0]
    assert isinstance(block, TextContent)
    conversation = '[User]: try\n\n[Assistant tool calls]: read(path="f.py")'
    instructions = f"{BRANCH_SUMMARY_PROMPT}\n\nAdditional focus: focus"
    assert block.text == f"<conversation>\n{conversation}\n</conversation>\n\n{instructions}"
    # pi 1.6: the model's own output limit (the provider lowers it to what the window leaves) and the
    # session's thinking level (0.73.1: 2048 tokens, no reasoning).
    assert provider.options[0].max_tokens is None and provider.options[0].reasoning == "high"


async def test_replace_instructions_empty_branch_and_errors() -> None:
    provider = ScriptedProvider([ScriptedReply(text="S"), ScriptedReply(error="down")])
    target = SummaryModel(ModelConfig(id="m"), provider)
    result = await generate_branch_summary(
        [user("u", "hi")], target, 0, custom_instructions="ONLY THIS", replace_instructions=True
    )
    assert isinstance(result, BranchSummary)
    message = provider.contexts[0].messages[0]
    assert isinstance(message, UserMessage) and isinstance(message.content, list)
    assert message.content[0].text.endswith("</conversation>\n\nONLY THIS")  # type: ignore[union-attr]
    assert await generate_branch_summary([], target, 0) == BranchSummary("No content to summarize")
    assert await generate_branch_summary([user("u", "x")], target, 0) == SummaryFailure("down")
