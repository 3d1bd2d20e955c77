"""Hand-built branches (session entries, root first) for the compaction tests: one helper per entry kind."""

from __future__ import annotations

from typing import Any

from pi_tui.ai.messages import (
    AssistantMessage,
    BashExecutionMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from pi_tui.session_file.entries import (
    BranchSummaryEntry,
    CompactionEntry,
    CustomEntry,
    CustomMessageEntry,
    LabelEntry,
    MessageEntry,
    ModelChangeEntry,
    SessionEntry,
    SessionInfoEntry,
    ThinkingLevelChangeEntry,
)

STAMP = "2026-11-29T23:15:06.902Z"


def _message(entry_id: str, message: Any) -> MessageEntry:
    return MessageEntry(id=entry_id, timestamp=STAMP, message=message)


def user(entry_id: str, text: str) -> MessageEntry:
    return _message(entry_id, UserMessage(content=text, timestamp=1))


def assistant(
    entry_id: str,
    text: str = "",
    calls: list[tuple[str, dict[str, Any]]] | None = None,
    *,
    thinking: str = "",
    total_tokens: int = 0,
    stop_reason: str = "stop",
) -> MessageEntry:
    blocks: list[Any] = []
    if thinking:
        blocks.append(ThinkingContent(thinking=thinking))
    if text:
        blocks.append(TextContent(text=text))
    for number, (name, arguments) in enumerate(calls or []):
        blocks.append(ToolCall(id=f"{entry_id}-{number}", name=name, arguments=arguments))
    message = AssistantMessage(
        content=blocks,
        provider="p",
        model="m",
        usage=Usage(total_tokens=total_tokens),
        stop_reason="toolUse" if calls and stop_reason == "stop" else stop_reason,  # type: ignore[arg-type]
        timestamp=2,
    )
    return _message(entry_id, message)


def tool_result(entry_id: str, text: str, *, name: str = "bash", is_error: bool = False) -> MessageEntry:
    message = ToolResultMessage(
        tool_call_id="c", tool_name=name, content=[TextContent(text=text)], is_error=is_error, timestamp=3
    )
    return _message(entry_id, message)


def bash_run(entry_id: str, command: str, output: str = "") -> MessageEntry:
    message = BashExecutionMessage(command=command, output=output, exit_code=0, timestamp=4)
    return _message(entry_id, message)


def custom_message(entry_id: str, text: str) -> CustomMessageEntry:
    return CustomMessageEntry(id=entry_id, timestamp=STAMP, custom_type="ext", content=text)


def branch_summary(
    entry_id: str, text: str, details: Any = None, from_hook: bool = False
) -> BranchSummaryEntry:
    return BranchSummaryEntry(
        id=entry_id, timestamp=STAMP, from_id="x", summary=text, details=details, from_hook=from_hook
    )


def setting(entry_id: str, kind: str = "model_change") -> SessionEntry:
    """An entry that is no message: a model or thinking level change, a label or a session name."""
    if kind == "thinking_level_change":
        return ThinkingLevelChangeEntry(id=entry_id, timestamp=STAMP, thinking_level="high")
    if kind == "label":
        return LabelEntry(id=entry_id, timestamp=STAMP, target_id="x", label="mark")
    if kind == "session_info":
        return SessionInfoEntry(id=entry_id, timestamp=STAMP, name="name")
    assert kind == "model_change", kind
    return ModelChangeEntry(id=entry_id, timestamp=STAMP, provider="p", model_id="m")


def custom(entry_id: str, custom_type: str = "ext.state", data: Any = None) -> CustomEntry:
    return CustomEntry(id=entry_id, timestamp=STAMP, custom_type=custom_type, data=data)


def compaction(
    entry_id: str, summary: str, first_kept: str, *, details: Any = None, from_hook: bool = False
) -> CompactionEntry:
    return CompactionEntry(
        id=entry_id,
        timestamp=STAMP,
        summary=summary,
        first_kept_entry_id=first_kept,
        tokens_before=100,
        details=details,
        from_hook=from_hook,
    )


def words(tokens: int) -> str:
    """Text whose chars/4 estimate is exactly `tokens`."""
    return "x" * (4 * tokens)
