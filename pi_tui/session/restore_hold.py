"""After a restore, automatic compaction waits: the restored context is usually above the threshold (it was
compacted for that reason), and compacting it again at the next prompt would undo what the user just did.

The pause lasts while the newest `pi-tui.restore` marker on the branch has no compaction after it, so it
survives a restart. During it a threshold compaction runs only once the user has sent a message and the
next request is forecast to overflow the window (`context.compaction.triggers`); an overflow the provider
reports is still recovered from as always. docs/compaction.md describes it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pi_tui.ai.messages import UserMessage
from pi_tui.config.bounds import reserve_within_window
from pi_tui.config.compaction_budget import resolved_compaction
from pi_tui.config.model_config import ModelConfig
from pi_tui.config.settings import CompactionSettings
from pi_tui.context.compaction.token_estimate import estimate_context_tokens
from pi_tui.context.compaction.triggers import RestoreHoldState
from pi_tui.session.compaction_ops import RESTORE_CUSTOM_TYPE
from pi_tui.session.compaction_records import summarized_span
from pi_tui.session_file.context_rebuild import build_session_context
from pi_tui.session_file.entries import CompactionEntry, CustomEntry, MessageEntry
from pi_tui.session_file.store import SessionStore


@dataclass(frozen=True)
class RestoreHold:
    marker_id: str
    compaction_id: str | None
    user_spoke: bool
    """A user message was sent since the restore."""

    @property
    def state(self) -> RestoreHoldState:
        return RestoreHoldState(user_spoke=self.user_spoke)


def restore_hold(store: SessionStore) -> RestoreHold | None:
    """The restore that pauses automatic compaction on the current branch, if any."""
    user_spoke = False
    for entry in reversed(store.get_branch()):
        if isinstance(entry, CompactionEntry):
            return None
        if isinstance(entry, MessageEntry) and isinstance(entry.message, UserMessage):
            user_spoke = True
        if isinstance(entry, CustomEntry) and entry.custom_type == RESTORE_CUSTOM_TYPE:
            data: Any = entry.data
            compaction = data.get("compactionId") if isinstance(data, dict) else None
            return RestoreHold(entry.id, compaction if isinstance(compaction, str) else None, user_spoke)
    return None


@dataclass(frozen=True)
class RestoreCost:
    """What restoring before a compaction brings back, for the confirmation."""

    messages_back: int
    context_tokens: int
    """The context's estimated size right after the restore."""
    window: int
    threshold: int

    @property
    def above_threshold(self) -> bool:
        return self.context_tokens > self.threshold

    def to_json_obj(self) -> dict[str, int | bool]:
        return {
            "messagesBack": self.messages_back,
            "contextTokens": self.context_tokens,
            "window": self.window,
            "threshold": self.threshold,
            "aboveThreshold": self.above_threshold,
        }

    def describe(self) -> str:
        size = f"about {self.context_tokens:,}"
        if self.window:
            share = round(100 * self.context_tokens / self.window)
            size += f" of {self.window:,} tokens ({share}% of the window)"
        else:
            size += " tokens"
        plural = "s" if self.messages_back != 1 else ""
        text = f"Brings back the {self.messages_back} message{plural} the summary replaced: "
        text += f"the context becomes {size}."
        if self.window and self.above_threshold:
            text += (
                f" That is above the compaction threshold ({self.threshold:,}): automatic compaction pauses "
                "until you have sent a message and the next request would overflow the window."
            )
        return text


def restore_cost(
    store: SessionStore, compaction_id: str, model: ModelConfig | None, settings: CompactionSettings
) -> RestoreCost | None:
    """None when `compaction_id` is not a compaction of `store`."""
    entry = store.get_entry(compaction_id)
    if not isinstance(entry, CompactionEntry):
        return None
    context = build_session_context(store.entries, entry.parent_id).messages
    window = model.context_window if model is not None else 0
    reserve = reserve_within_window(resolved_compaction(settings, model).reserve_tokens, window)
    return RestoreCost(
        messages_back=len(summarized_span(store, entry)),
        context_tokens=estimate_context_tokens(context).tokens,
        window=window,
        threshold=max(0, window - reserve),
    )
