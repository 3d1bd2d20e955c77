"""Small message and record builders shared by the accounting tests."""

from __future__ import annotations

from collections.abc import Sequence

from pi_tui.ai.messages import (
    AgentMessage,
    AssistantMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from pi_tui.ai.stream import ToolSpec
from pi_tui.config.compat import CompatOverrides
from pi_tui.config.model_config import ModelConfig
from pi_tui.context.accounting.measure import MeasureCache
from pi_tui.context.accounting.record import RequestRecord, build_request_record
from pi_tui.context.system_prompt import PromptSegment, SystemPrompt

MODEL = ModelConfig(id="m1", provider="p", context_window=1000)
OTHER_MODEL = ModelConfig(id="m2", provider="p", context_window=1000)
AS_TEXT_MODEL = MODEL.model_copy(update={"compat": CompatOverrides(requires_thinking_as_text=True)})
"""The same model on a server that takes reasoning only as text."""
MARKED = MODEL.model_copy(update={"compat": CompatOverrides(cache_control_format="anthropic")})
"""The same model with Anthropic cache markers."""
TOOL = ToolSpec("read", "Read a file.", {"type": "object", "properties": {"path": {"type": "string"}}})
OTHER_TOOL = ToolSpec("ls", "List a folder.", {"type": "object", "properties": {}})


def prompt(
    base: str = "You are a careful assistant.", date: str = "Current date: 2026-11-30"
) -> SystemPrompt:
    return SystemPrompt((PromptSegment("base", "base", base), PromptSegment("date-cwd", "date-cwd", date)))


def user(text: str, ts: int = 1) -> UserMessage:
    return UserMessage(content=text, timestamp=ts)


def reply(
    text: str, *, input: int = 0, output: int = 0, cache_read: int = 0, stop: str = "stop"
) -> AssistantMessage:
    return AssistantMessage(
        content=[TextContent(text=text)],
        provider=MODEL.provider,
        model=MODEL.id,
        usage=Usage(
            input=input, output=output, cache_read=cache_read, total_tokens=input + output + cache_read
        ),
        stop_reason=stop,  # type: ignore[arg-type]
        timestamp=2,
    )


def thinker(text: str, thinking: str, signature: str | None = "reasoning_content") -> AssistantMessage:
    """A reply with reasoning streamed under `signature` (None: a field nobody named)."""
    return AssistantMessage(
        content=[ThinkingContent(thinking=thinking, thinking_signature=signature), TextContent(text=text)],
        provider=MODEL.provider,
        model=MODEL.id,
        timestamp=2,
    )


def call(call_id: str, path: str) -> AssistantMessage:
    return AssistantMessage(
        content=[ToolCall(id=call_id, name="read", arguments={"path": path})],
        provider=MODEL.provider,
        model=MODEL.id,
        stop_reason="toolUse",
        timestamp=3,
    )


def result(call_id: str, text: str) -> ToolResultMessage:
    return ToolResultMessage(
        tool_call_id=call_id, tool_name="read", content=[TextContent(text=text)], timestamp=4
    )


def record(
    messages: Sequence[tuple[str | None, AgentMessage]],
    *,
    model: ModelConfig = MODEL,
    system: SystemPrompt | None = None,
    tools: Sequence[ToolSpec] = (TOOL,),
    response: AssistantMessage | None = None,
    time_ms: int = 1000,
    kind: str = "turn",
    cache_key: str | None = None,
) -> RequestRecord:
    return build_request_record(
        model=model,
        system_prompt=system or prompt(),
        tools=tools,
        messages=[message for _, message in messages],
        entry_ids=[key for key, _ in messages],
        kind=kind,  # type: ignore[arg-type]
        response=response,
        time_ms=time_ms,
        cache=MeasureCache(),
        cache_key=cache_key,
    )
