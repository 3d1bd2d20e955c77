"""Where a compaction cuts the branch: pi's `findCutPoint`, over the session entries of the path.

The kept tail holds about `keep_recent_tokens` of the newest messages and always starts at a legal
boundary: never at a tool result (its tool call would be lost), so cutting at an assistant reply
keeps the tool results that follow it. When the boundary falls inside a turn (after its user
message), the turn is "split" and its prefix gets a summary of its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pi_tui.ai.messages import (
    BashExecutionMessage,
    SystemMessage,
    ToolResultMessage,
    UnknownMessage,
    UserMessage,
)
from pi_tui.context.compaction.token_estimate import estimate_tokens
from pi_tui.session_file.context_rebuild import entry_message
from pi_tui.session_file.entries import SessionEntry

# Entry types are compared by name, as pi does: an entry kept opaque because it failed validation still
# counts as what its `type` says.
_CUT_TYPES = frozenset({"branch_summary", "custom_message"})
_STOPS_MOVE_BACK = frozenset({"compaction", "message"})


@dataclass(frozen=True)
class CutPoint:
    """`first_kept_index`: first entry kept verbatim. `turn_start_index`: the user message (or other turn
    opener) of the turn the cut splits, -1 when the cut is at a user message or no opener exists."""

    first_kept_index: int
    turn_start_index: int
    is_split_turn: bool


def is_valid_cut(entry: SessionEntry) -> bool:
    """A message entry other than a tool result, or a branch summary / custom message entry."""
    if entry.type == "message":
        message = entry_message(entry)
        return message is not None and not isinstance(
            message, ToolResultMessage | UnknownMessage | SystemMessage
        )
    return entry.type in _CUT_TYPES


def valid_cut_points(items: Sequence[SessionEntry], start: int, end: int) -> list[int]:
    return [index for index in range(start, end) if is_valid_cut(items[index])]


def move_back_over_settings(items: Sequence[SessionEntry], cut: int, start: int) -> int:
    """pi moves a cut back over entries that are not messages (settings, labels, custom entries…) until
    a message or a compaction entry or `start`."""
    while cut > start and items[cut - 1].type not in _STOPS_MOVE_BACK:
        cut -= 1
    return cut


def _opens_turn(entry: SessionEntry) -> bool:
    if entry.type in _CUT_TYPES:
        return True
    return entry.type == "message" and isinstance(entry_message(entry), UserMessage | BashExecutionMessage)


def find_turn_start_index(items: Sequence[SessionEntry], index: int, start: int) -> int:
    """Nearest turn opener at or before `index` (not before `start`), or -1."""
    for position in range(index, start - 1, -1):
        if _opens_turn(items[position]):
            return position
    return -1


def _starts_a_turn(items: Sequence[SessionEntry], cut: int, end: int) -> bool:
    """The kept region opens with a user message, perhaps after entries that are not messages.

    pi looks at the cut item alone, so a cut moved back over a custom entry counts as splitting the
    turn before it, and that whole earlier turn is summarised a second time as a "turn prefix". pi-tui
    records every request as a custom entry right before the next user message, which would make
    nearly every compaction of its own sessions such a split: the first message decides here.
    """
    for index in range(cut, end):
        entry = items[index]
        if entry.type == "message":
            return isinstance(entry_message(entry), UserMessage)
        if entry.type in _CUT_TYPES or entry.type == "compaction":
            return False
    return False


def find_cut_point(items: Sequence[SessionEntry], start: int, end: int, keep_recent_tokens: int) -> CutPoint:
    """pi's `findCutPoint` over `items[start:end]`, including its quirks:

    - only `message` entries are counted (custom messages and branch summaries are free);
    - when the budget is crossed at `i`, the kept region starts at the first legal cut at or after
      `i`; if there is none (only tool results after `i`), the first legal cut is used, i.e.
      everything is kept;
    - the cut then moves back over non-message items (settings, labels, custom entries…) until a
      message or a compaction entry or `start`.

    One difference: a kept region whose first message is a user message is not a split turn even when
    the cut sits on an entry before it (see `_starts_a_turn`).
    """
    cuts = valid_cut_points(items, start, end)
    if not cuts:
        return CutPoint(start, -1, False)
    cut = cuts[0]
    accumulated = 0
    for index in range(end - 1, start - 1, -1):
        message = entry_message(items[index]) if items[index].type == "message" else None
        if message is None:
            continue
        accumulated += estimate_tokens(message)
        if accumulated >= keep_recent_tokens:
            cut = next((candidate for candidate in cuts if candidate >= index), cut)
            break
    cut = move_back_over_settings(items, cut, start)
    if _starts_a_turn(items, cut, end):
        return CutPoint(cut, -1, False)
    turn_start = find_turn_start_index(items, cut, start)
    return CutPoint(cut, turn_start, turn_start != -1)
