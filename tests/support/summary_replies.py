"""A model stand-in for compaction: answers every summary request, whichever strategy asked for it.

Installed as the loopback server's `responder`, it leaves the queued replies to the conversation's own
turns, so a session that compacts on its own between turns needs no knowledge of when it will.
"""

from __future__ import annotations

from typing import Any

from pi_tui.context.compaction.inline_prompts import STOP_PREAMBLE, TURN_CONTEXT_DIVIDER
from pi_tui.context.compaction.prompts import SUMMARIZATION_SYSTEM_PROMPT
from tests.support.openai_server import Reply, text_reply

SUMMARY_BODY = (
    "## Goal\nRun each numbered check and report what it printed.\n\n"
    "## Constraints & Preferences\n- (none)\n\n"
    "## Progress\n### Done\n- [x] {done}\n\n### In Progress\n- [ ] The next check\n\n"
    "### Blocked\n- (none)\n\n"
    "## Key Decisions\n- **bash for each check**: the checks are shell commands\n\n"
    "## Next Steps\n1. Run the next check\n\n## Critical Context\n- Each check prints its step and 1 to 200"
)
TURN_PREFIX_BODY = (
    "## Original Request\nRun the check.\n\n## Early Progress\n- Started it\n\n"
    "## Context for Suffix\n- (none)"
)


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return ""


def summary_kind(body: Any) -> str | None:
    """`inline`, `serialize` or None (a turn of the conversation)."""
    messages = body.get("messages") if isinstance(body, dict) else None
    if not isinstance(messages, list) or not messages:
        return None
    if _text(messages[0]) == SUMMARIZATION_SYSTEM_PROMPT or _text(messages[-1]).startswith("<conversation>"):
        return "serialize"  # pi-tui's, or pi's own (its system prompt is worded differently)
    if messages[-1].get("role") == "user" and _text(messages[-1]).startswith(STOP_PREAMBLE):
        return "inline"
    return None


def summary_text(body: Any) -> str | None:
    """The summary a model gives for a summary request (None: a turn of the conversation)."""
    kind = summary_kind(body)
    if kind is None:
        return None
    done = "Ran the earlier checks"
    if kind == "inline" and TURN_CONTEXT_DIVIDER in _text(body["messages"][-1]):
        return f"{SUMMARY_BODY.format(done=done)}\n\n{TURN_CONTEXT_DIVIDER}\n\n{TURN_PREFIX_BODY}"
    last = _text(body["messages"][-1])
    if kind == "serialize" and ("FIRST PART of one turn" in last or "PREFIX of a turn" in last):
        return TURN_PREFIX_BODY
    return SUMMARY_BODY.format(done=done)


def answer_summaries(body: Any) -> Reply | None:
    text = summary_text(body)
    return text_reply(text) if text is not None else None
