"""Context edits a user makes (docs/compaction.md "Context edits"): leave a message or tool result out of
every later request, or put a short note in its place, with pi 1.6's `context_edit` entries, so pi
honours them too; and undo, which writes the edit that restores the original content.

Nothing is written before a preview says what it means: what the model will no longer see, the tokens
saved on every later request, and what the edit costs now (the request after it re-reads everything from
the edited message on, once, at the cache-write or input price instead of the cached price). The raw
history never changes: an edit is one more line, the target's own line stays as it was.

Refused, with the reason: an entry that is not a message of the current context (compacted away, on
another branch, a model change…), one already hidden (or, for undo, never edited), a pinned one (pins
protect an entry from edits), a system message (pi 1.6's prompt checkpoint, never sent).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, TypeAlias

from pi_tui.ai.messages import (
    AgentMessage,
    AssistantMessage,
    CustomMessage,
    ModelPrices,
    SystemMessage,
    TextContent,
    ToolResultMessage,
    Usage,
    UserMessage,
    compute_cost,
)
from pi_tui.config.model_config import ModelConfig
from pi_tui.context.compaction.token_estimate import estimate_tokens
from pi_tui.session.compaction_pins import active_pins, message_pin_text
from pi_tui.session_file.context_rebuild import ProjectedEntry, edited_messages, entry_message
from pi_tui.session_file.entries import ContextEditEntry, ContextReplacement
from pi_tui.session_file.store import SessionStore

EditAction: TypeAlias = Literal["hide", "note", "restore"]
EDITABLE = (UserMessage, AssistantMessage, ToolResultMessage, CustomMessage)
"""The roles pi 1.6's projection edits (others keep their content whatever the edit says)."""
LOST_PREVIEW_CHARS = 600


@dataclass(frozen=True)
class EditPreview:
    """What an edit would do, before it is written (`apply_context_edit` writes it)."""

    target_id: str
    action: EditAction
    role: str
    lost_text: str
    """What the model sees of the target today and would no longer see (for undo: what comes back)."""
    tokens_now: int
    tokens_after: int
    reread_tokens: int
    """The context from the target on: re-read (written to the cache) once by the next request."""
    reread_cost: float | None
    cached_cost: float | None
    """What those tokens cost read from the cache, as they would be without the edit."""
    replacement: ContextReplacement | None

    @property
    def saved_per_turn(self) -> int:
        return self.tokens_now - self.tokens_after

    @property
    def extra_cost(self) -> float | None:
        if self.reread_cost is None or self.cached_cost is None:
            return None
        return self.reread_cost - self.cached_cost

    def lines(self) -> list[str]:
        """The preview as a person reads it."""
        what = {
            "hide": "left out of every later request",
            "note": "replaced by a note in every later request",
            "restore": "restored to its original content",
        }[self.action]
        out = [f"Entry {self.target_id} ({self.role}): {what}."]
        if self.action == "restore":
            out.append(f"The model will see again ({self.tokens_after:,} tokens):")
        else:
            out.append("The model will no longer see:")
        out.extend(f"  {line}" for line in _capped(self.lost_text).splitlines() or ["(no text)"])
        if self.action == "note" and self.replacement is not None:
            out.append(f"In its place: {_content_text(self.replacement.content)}")
        change = self.saved_per_turn
        if change >= 0:
            out.append(f"Saves ~{change:,} tokens on every later request.")
        else:
            out.append(f"Adds ~{-change:,} tokens to every later request.")
        cost = (
            f"; about ${self.extra_cost:.4f} more than reading them from the cache" if self.extra_cost else ""
        )
        out.append(f"Costs now: the next request re-reads ~{self.reread_tokens:,} tokens once{cost}.")
        return out


def _capped(text: str) -> str:
    if len(text) <= LOST_PREVIEW_CHARS:
        return text
    return text[:LOST_PREVIEW_CHARS] + f"… ({len(text) - LOST_PREVIEW_CHARS:,} more characters)"


def _content_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(getattr(block, "text", "") or "" for block in content)
    return ""


def default_note(message: AgentMessage) -> str:
    """The note the TUI offers: what was there, in one line, so the model knows something was."""
    text = message_pin_text(message)
    lines = text.count("\n") + 1 if text else 0
    if isinstance(message, ToolResultMessage):
        return f"[{message.tool_name} output left out by the user: {lines:,} lines, {len(text):,} characters]"
    return f"[{message.role} message left out by the user: {len(text):,} characters]"


