"""Why automatic compaction cannot run now, and what to change: one answer for the trigger and every view.

`AutoCompaction.check` asks `compaction_blocker` once pi's threshold or overflow check says to compact, and
compacts only when it answers None; the footer (`(auto: blocked)`), the Context pane and `pi-tui context`
ask the same function once the context is over the threshold. So the screen can never say `(auto)` while
the session silently refuses (issue #27: on a 12,000 window the default 20,000 kept recent tokens left
nothing older to summarise).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, TypeAlias

from pi_tui.config.bounds import reserve_within_window
from pi_tui.config.compaction_budget import budget_source, resolved_compaction
from pi_tui.config.model_config import ModelConfig
from pi_tui.config.settings import CompactionSettings
from pi_tui.context.compaction.preparation import ends_with_compaction, prepare_compaction
from pi_tui.context.compaction.token_estimate import should_compact
from pi_tui.session_file.entries import SessionEntry

BlockKind: TypeAlias = Literal["disabled", "compacted", "nothing_older"]


@dataclass(frozen=True)
class CompactionBlock:
    kind: BlockKind
    reason: str
    """Short, e.g. "nothing older than the kept 3,000 recent tokens"."""
    setting: str | None
    """The settings path behind it as `budget_source` names it (with its note on a value nobody set),
    None when no setting is the cause."""
    change: str
    """What the user can do about it."""

    @property
    def text(self) -> str:
        """The reason with its setting, as the Context pane, `pi-tui context` and the notice say it."""
        if self.setting is None:
            return self.reason
        path, _, note = self.setting.partition(" (")
        return f"{self.reason} ({path}, {note.removesuffix(')')})" if note else f"{self.reason} ({path})"


def compaction_blocker(
    items: Sequence[SessionEntry], settings: CompactionSettings, model: ModelConfig | None
) -> CompactionBlock | None:
    """Why a compaction of the branch `items` would not run, or None when it would summarise something.

    `settings` are the ones the user wrote (not `resolved_compaction`'s): `budget_source` reads which
    values were set. Whether the context is over the threshold is the caller's question."""
    if not settings.enabled:
        return CompactionBlock(
            "disabled",
            "compaction is off",
            "compaction.enabled",
            "set compaction.enabled to true, or /compact",
        )
    if ends_with_compaction(items):
        return CompactionBlock(
            "compacted", "just compacted", None, "the next reply is measured again; /compact to force one"
        )
    resolved = resolved_compaction(settings, model)
    prepared = prepare_compaction(items, resolved)
    if prepared is not None and prepared.span:
        return None
    keep = resolved.keep_recent_tokens
    source = budget_source(settings, model, "keep_recent_tokens")
    window = model.context_window if model is not None else 0
    threshold = window - reserve_within_window(resolved.reserve_tokens, window)
    if window > 0 and keep >= threshold:
        change = f"set {_path(source)} below the threshold ({threshold:,})"
    else:
        change = f"lower {_path(source)}, or use a model with a larger window"
    return CompactionBlock(
        "nothing_older", f"nothing older than the kept {keep:,} recent tokens", source, change
    )


def blocked_at(
    tokens: int, items: Sequence[SessionEntry], settings: CompactionSettings, model: ModelConfig | None
) -> CompactionBlock | None:
    """For the views: `compaction_blocker` once `tokens` (the context figure they show) is over the
    threshold (pi's `shouldCompact`, which the trigger uses); None below it or with compaction off
    (each view says "off" by itself)."""
    window = model.context_window if model is not None else 0
    if not should_compact(tokens, window, resolved_compaction(settings, model)):
        return None
    return compaction_blocker(items, settings, model)


def blocked_line(block: CompactionBlock) -> str:
    """The Context pane's and `pi-tui context`'s line: the reason, then what to change."""
    return f"Auto-compaction blocked: {block.text} · to let it run: {block.change}"


def _path(source: str) -> str:
    """The settings path alone, without `budget_source`'s note on an unset value."""
    return source.split(" (", 1)[0]
