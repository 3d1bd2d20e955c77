"""Hand-built `PathItem` lists for the compaction tests: one helper per entry kind."""

from __future__ import annotations

from typing import Any

from pi_tui.ai.messages import (
    AssistantMessage,
    BashExecutionMessage,
    BranchSummaryMessage,
    CustomMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from pi_tui.context.path_items import CompactionInfo, PathItem

STAMP = "2026-11-29T23:15:06.902Z"


def user(entry_id: str, text: str) -> PathItem:
    return PathItem(entry_id, "message", STAMP, message=UserMessage(content=text, timestamp=1))


def assistant(
    entry_id: str,
    text: str = "",
    calls: list[tuple[str, dict[str, Any]]] | None = None,
    *,
    thinking: str = "",
    total_tokens: int = 0,
    stop_reason: str = "stop",
) -> PathItem:
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
    return PathItem(entry_id, "message", STAMP, message=message)


def tool_result(entry_id: str, text: str, *, name: str = "bash", is_error: bool = False) -> PathItem:
    message = ToolResultMessage(
        tool_call_id="c", tool_name=name, content=[TextContent(text=text)], is_error=is_error, timestamp=3
    )
    return PathItem(entry_id, "message", STAMP, message=message)


def bash_run(entry_id: str, command: str, output: str = "") -> PathItem:
    message = BashExecutionMessage(command=command, output=output, exit_code=0, timestamp=4)
    return PathItem(entry_id, "message", STAMP, message=message)


def custom_message(entry_id: str, text: str) -> PathItem:
    message = CustomMessage(custom_type="ext", content=text, timestamp=5)
    return PathItem(entry_id, "custom_message", STAMP, message=message)


def branch_summary(entry_id: str, text: str, details: Any = None, from_hook: bool = False) -> PathItem:
    message = BranchSummaryMessage(summary=text, from_id="x", timestamp=6)
    return PathItem(
        entry_id, "branch_summary", STAMP, message=message, branch_details=details, branch_from_hook=from_hook
    )


def setting(entry_id: str, kind: str = "model_change") -> PathItem:
    return PathItem(entry_id, kind, STAMP)  # type: ignore[arg-type]


def custom(entry_id: str, custom_type: str = "ext.state", data: Any = None) -> PathItem:
    return PathItem(entry_id, "custom", STAMP, custom_type=custom_type, data=data)


def compaction(
    entry_id: str, summary: str, first_kept: str, *, details: Any = None, from_hook: bool = False
) -> PathItem:
    info = CompactionInfo(summary, first_kept, 100, details, from_hook)
    return PathItem(entry_id, "compaction", STAMP, compaction=info)


def words(tokens: int) -> str:
    """Text whose chars/4 estimate is exactly `tokens`."""
    return "x" * (4 * tokens)
