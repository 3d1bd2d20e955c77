"""The instructions of a summary asked inside the conversation (the inline strategy, docs/compaction.md).

The request is the conversation exactly as the model last saw it, so the provider reads it from its
prompt cache; one user message is appended that turns the model from the task to the summary. It names
the kept part by quoting its first message and counting what follows, because the model sees the whole
conversation and would otherwise summarise the kept messages twice. The section skeletons are pi's, so
the result merges with summaries written by the serialising strategy (or by pi) in later updates. A split
turn asks for both of pi's summaries in one reply, divided by `TURN_CONTEXT_DIVIDER`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pi_tui.ai.messages import AssistantMessage, TextContent, ToolCall, ToolResultMessage
from pi_tui.ai.stream import LlmMessage
from pi_tui.context.compaction.prompts import (
    PINNED_INSTRUCTION,
    SUMMARY_FORMAT,
    TURN_PREFIX_FORMAT,
    UPDATE_RULES_AND_FORMAT,
    pinned_block,
    with_focus,
)

QUOTE_CHARS = 80
TURN_CONTEXT_DIVIDER = "=== TURN CONTEXT ==="

STOP_PREAMBLE = (
    "This message comes from the application, not from the user. The conversation above is about to be "
    "condensed so the work can go on in a smaller context. Do not call any tool, do not carry on with the "
    "task and do not answer anything asked above: reply with the summary described below and nothing else."
)


@dataclass(frozen=True)
class InlineSpan:
    """Where the summary stops, as the model sees the conversation."""

    kept_first: LlmMessage
    """The first message that stays word for word."""
    kept_count: int
    """How many messages stay, counting `kept_first`."""
    turn_start: LlmMessage | None = None
    """A split turn: the user message that opened the turn whose first part is summarised separately."""
    history_empty: bool = False
    """A split turn with nothing before it to summarise (pi then writes "No prior history.")."""
    updates_previous: bool = False
    """The conversation opens with an earlier summary, which is to be updated."""


def quote(text: str) -> str:
    flat = " ".join(text.split())
    return f"“{flat[:QUOTE_CHARS]}…”" if len(flat) > QUOTE_CHARS else f"“{flat}”"


def describe(message: LlmMessage) -> str:
    """A message as a reader finds it in the conversation: its author and how it begins."""
    if isinstance(message, ToolResultMessage):
        text = "".join(block.text for block in message.content if isinstance(block, TextContent))
        return f"the result of the `{message.tool_name}` call that begins {quote(text)}"
    text = "".join(block.text for block in message.content if isinstance(block, TextContent))
    if isinstance(message, AssistantMessage):
        if text.strip():
            return f"your reply that begins {quote(text)}"
        calls = [block for block in message.content if isinstance(block, ToolCall)]
        if calls:
            return f"your `{calls[0].name}` call with the arguments {quote(str(calls[0].arguments))}"
        return "your empty reply"
    return f"the user message that begins {quote(text)}"


def _kept_sentence(span: InlineSpan) -> str:
    after = span.kept_count - 1
    tail = f"that message and the {after} after it" if after else "that message"
    return f"{tail} stay in the context word for word, so leave them out of the summary"


def _history_instructions(span: InlineSpan, end: str) -> str:
    if span.updates_previous:
        return (
            "The conversation above begins with a summary of earlier work (in <summary>). Merge the messages "
            f"that follow it, up to {end}, into that summary.\n\n{UPDATE_RULES_AND_FORMAT}"
        )
    return (
        "Condense the conversation above, up to "
        f"{end}, into a structured context checkpoint that another LLM will rely on to carry on with the "
        f"work.\n\n{SUMMARY_FORMAT}"
    )


def inline_instructions(
    span: InlineSpan, custom_instructions: str | None = None, pins: Sequence[str] = ()
) -> str:
    """The user message appended to the conversation to ask for its summary."""
    kept = f"{describe(span.kept_first)}: {_kept_sentence(span)}."
    if span.turn_start is None:
        body = _history_instructions(span, f"(not including) {describe(span.kept_first)}")
        body = with_focus(body, custom_instructions) + f"\n\nWhere the summary stops: {kept}"
    else:
        turn = describe(span.turn_start)
        prefix_part = (
            f"Summarise the first part of the current turn, from {turn} up to (not including) "
            f"{describe(span.kept_first)}, so that the kept part can be understood.\n\n{TURN_PREFIX_FORMAT}"
        )
        if span.history_empty:
            body = f"{prefix_part}\n\nWhere the summary stops: {kept}"
        else:
            history = _history_instructions(span, f"(not including) {turn}")
            body = (
                "The kept part starts in the middle of a turn, so write two summaries in one reply.\n\n"
                f"First: {with_focus(history, custom_instructions)}\n\n"
                f"Then a line containing only {TURN_CONTEXT_DIVIDER}\n\n"
                f"Then: {prefix_part}\n\nWhere the summaries stop: {kept}"
            )
    if pins:
        body += f"\n\n{pinned_block(pins)}\n\n{PINNED_INSTRUCTION}"
    return f"{STOP_PREAMBLE}\n\n{body}"


def split_reply(text: str) -> tuple[str, str] | None:
    """The history summary and the turn-prefix summary of a split turn's reply; None without the divider."""
    lines = text.split("\n")
    for index, line in enumerate(lines):
        if line.strip().strip("`*").strip() == TURN_CONTEXT_DIVIDER:
            history = "\n".join(lines[:index]).strip()
            prefix = "\n".join(lines[index + 1 :]).strip()
            return (history, prefix) if history and prefix else None
    return None
