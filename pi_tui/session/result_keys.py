"""A key never reaches the model, or the session file, through a tool's result.

The bash tool cuts keys out of the byte stream itself (spill files and previews included). Every other
tool, `read` and `grep` on a `.env` above all, returns text that may hold one too: this after-tool-call
hook replaces every key pi-tui knows of (`config.key_secrets.known_keys`) by `[redacted]` in the text
the model is sent and the session records. Images pass unchanged.
"""

from __future__ import annotations

import asyncio

from pi_tui.agent.hooks import AfterToolCallContext, AfterToolCallResult
from pi_tui.ai.abort import AbortSignal
from pi_tui.ai.messages import ImageContent, TextContent
from pi_tui.config.key_secrets import known_keys, redact


async def redact_keys_in_result(
    context: AfterToolCallContext, signal: AbortSignal
) -> AfterToolCallResult | None:
    """The result with its text blocks redacted, or None when it holds no key."""
    blocks = context.result.content
    if not any(isinstance(block, TextContent) for block in blocks):
        return None
    # Read afresh, off the loop: models.json and the session's key may have changed since the last call.
    keys = await asyncio.to_thread(known_keys)
    content: list[TextContent | ImageContent] = [
        block.model_copy(update={"text": redact(block.text, keys)})
        if isinstance(block, TextContent)
        else block
        for block in blocks
    ]
    if content == blocks:
        return None
    return AfterToolCallResult(content=content)
