"""How a compaction's summary is asked for: inside the cached conversation, or with the history serialised.

- `inline`: the request is the conversation exactly as the model last saw it (system prompt, tools,
  messages, cache markers, cache key) plus one message of instructions, so a caching provider reads
  the whole history from cache and only the instructions are new input.
- `serialize` (pi's): a new system prompt and the history written out in one message; it diverges from
  the cached prompt at its first token, so every compaction pays the history in full.

`auto` (the default) summarises inline when the provider keeps a prompt cache, and serialises when the
conversation could not be sent as it is (an overflow, or no room left for the reply) or nothing would be
read from a cache anyway. docs/compaction.md has the figures.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

from pi_tui.ai.prompt_cache import prompt_cache_kind
from pi_tui.config.model_config import ModelConfig
from pi_tui.config.settings import CompactionStrategySetting as StrategySetting

StrategyName: TypeAlias = Literal["inline", "serialize"]

INSTRUCTIONS_ALLOWANCE = 1_000
"""Room for the inline instructions: about 600 tokens, more with pins and a focus."""


@dataclass(frozen=True)
class StrategyChoice:
    name: StrategyName
    reason: str


def choose_strategy(
    setting: StrategySetting,
    model: ModelConfig,
    *,
    overflow: bool,
    has_conversation: bool,
    context_tokens: int,
    output_tokens: int,
) -> StrategyChoice:
    """`context_tokens`: the conversation's estimated size as it would be sent now; `output_tokens`: what
    the summary may write. A compaction at the threshold already has more than the window less the
    reserve; the inline request must still fit the window with its instructions and its reply, or the
    provider would refuse it."""
    if setting == "serialize":
        return StrategyChoice("serialize", "compaction.strategy is serialize")
    if not has_conversation:
        return StrategyChoice("serialize", "no live conversation to summarise in place")
    if overflow:
        return StrategyChoice("serialize", "the conversation no longer fits the window")
    if context_tokens + INSTRUCTIONS_ALLOWANCE + output_tokens > model.context_window:
        return StrategyChoice("serialize", "the conversation leaves no room for the summary")
    if setting == "inline":
        return StrategyChoice("inline", "compaction.strategy is inline")
    kind = prompt_cache_kind(model)
    if kind is None:
        return StrategyChoice("serialize", "the provider is not known to cache prompts")
    return StrategyChoice("inline", f"the provider caches prompts ({kind})")
