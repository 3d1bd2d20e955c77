"""The current branch as HTML: every message from the root to the leaf, compacted ones included.

Assistant text and summaries are rendered Markdown; user text is shown as typed. Each tool call is
shown with its arguments and, below, exactly what the model got back (preview and truncation notice);
with `full_output`, the spilled complete output follows, up to `max_inline_bytes`.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pi_tui.ai.call_pairing import CallPairing, call_key
from pi_tui.ai.messages import (
    AssistantMessage,
    BashExecutionMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    ImageContent,
    SystemMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserBlock,
    UserMessage,
)
from pi_tui.ai.system_messages import PromptCheckpoint, replay_system_messages
from pi_tui.export.diff_html import diff_html
from pi_tui.export.full_output import InlinedOutput, is_truncated, read_inline
from pi_tui.export.html_text import anchor, esc, num, pre, when
from pi_tui.export.markdown_html import markdown_to_html
from pi_tui.session_file.entries import (
    BranchSummaryEntry,
    CompactionEntry,
    ContextEditEntry,
    CustomMessageEntry,
    MessageEntry,
    ModelChangeEntry,
    SessionEntry,
    SessionInfoEntry,
    ThinkingLevelChangeEntry,
    UsageEntry,
)
from pi_tui.tools.diff_lines import diff_of
from pi_tui.tools.output_pipeline import result_spill_path

IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
MAX_IMAGE_BYTES = 5 * 1024 * 1024
"""Larger images are left out with a note rather than bloating the page."""
OPEN_OUTPUT_LINES = 40


@dataclass(frozen=True)
class ConversationOptions:
    full_output: bool = False
    max_inline_bytes: int = 0
    spill_dir: Path | None = None


def _images(blocks: Sequence[UserBlock]) -> str:
    parts: list[str] = []
    for block in blocks:
        if not isinstance(block, ImageContent):
            continue
        if block.mime_type not in IMAGE_TYPES:
            parts.append(f'<p class="notice">[image of type {esc(block.mime_type)} not shown]</p>')
            continue
        try:
            size = len(base64.b64decode(block.data, validate=True))
        except (binascii.Error, ValueError):
            parts.append('<p class="notice">[image with invalid data not shown]</p>')
            continue
        if size > MAX_IMAGE_BYTES:
            parts.append(f'<p class="notice">[image of {num(size)} bytes not shown]</p>')
            continue
        parts.append(
            f'<img class="attached" alt="attached image" src="data:{block.mime_type};base64,{block.data}">'
        )
    return "".join(parts)


def _text(content: str | Sequence[UserBlock]) -> str:
    if isinstance(content, str):
        return content
    return "".join(block.text for block in content if isinstance(block, TextContent))


def _output(label: str, text: str) -> str:
    """A tool output; a long one is collapsed behind its line count so the conversation stays readable."""
    lines = text.count("\n") + 1
    if lines <= OPEN_OUTPUT_LINES:
        return f'<div class="muted">{esc(label)}:</div>{pre(text)}'
    return f"<details><summary>{esc(label)} ({num(lines)} lines)</summary>{pre(text)}</details>"


def _entry(entry_id: str, kind: str, who: str, body: str, stamp: str | int | None = None) -> str:
    time = when(stamp)
    label = esc(who) + (f' <span class="muted">· {esc(time)}</span>' if time else "")
    head = f'<section class="entry {kind}" id="{anchor(entry_id)}">'
    return f'{head}<div class="who">{label}</div>{body}</section>'


def _meta(entry_id: str, text: str) -> str:
    return f'<div class="entry meta-line" id="{anchor(entry_id)}">{esc(text)}</div>'


class ConversationRenderer:
    """Renders one branch; tool results are shown inside the call that asked for them (`call_pairing`:
    two turns may use the same call id)."""

    def __init__(self, branch: Sequence[SessionEntry], options: ConversationOptions) -> None:
        self.options = options
        self.branch = branch
        self.results: dict[str, tuple[str, ToolResultMessage]] = {}
        """Each answered call's result entry, by the call's key."""
        pairing = CallPairing()
        for entry in branch:
            message = entry.message if isinstance(entry, MessageEntry) else None
            if isinstance(message, AssistantMessage):
                pairing.turn(message)
            elif isinstance(message, ToolResultMessage):
                key = pairing.answered(message.tool_call_id)
                if key is not None and key not in self.results:
                    self.results[key] = (entry.id, message)
        self.paired = {entry_id for entry_id, _ in self.results.values()}
        self.edits = {entry.target_id: entry for entry in branch if isinstance(entry, ContextEditEntry)}
        """pi 1.6's latest context edit of each entry on the branch: the page shows what was written,
        and says what the model got instead."""
        self.prompt = PromptCheckpoint()
        """The tools in force so far, as the branch's system messages are rendered in order."""

    def render(self) -> str:
        parts = [self._edited(entry.id, self._one(entry)) for entry in self.branch]
        body = "\n".join(part for part in parts if part)
        return body or '<p class="muted">No messages on this branch.</p>'

    def _one(self, entry: SessionEntry) -> str:
        if isinstance(entry, MessageEntry):
            return self._message(entry)
        if isinstance(entry, CompactionEntry):
            body = (
                f"<p>Compaction: {num(entry.tokens_before)} tokens before were summarised; the model "
                "continued from the summary and the entries from "
                f"<code>{esc(entry.first_kept_entry_id)}</code> on."
                f'  <a href="#compaction-{esc(entry.id)}">Summary and diff</a>.</p>'
            )
            return _entry(entry.id, "marker", "compaction", body, entry.timestamp)
        if isinstance(entry, BranchSummaryEntry):
            body = f'<div class="md">{markdown_to_html(entry.summary)}</div>'
            return _entry(entry.id, "marker", "branch summary", body, entry.timestamp)
        if isinstance(entry, CustomMessageEntry):
            return self._custom(entry.id, entry.custom_type, entry.content, entry.display, entry.timestamp)
        if isinstance(entry, ModelChangeEntry):
            return _meta(entry.id, f"Model: {entry.provider}/{entry.model_id}")
        if isinstance(entry, ThinkingLevelChangeEntry):
            return _meta(entry.id, f"Thinking level: {entry.thinking_level}")
        if isinstance(entry, SessionInfoEntry):
            return _meta(entry.id, f"Session named: {entry.name}" if entry.name else "Session name cleared")
        if isinstance(entry, ContextEditEntry):
            change = "left out" if entry.replacement is None else "replaced"
            return _meta(entry.id, f"Context edit: {entry.target_id} {change} from here on")
        if isinstance(entry, UsageEntry):
            cost = f"${entry.usage.cost.total:.4f}"
            return _meta(entry.id, f"Billed call ({entry.kind}, {entry.provider}/{entry.model}): {cost}")
        return ""  # labels (shown in the tree), pi-tui's own records, unknown entries

    def _message(self, entry: MessageEntry) -> str:
        message = entry.message
        if isinstance(message, UserMessage):
            content = message.content
            images = _images(content) if not isinstance(content, str) else ""
            body = f'<div class="user-text">{esc(_text(content))}</div>{images}'
            return _entry(entry.id, "user", "user", body, message.timestamp or entry.timestamp)
        if isinstance(message, AssistantMessage):
            return self._assistant(entry.id, message, entry.timestamp)
        if isinstance(message, ToolResultMessage):
            if entry.id in self.paired:
                return ""
            return _entry(entry.id, "tool", "tool result", self._result(message), message.timestamp)
        if isinstance(message, BashExecutionMessage):
            return _entry(entry.id, "tool", "user shell command", self._bash(message), message.timestamp)
        if isinstance(message, CustomMessage):
            return self._custom(
                entry.id, message.custom_type, message.content, message.display, message.timestamp
            )
        if isinstance(message, BranchSummaryMessage | CompactionSummaryMessage):
            return _entry(entry.id, "marker", message.role, markdown_to_html(message.summary))
        if isinstance(message, SystemMessage):
            self.prompt = replay_system_messages([message], self.prompt)
            tools = ", ".join(self.prompt.tool_names)
            return _meta(entry.id, "Prompt and tools checkpoint" + (f": {tools}" if tools else ""))
        return _entry(entry.id, "meta-line", f"{message.role} message (not shown)", "")

    def _edited(self, entry_id: str, html: str) -> str:
        """`html` of an entry with, when a context edit changed it, what the model got instead."""
        edit = self.edits.get(entry_id)
        if edit is None or not html:
            return html
        if edit.replacement is None:
            note = "Left out of the model's context by a context edit; shown as it was written, never sent."
            return f'<div class="edited">{esc(note)}</div>{html}'
        content = edit.replacement.content
        text = (
            content
            if isinstance(content, str)
            else "".join(block.text for block in content if isinstance(block, TextContent))
        )
        note = "A context edit replaced this in the model's context; the model got:"
        return f'<div class="edited">{esc(note)}{pre(text)}</div>{html}'

    def _custom(
        self, entry_id: str, kind: str, content: str | list[UserBlock], display: bool, stamp: str | int
    ) -> str:
        text = esc(_text(content))
        hidden = "" if display else " (not displayed in the app)"
        body = f'<details><summary>{esc(kind)}{hidden}</summary><div class="user-text">{text}</div></details>'
        return _entry(entry_id, "user", "extension message", body, stamp)

    def _assistant(self, entry_id: str, message: AssistantMessage, stamp: str) -> str:
        parts: list[str] = []
        for index, block in enumerate(message.content):
            if isinstance(block, ThinkingContent):
                if block.redacted:
                    parts.append('<p class="muted">[thinking redacted by the provider]</p>')
                elif block.thinking.strip():
                    parts.append(
                        '<details class="thinking"><summary>Thinking</summary>'
                        f"{markdown_to_html(block.thinking)}</details>"
                    )
            elif isinstance(block, TextContent):
                parts.append(f'<div class="md">{markdown_to_html(block.text)}</div>')
            elif isinstance(block, ToolCall):
                parts.append(self._call(block, call_key(message, index, block), message.failed))
        if message.failed:
            reason = message.error_message or "no message"
            parts.append(f'<p class="error">[{esc(message.stop_reason)}] {esc(reason)}</p>')
        model = f"{message.provider}/{message.model}" if message.provider else message.model
        usage = message.usage
        tokens = f" · in {num(usage.input)} out {num(usage.output)}" if usage.input or usage.output else ""
        kind = "assistant failed" if message.failed else "assistant"
        return _entry(
            entry_id, kind, f"assistant · {model}{tokens}", "".join(parts), message.timestamp or stamp
        )

    def _call(self, call: ToolCall, key: str, failed: bool) -> str:
        args = json.dumps(call.arguments, ensure_ascii=False, indent=2)
        found = None if failed else self.results.get(key)
        result = found[1] if found is not None else None
        if found is not None:
            outcome = self._edited(found[0], f'<div id="{anchor(found[0])}">{self._result(found[1])}</div>')
        elif failed:
            outcome = '<p class="muted">Not run: the reply failed.</p>'
        else:
            outcome = '<p class="muted">No result on this branch.</p>'
        error = " is-error" if result is not None and result.is_error else ""
        return (
            f'<div class="tool{error}"><div><strong>{esc(call.name)}</strong> '
            f'<span class="muted mono">{esc(call.id)}</span></div>'
            f"<details><summary>Arguments</summary>{pre(args)}</details>{outcome}</div>"
        )

    def _result(self, result: ToolResultMessage) -> str:
        text = result.text
        label = "Error the model got" if result.is_error else "What the model got"
        parts = [_output(label, text or "(no text)"), _images(result.content)]
        diff = None if result.is_error else diff_of(result.tool_name, result.details)
        if diff:
            parts.append(diff_html(diff))
        if is_truncated(result.details, text):
            parts.append(self._truncation(result_spill_path(result.details, text)))
        return "".join(parts)

    def _bash(self, message: BashExecutionMessage) -> str:
        status = "cancelled" if message.cancelled else f"exit code {message.exit_code}"
        kept = " · kept out of the context" if message.exclude_from_context else ""
        parts = [
            f"<div><code>$ {esc(message.command)}</code>"
            f' <span class="muted">({esc(status)}{kept})</span></div>',
            _output("Output", message.output or "(no output)"),
        ]
        if message.truncated or message.full_output_path:
            parts.append(self._truncation(message.full_output_path))
        return "".join(parts)

    def _truncation(self, path: str | None) -> str:
        where = f" Full output: <code>{esc(path)}</code>" if path else ""
        notice = f'<p class="notice">Truncated: the model saw only part of this output.{where}</p>'
        if not self.options.full_output or path is None:
            return notice
        inlined = read_inline(Path(path), self.options.spill_dir, self.options.max_inline_bytes)
        if not isinstance(inlined, InlinedOutput):
            return notice + f'<p class="muted">Full output {esc(inlined)}.</p>'
        cut = (
            ""
            if inlined.complete
            else f" (first {num(inlined.shown_bytes)} of {num(inlined.total_bytes)} bytes)"
        )
        return (
            notice + f"<details><summary>Full output{esc(cut)}</summary>{pre(inlined.text, 'full-output')}"
            "</details>"
        )