def _projection_index(projection: Sequence[ProjectedEntry], target_id: str) -> int | None:
    for index, projected in enumerate(projection):
        if projected.entry.id == target_id:
            return index
    return None


def _price(model: ModelConfig | None, tokens: int, kind: str) -> float | None:
    if model is None or tokens <= 0:
        return None
    prices = ModelPrices.model_validate(model.cost.model_dump())
    if kind == "write":
        usage = Usage(cache_write=tokens) if prices.cache_write > 0 else Usage(input=tokens)
    else:
        usage = Usage(cache_read=tokens)
    total = compute_cost(usage, prices).total
    return total if total > 0 else None


def plan_context_edit(
    store: SessionStore,
    model: ModelConfig | None,
    target_id: str,
    action: EditAction,
    note: str | None = None,
) -> EditPreview | str:
    """The preview of hiding `target_id` (`hide`), replacing it with `note` (`note`) or undoing its
    edit (`restore`); a string says why it is refused."""
    entry = store.get_entry(target_id)
    if entry is None:
        return f"entry {target_id} not found"
    original = entry_message(entry)
    if original is None or not isinstance(original, EDITABLE) or isinstance(original, SystemMessage):
        return f"entry {target_id} is not a message or tool result: only those can be edited"
    projection = store.build_context().projection
    index = _projection_index(projection, target_id)
    if index is None:
        return f"entry {target_id} is no longer in the context (compacted, or on another branch)"
    projected = projection[index]
    edited_out = projected.edited_out
    if action == "restore":
        if projected.edit is None or projected.messages == (original,):
            return f"entry {target_id} has no context edit to undo"
    elif edited_out:
        return f"entry {target_id} is already hidden from the context (undo restores it)"
    if action != "restore" and any(pin.entry_id == target_id for pin in active_pins(store)):
        return f"entry {target_id} is pinned: pins protect it from edits (unpin it first)"
    if action == "note" and not (note or "").strip():
        return "a note needs some text"

    now_messages = projected.messages
    replacement: ContextReplacement | None
    if action == "hide":
        replacement = None
    elif action == "note":
        replacement = ContextReplacement(content=(note or "").strip())
    else:
        replacement = ContextReplacement(content=_original_content(original))
    probe = ContextEditEntry(
        id="preview", parent_id=None, timestamp="", target_id=target_id, replacement=replacement
    )
    after_messages = edited_messages((original,), probe)
    tokens_now = sum(estimate_tokens(message) for message in now_messages)
    tokens_after = sum(estimate_tokens(message) for message in after_messages)
    later = sum(
        estimate_tokens(message)
        for later_entry in projection[index + 1 :]
        for message in later_entry.messages
    )
    reread = tokens_after + later
    if action == "restore":
        lost = "\n".join(message_pin_text(message) for message in after_messages)
    else:
        lost = "\n".join(message_pin_text(message) for message in now_messages)
    return EditPreview(
        target_id=target_id,
        action=action,
        role=original.role,
        lost_text=lost,
        tokens_now=tokens_now,
        tokens_after=tokens_after,
        reread_tokens=reread,
        reread_cost=_price(model, reread, "write"),
        cached_cost=_price(model, reread, "read"),
        replacement=replacement,
    )


def _original_content(message: AgentMessage) -> str | list[object]:
    content = getattr(message, "content", "")
    if isinstance(content, list):
        return list(content)
    if isinstance(content, str):
        return content
    return [TextContent(text=message_pin_text(message))]


def apply_context_edit(store: SessionStore, preview: EditPreview) -> ContextEditEntry:
    """Write the previewed edit (one `context_edit` line; nothing else in the file changes)."""
    return store.append_context_edit(preview.target_id, preview.replacement)


def tool_result_entry_id(store: SessionStore, tool_call_id: str) -> str | None:
    """The entry of the current branch holding the result of `tool_call_id` (the newest, as ids repeat
    across replies); None before the result is written."""
    for entry in reversed(store.get_branch()):
        message = entry_message(entry)
        if isinstance(message, ToolResultMessage) and message.tool_call_id == tool_call_id:
            return entry.id
    return None


def is_edited(store: SessionStore, entry_id: str) -> bool:
    """Whether the entry's latest context edit changes what the model sees (an undo's restoring edit,
    which puts the original back, does not)."""
    projected = next((p for p in store.build_context().projection if p.entry.id == entry_id), None)
    if projected is None or projected.edit is None:
        return False
    entry = store.get_entry(entry_id)
    original = entry_message(entry) if entry is not None else None
    return original is None or projected.messages != (original,)
