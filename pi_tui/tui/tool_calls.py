"""The session's tool calls as the tool-output viewer shows them, built from the transcript and live events.

Pure: no Textual, no files. `ToolCallLog` is fed the branch's messages (`from_messages`) and then the
agent's `tool_execution_*` events as they arrive (`apply`); `calls()` gives one immutable `ToolCallInfo`
per call, in the order the model made them. Where a result was truncated, the line range the model saw
comes from `details.truncation` (pi's counters, which index the spill file's lines) or, failing that,
from the notice text itself, so sessions written by pi show the same range.

A call is known by its key (`call_pairing.call_key`), not its id: ids may repeat within a session.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any, Literal, TypeAlias

from pi_tui.agent.events import (
    AgentEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    ToolExecutionUpdateEvent,
)
from pi_tui.ai.call_pairing import CallPairing
from pi_tui.ai.messages import AgentMessage, AssistantMessage, TextContent, ToolResultMessage
from pi_tui.tools.diff_lines import diff_of
from pi_tui.tools.file_checkpoints import CHECKPOINT_DETAILS_KEY
from pi_tui.tools.output_pipeline import result_spill_path
from pi_tui.tools.truncate import utf8_len

ToolStatus: TypeAlias = Literal["running", "done", "error"]
ARGS_SUMMARY_CHARS = 120
"""An args summary is one table cell; longer ones are cut with an ellipsis."""

_NOTICE_RANGE = re.compile(r"\[Showing lines (\d+)-(\d+) of (\d+)")
_NOTICE_LAST_LINE = re.compile(r"\[Showing last [^\]]*? of line (\d+) ")


@dataclass(frozen=True)
class LineRange:
    """1-based, inclusive line numbers of the full output."""

    start: int
    end: int


@dataclass(frozen=True)
class ToolCallInfo:
    """One tool call as the viewer lists and shows it."""

    key: str
    """Which call this is (`call_key`): ids may repeat within a session."""
    id: str
    name: str
    args_summary: str
    status: ToolStatus
    model_text: str
    """What the model got (preview + notice); for a running call, the latest partial output."""
    lines: int
    """Lines of the full output (pi's counting), or of `model_text` when nothing was truncated."""
    bytes: int
    truncated: bool
    spill_path: str | None
    shown_range: LineRange | None
    """The lines of the spill file the model saw, when it saw only part of the output."""
    first_line: int = 1
    """The number, in the full output, of the first line the model got (as its notice counts)."""
    diff: str | None = None
    """The display diff of an edit or write (pi's `details.diff`)."""
    checkpoint: str | None = None
    """What the call's file checkpoint kept (`u` restores it, docs/rewind.md)."""

    @property
    def preview(self) -> str:
        """`model_text` without the trailing truncation notice."""
        return split_notice(self.model_text)[0]

    @property
    def notice(self) -> str:
        return split_notice(self.model_text)[1]


def split_notice(text: str) -> tuple[str, str]:
    """Split off pi's notice: a `[...]` paragraph appended after `\n\n`, possibly followed by an error
    status paragraph. The preview keeps its own trailing newline."""
    end = len(text)
    while (start := text.rfind("\n\n[", 0, end)) >= 0:
        stop = text.find("\n\n", start + 2)
        candidate = text[start + 2 : stop if stop >= 0 else len(text)]
        if candidate.endswith("]") and "\n" not in candidate:
            return text[:start], candidate
        end = start
    return text, ""


def summarize_args(args: dict[str, Any]) -> str:
    """The argument a person recognises a call by (command, path, pattern), else compact JSON."""
    for key in ("command", "path", "pattern"):
        value = args.get(key)
        if isinstance(value, str) and value:
            window = ""
            if key == "path" and ("offset" in args or "limit" in args):
                window = f" [{args.get('offset', 1)}:+{args.get('limit', '…')}]"
            return _clip(" ".join(value.split()) + window)
    return _clip(json.dumps(args, ensure_ascii=False, separators=(",", ":")) if args else "")


def _clip(text: str) -> str:
    return text if len(text) <= ARGS_SUMMARY_CHARS else text[: ARGS_SUMMARY_CHARS - 1] + "…"


def _text_of(content: Iterable[Any]) -> str:
    return "".join(block.text for block in content if isinstance(block, TextContent))


def describe_result(base: ToolCallInfo, text: str, details: Any, *, status: ToolStatus) -> ToolCallInfo:
    """`base` updated with a (partial or final) result: text, counters, spill path and shown range."""
    details = details if isinstance(details, dict) else {}
    truncation = details.get("truncation")
    truncation = truncation if isinstance(truncation, dict) else {}
    progress = details.get("progress")
    progress = progress if isinstance(progress, dict) else {}
    notice = split_notice(text)[1]
    spill = result_spill_path(details, notice)
    shown = _range_from_truncation(truncation) or _range_from_notice(notice)
    lines = _int(truncation.get("totalLines")) or _int(progress.get("totalLines"))
    size = _int(truncation.get("totalBytes")) or _int(progress.get("totalBytes"))
    truncated = bool(truncation.get("truncated")) or shown is not None
    if not lines:
        lines = shown.end if shown is not None else (text.count("\n") + 1 if text else 0)
    return replace(
        base,
        status=status,
        model_text=text,
        lines=lines,
        bytes=size if size else utf8_len(text),
        truncated=truncated,
        spill_path=spill,
        shown_range=shown if spill else None,
        first_line=first_line_number(text, details),
        diff=diff_of(base.name, details) if status != "running" else None,
        checkpoint=checkpoint_summary(details),
    )


def checkpoint_summary(details: Any) -> str | None:
    """One line on what a call's checkpoint kept, for the Tools pane."""
    if not isinstance(details, dict) or CHECKPOINT_DETAILS_KEY not in details:
        return None
    from pi_tui.tools.file_checkpoints.capture import record_in_details

    record = record_in_details(details)
    if record is None:
        return None
    parts = [f"{change.path} (before: {change.before.describe()})" for change in record.files]
    parts += [f"{path} (not kept)" for path in record.unrecorded]
    text = "checkpoint: " + (", ".join(parts) if parts else "no file changed")
    return text + (f"; {record.note}" if record.note else "")


def first_line_number(text: str, details: Any) -> int:
    """The number, in the full output, of the first line of `text` (a result's preview): the start of the
    range its notice names (pi's notices count the full output's lines), else of the spilled tail."""
    notice = split_notice(text)[1]
    noticed = _range_from_notice(notice)
    if noticed is not None:
        return noticed.start
    truncation = details.get("truncation") if isinstance(details, dict) else None
    if isinstance(truncation, dict) and result_spill_path(details, notice) is not None:
        shown = _range_from_truncation(truncation)
        if shown is not None:
            return shown.start
    return 1


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _range_from_truncation(truncation: dict[str, Any]) -> LineRange | None:
    total, shown = _int(truncation.get("totalLines")), _int(truncation.get("outputLines"))
    if not truncation.get("truncated") or total <= 0 or shown <= 0:
        return None
    return LineRange(max(total - shown + 1, 1), total)


def _range_from_notice(notice: str) -> LineRange | None:
    if found := _NOTICE_RANGE.search(notice):
        return LineRange(int(found.group(1)), int(found.group(2)))
    if found := _NOTICE_LAST_LINE.search(notice):
        return LineRange(int(found.group(1)), int(found.group(1)))
    return None


class ToolCallLog:
    """Accumulates a session's tool calls; not thread-safe (the UI feeds it from the event loop)."""

    def __init__(self) -> None:
        self._calls: dict[str, ToolCallInfo] = {}
        self._pairing = CallPairing()

    @classmethod
    def from_messages(cls, messages: Iterable[AgentMessage]) -> ToolCallLog:
        log = cls()
        for message in messages:
            log.add_message(message)
        return log

    def calls(self) -> list[ToolCallInfo]:
        return list(self._calls.values())

    def get(self, key: str) -> ToolCallInfo | None:
        return self._calls.get(key)

    def add_message(self, message: AgentMessage) -> None:
        """Register the calls of an assistant message, or settle one with its tool result."""
        if isinstance(message, AssistantMessage):
            for key, call in self._pairing.turn(message):
                self._start(key, call.id, call.name, call.arguments)
        elif isinstance(message, ToolResultMessage):
            key = self._pairing.key_for(message.tool_call_id)
            base = self._calls.get(key) or self._new(key, message.tool_call_id, message.tool_name, {})
            status: ToolStatus = "error" if message.is_error else "done"
            self._calls[key] = describe_result(base, message.text, message.details, status=status)

    def apply(self, event: AgentEvent) -> str | None:
        """Follow a live event; returns the key of the call it changed (None if it was not a tool event)."""
        if isinstance(event, ToolExecutionStartEvent):
            key = self._pairing.key_for(event.tool_call_id)
            self._start(key, event.tool_call_id, event.tool_name, event.args)
            return key
        if isinstance(event, ToolExecutionUpdateEvent):
            key = self._pairing.key_for(event.tool_call_id)
            base = self._calls.get(key) or self._start(key, event.tool_call_id, event.tool_name, event.args)
            result = event.partial_result
            self._calls[key] = describe_result(
                base, _text_of(result.content), result.details, status="running"
            )
            return key
        if isinstance(event, ToolExecutionEndEvent):
            key = self._pairing.key_for(event.tool_call_id)
            base = self._calls.get(key) or self._new(key, event.tool_call_id, event.tool_name, {})
            status: ToolStatus = "error" if event.is_error else "done"
            result = event.result
            self._calls[key] = describe_result(base, _text_of(result.content), result.details, status=status)
            return key
        if event.type == "message_end":
            self.add_message(event.message)
        return None

    def _start(self, key: str, tool_call_id: str, name: str, args: dict[str, Any]) -> ToolCallInfo:
        known = self._calls.get(key)
        if known is not None:
            return known
        call = self._new(key, tool_call_id, name, args)
        self._calls[key] = call
        return call

    @staticmethod
    def _new(key: str, tool_call_id: str, name: str, args: dict[str, Any]) -> ToolCallInfo:
        return ToolCallInfo(
            key=key,
            id=tool_call_id,
            name=name,
            args_summary=summarize_args(args),
            status="running",
            model_text="",
            lines=0,
            bytes=0,
            truncated=False,
            spill_path=None,
            shown_range=None,
        )
