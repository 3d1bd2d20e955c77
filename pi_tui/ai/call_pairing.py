"""Which tool call a result answers, for views that show each call with its result.

A call is known by its key (`call_key`), not by its id: a server may reuse ids (a local server numbers
them `call_1_0`, `call_1_1`, ... again after each restart). A result, or a live tool event, answers the
call of its id among the calls of the latest assistant message, the way the model's context pairs them
(`convert.transform_messages`); so two turns that both call `call_1_0` keep their own results.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterable

from pi_tui.ai.messages import AgentMessage, AssistantMessage, ToolCall, ToolResultMessage


def call_key(message: AssistantMessage, index: int, call: ToolCall) -> str:
    """The key of the `index`-th block of `message`, a call: the reply's time, the call's place, id and a
    checksum of its name and arguments; the same from the session file and from live events. (The
    checksum keeps apart calls of replies that carry no time, such as those of a file written by
    another program.)"""
    what = json.dumps([call.name, call.arguments], sort_keys=True, ensure_ascii=False, default=str)
    return f"{message.timestamp}:{index}:{call.id}:{zlib.crc32(what.encode('utf-8', 'surrogatepass')):08x}"


def unpaired_key(tool_call_id: str) -> str:
    """The key of a result or tool event whose call is not among the latest assistant message's."""
    return f"unpaired:{tool_call_id}"


class CallPairing:
    """Which call a result or a tool event answers: the call with its id among the calls of the latest
    assistant message that was not a failure (a failed reply's calls never run), as the model's context
    pairs them."""

    def __init__(self) -> None:
        self._open: dict[str, str] = {}

    def turn(self, message: AssistantMessage) -> list[tuple[str, ToolCall]]:
        """`message`'s calls with their keys; its calls are the ones results now answer."""
        if message.failed:
            return []
        keyed = [
            (call_key(message, index, block), block)
            for index, block in enumerate(message.content)
            if isinstance(block, ToolCall)
        ]
        self._open = {call.id: key for key, call in keyed}
        return keyed

    def answered(self, tool_call_id: str) -> str | None:
        """The key of the open call of this id, None when there is none."""
        return self._open.get(tool_call_id)

    def key_for(self, tool_call_id: str) -> str:
        return self._open.get(tool_call_id) or unpaired_key(tool_call_id)


def results_by_key(
    messages: Iterable[AgentMessage], pairing: CallPairing | None = None
) -> dict[str, ToolResultMessage]:
    """Each tool result of `messages` under the key of the call it answers; `pairing` is left as the
    messages leave it (live events that follow pair with their last calls)."""
    pairing = pairing if pairing is not None else CallPairing()
    results: dict[str, ToolResultMessage] = {}
    for message in messages:
        if isinstance(message, AssistantMessage):
            pairing.turn(message)
        elif isinstance(message, ToolResultMessage):
            results.setdefault(pairing.key_for(message.tool_call_id), message)
    return results
