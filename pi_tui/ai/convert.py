"""What a model is shown: the agent transcript turned into LLM messages, as pi turns it.

`convert_to_llm` turns pi-tui's custom message kinds into user messages with pi's exact texts, so a
session replays byte-for-byte as pi would send it. `transform_messages` is the provider-boundary
normalisation: failed replies are skipped, orphaned tool calls are answered and results no call asked
for are dropped, images are replaced for text-only models, foreign thinking is dropped and foreign
tool-call ids are made portable.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pi_tui.ai.messages import (
    AgentMessage,
    AssistantBlock,
    AssistantMessage,
    BashExecutionMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserBlock,
    UserMessage,
)
from pi_tui.ai.stream import LlmMessage
from pi_tui.config.model_config import ModelConfig

BRANCH_SUMMARY_PREFIX = "The following is a summary of a branch that this conversation came back from:"
COMPACTION_SUMMARY_PREFIX = (
    "The conversation history before this point was compacted into the following summary:"
)
USER_IMAGE_OMITTED = "(image omitted: model does not support images)"
TOOL_IMAGE_OMITTED = "(tool image omitted: model does not support images)"
NO_RESULT_PROVIDED = "No result provided"
FENCE = "```"
TOOL_CALL_ID_MAX_CHARS = 40
"""OpenAI's limit for a Chat Completions tool-call id."""
_UNPORTABLE_ID_CHARS = re.compile(r"[^A-Za-z0-9_-]")


def bash_execution_text(message: BashExecutionMessage) -> str:
    """pi's `bashExecutionToText`: the command, its output fenced, then how it ended."""
    text = f"Ran `{message.command}`\n"
    text += f"{FENCE}\n{message.output}\n{FENCE}" if message.output else "(no output)"
    if message.cancelled:
        text += "\n\n(command cancelled)"
    elif message.exit_code is not None and message.exit_code != 0:
        text += f"\n\nCommand exited with code {message.exit_code}"
    if message.truncated and message.full_output_path:
        text += f"\n\n[Output truncated. Full output: {message.full_output_path}]"
    return text


def branch_summary_text(summary: str) -> str:
    # pi writes no newline before the closing tag here (unlike the compaction summary).
    return f"{BRANCH_SUMMARY_PREFIX}\n\n<summary>\n{summary}</summary>"


def compaction_summary_text(summary: str) -> str:
    return f"{COMPACTION_SUMMARY_PREFIX}\n\n<summary>\n{summary}\n</summary>"


def _user(text: str, timestamp: int) -> UserMessage:
    return UserMessage(content=[TextContent(text=text)], timestamp=timestamp)


def convert_to_llm(messages: Sequence[AgentMessage]) -> list[LlmMessage]:
    """pi's `convertToLlm`: custom kinds become user messages; `!!` commands and unknown roles vanish."""
    result: list[LlmMessage] = []
    for message in messages:
        if isinstance(message, UserMessage | AssistantMessage | ToolResultMessage):
            result.append(message)
        elif isinstance(message, BashExecutionMessage):
            if not message.exclude_from_context:
                result.append(_user(bash_execution_text(message), message.timestamp))
        elif isinstance(message, CustomMessage):
            content: list[UserBlock] = (
                [TextContent(text=message.content)] if isinstance(message.content, str) else message.content
            )
            result.append(UserMessage(content=content, timestamp=message.timestamp))
        elif isinstance(message, BranchSummaryMessage):
            result.append(_user(branch_summary_text(message.summary), message.timestamp))
        elif isinstance(message, CompactionSummaryMessage):
            result.append(_user(compaction_summary_text(message.summary), message.timestamp))
    return result


# --- provider boundary ----------------------------------------------------------------------------


def _without_images(blocks: list[UserBlock], placeholder: str) -> list[UserBlock]:
    """Each run of consecutive images becomes one placeholder text."""
    result: list[UserBlock] = []
    previous_was_image = False
    for block in blocks:
        if isinstance(block, ImageContent):
            if not previous_was_image:
                result.append(TextContent(text=placeholder))
            previous_was_image = True
        else:
            result.append(block)
            previous_was_image = False
    return result


