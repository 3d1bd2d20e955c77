"""How many of a transcript's newest messages fill the screen, estimated from their text alone.

Opening a session should mount only what the first frame needs: a page of twelve messages of a coding
session is often six screens of rows, and every mounted block costs milliseconds (bench/tui.py, open).
The estimate errs low (no Markdown spacing, no tool output, no thinking; a paragraph's soft line breaks
joined as Markdown joins them), so a first page chosen by it fills the viewport or holds every message
there is.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from pi_tui.ai.messages import (
    AgentMessage,
    AssistantMessage,
    BashExecutionMessage,
    CustomMessage,
    TextContent,
    ToolResultMessage,
    UserMessage,
    user_text,
)


def wrapped_rows(lines: Iterable[str], width: int) -> int:
    """Rows `lines` take wrapped at `width` columns, counting a wrapped line by its length alone."""
    width = max(1, width)
    return sum(max(1, -(-len(line) // width)) for line in lines)


def text_rows(text: str, width: int) -> int:
    """Rows plain `text` takes at `width` columns, every line break kept."""
    return wrapped_rows(text.split("\n"), width) if text else 0


_BLOCK_START = re.compile(r"([-*+>|#]|\d+[.)])(\s|$)|\|")
"""A line that starts a Markdown block of its own (list item, quote, heading, table row), rather than
continuing the paragraph above it."""


def markdown_lines(text: str) -> list[str]:
    """The lines Markdown text is drawn in before wrapping: a paragraph's soft line breaks are joined,
    code lines stay apart, a run of blank lines between blocks is one empty line (the margin drawn
    between them), a heading is followed by one; fences and code padding are left out."""
    lines: list[str] = []
    fenced = joinable = False
    for raw in text.split("\n"):
        line = raw.strip()
        if line.startswith(("```", "~~~")):
            fenced, joinable = not fenced, False
        elif fenced:
            lines.append(raw.rstrip())
        elif not line:
            if lines and lines[-1]:
                lines.append("")
            joinable = False
        elif joinable and not _BLOCK_START.match(line):
            lines[-1] += " " + line
        elif line.startswith("#"):
            lines += [line, ""]  # a heading keeps a margin below it, blank line in the source or not
            joinable = False
        else:
            lines.append(line)
            joinable = not line.startswith("|")
    return lines[:-1] if lines and not lines[-1] else lines


def markdown_rows(text: str, width: int) -> int:
    return wrapped_rows(markdown_lines(text), width)


def estimated_rows(message: AgentMessage, width: int) -> int:
    """A low estimate of the rows `message`'s blocks take in the conversation."""
    if isinstance(message, ToolResultMessage):
        return 0  # drawn inside its call's block, counted there as the call's header row
    if isinstance(message, AssistantMessage):
        text = "".join(block.text for block in message.content if isinstance(block, TextContent))
        return markdown_rows(text, width) + len(message.tool_calls)
    if isinstance(message, UserMessage | CustomMessage):
        return text_rows(user_text(message), width)
    if isinstance(message, BashExecutionMessage):
        return text_rows(f"!{message.command}\n{message.output}".rstrip(), width)
    return 1  # a one-line notice: compaction, branch summary


def newest_filling(messages: Sequence[AgentMessage], width: int, rows: int) -> int:
    """How many of the newest `messages` it takes for their estimated rows to reach `rows` (all of them
    when they never do)."""
    total = 0
    for count, message in enumerate(reversed(messages), start=1):
        total += estimated_rows(message, width)
        if total >= rows:
            return count
    return len(messages)
