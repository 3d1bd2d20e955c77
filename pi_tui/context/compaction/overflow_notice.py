"""What to say when a request does not fit the window and compaction has nothing to summarise.

Compacting then would summarise an empty conversation and send the same request again with an invented
summary, which overflows again (see docs/reliability.md). The session fails at once instead, with
what the request costs, what the window is and what the user can do.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from pi_tui.ai.js_json import js_dumps
from pi_tui.ai.messages import AgentMessage, AssistantMessage
from pi_tui.ai.stream import ToolSpec
from pi_tui.context.compaction.js_strings import js_len
from pi_tui.context.compaction.token_estimate import CHARS_PER_TOKEN, estimate_context_tokens


@dataclass(frozen=True)
class RequestCost:
    """The size of the request that did not fit: as the provider counted it, or estimated (chars/4)."""

    tokens: int
    reported: bool

    def __str__(self) -> str:
        if self.reported:
            return f"{self.tokens:,} tokens (as the provider counted it)"
        return f"about {self.tokens:,} tokens (estimated)"


def request_cost(
    reply: AssistantMessage, messages: Sequence[AgentMessage], system_prompt: str, tools: Sequence[ToolSpec]
) -> RequestCost:
    """A reply that came back reports its prompt; a refused request is estimated whole: the system
    prompt and tools count too, unless a reported usage (which includes them) anchors the estimate."""
    if not reply.failed:
        return RequestCost(reply.usage.input + reply.usage.cache_read, reported=True)
    estimate = estimate_context_tokens(messages)
    if estimate.last_usage_index is not None:
        return RequestCost(estimate.tokens, reported=False)
    fixed_chars = js_len(system_prompt) + sum(
        js_len(js_dumps({"name": tool.name, "description": tool.description, "parameters": tool.parameters}))
        for tool in tools
    )
    return RequestCost(estimate.tokens + math.ceil(fixed_chars / CHARS_PER_TOKEN), reported=False)


def overflow_notice(cost: RequestCost, *, window: int, model_ref: str, keep_recent_tokens: int) -> str:
    """One message: the cost, the window, why compaction cannot help, and what to do instead."""
    head = (
        f"Context overflow: the request is {cost} and {model_ref}'s context window is {window:,} tokens; "
        f"compaction has nothing older to summarise (it keeps the newest {keep_recent_tokens:,} tokens, "
        "compaction.keepRecentTokens)."
    )
    if cost.reported:
        advice = (
            "Shorten the prompt, switch to a model with a larger window, or raise contextWindow in "
            "models.json if the server serves more."
        )
    elif cost.tokens > window:
        advice = "Shorten the prompt or switch to a model with a larger window."
    else:
        advice = (
            "The server refused it, so it serves a smaller window than that: set contextWindow in "
            "models.json to what the server serves, and shorten the prompt."
        )
    return f"{head} {advice}"