def _has_image(blocks: list[UserBlock]) -> bool:
    return any(isinstance(block, ImageContent) for block in blocks)


def _strip_images(message: LlmMessage) -> LlmMessage:
    if isinstance(message, UserMessage) and not isinstance(message.content, str):
        if _has_image(message.content):
            return message.model_copy(
                update={"content": _without_images(message.content, USER_IMAGE_OMITTED)}
            )
    elif isinstance(message, ToolResultMessage) and _has_image(message.content):
        return message.model_copy(update={"content": _without_images(message.content, TOOL_IMAGE_OMITTED)})
    return message


def portable_tool_call_id(call_id: str) -> str:
    """A Responses id (`call_id|item_id`) as any other API takes it: the call id alone, in the characters
    every provider accepts, at most 40 of them. Other ids are left as they are."""
    if "|" not in call_id:
        return call_id
    head = call_id.split("|", 1)[0] or call_id
    return _UNPORTABLE_ID_CHARS.sub("_", head)[:TOOL_CALL_ID_MAX_CHARS]


def _foreign_block(block: AssistantBlock, renamed: dict[str, str]) -> AssistantBlock | None:
    """A block of another model's reply as this model may see it (None = dropped). A renamed tool call
    is recorded in `renamed` so that its result follows it."""
    if isinstance(block, ThinkingContent):
        # pi 1.6 drops another model's thinking: shown as text, the new model takes it as its own reply.
        return None
    if isinstance(block, TextContent) and block.text_signature is not None:
        # The signature names an item of the other model's response; this model never saw it.
        return TextContent(text=block.text)
    if isinstance(block, ToolCall):
        update: dict[str, object] = {}
        if block.thought_signature is not None:
            update["thought_signature"] = None
        portable = portable_tool_call_id(block.id)
        if portable != block.id:
            renamed[block.id] = portable
            update["id"] = portable
        return block.model_copy(update=update) if update else block
    return block


def _for_model(message: AssistantMessage, model: ModelConfig, renamed: dict[str, str]) -> AssistantMessage:
    if message.provider == model.provider and message.api == model.api and message.model == model.id:
        return message
    blocks = [
        converted for block in message.content if (converted := _foreign_block(block, renamed)) is not None
    ]
    return message.model_copy(update={"content": blocks})


def _synthetic_results(calls: list[ToolCall], answered: set[str], timestamp: int) -> list[LlmMessage]:
    return [
        ToolResultMessage(
            tool_call_id=call.id,
            tool_name=call.name,
            content=[TextContent(text=NO_RESULT_PROVIDED)],
            is_error=True,
            timestamp=timestamp,
        )
        for call in calls
        if call.id not in answered
    ]


def transform_messages(messages: Sequence[LlmMessage], model: ModelConfig) -> list[LlmMessage]:
    """pi's `transformMessages` for one target model. Inputs are not modified."""
    supports_images = "image" in model.input
    result: list[LlmMessage] = []
    pending: list[ToolCall] = []
    answered: set[str] = set()
    renamed: dict[str, str] = {}
    for message in messages:
        if isinstance(message, AssistantMessage) and message.failed:
            continue
        if isinstance(message, UserMessage | AssistantMessage) and pending:
            result.extend(_synthetic_results(pending, answered, message.timestamp))
            pending, answered = [], set()
        if not supports_images:
            message = _strip_images(message)
        if isinstance(message, AssistantMessage):
            message = _for_model(message, model, renamed)
            pending = list(message.tool_calls)
        elif isinstance(message, ToolResultMessage):
            if message.tool_call_id in renamed:
                message = message.model_copy(update={"tool_call_id": renamed[message.tool_call_id]})
            if not any(call.id == message.tool_call_id for call in pending):
                # No call of the reply before it asked for this result (a damaged file: a duplicated
                # entry id, a loop of parent links): sent, it would make providers refuse the request.
                continue
            answered.add(message.tool_call_id)
        result.append(message)
    if pending:
        last_timestamp = result[-1].timestamp if result else 0
        result.extend(_synthetic_results(pending, answered, last_timestamp))
    return result
