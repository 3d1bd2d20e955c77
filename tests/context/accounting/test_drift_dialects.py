"""Cache breaks that come from the provider's dialect, named by `compare_records` and put in plain words by
`blame`: the cache key, the API, the model, replayed reasoning and Anthropic cache markers."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import pytest

from pi_tui.ai.chat_request import build_chat_request
from pi_tui.ai.messages import AgentMessage, AssistantMessage, TextContent, ToolCall
from pi_tui.ai.stream import LlmContext, LlmMessage, StreamOptions
from pi_tui.config.model_config import ModelConfig
from pi_tui.context.accounting.blame import drift_cause, drift_cost
from pi_tui.context.accounting.drift import compare_records
from pi_tui.context.accounting.record import RequestRecord
from tests.context.accounting.builders import (
    AS_TEXT_MODEL,
    MARKED,
    MODEL,
    OTHER_MODEL,
    TOOL,
    prompt,
    record,
    reply,
    result,
    thinker,
    user,
)
from tests.support.cache_emulator import PromptCache

Keyed = list[tuple[str | None, AgentMessage]]
U1, A2 = user("fix the bug"), reply("done")


def calling(*paths: str, text: str = "", first: int = 1) -> AssistantMessage:
    calls = [
        ToolCall(id=f"c{first + n}", name="read", arguments={"path": path}) for n, path in enumerate(paths)
    ]
    blocks: list[Any] = [TextContent(text=text)] if text else []
    return AssistantMessage(
        content=[*blocks, *calls], provider=MODEL.provider, model=MODEL.id, stop_reason="toolUse", timestamp=3
    )


def base() -> Keyed:
    return [("u1", U1), ("a1", calling("app.py", text="Reading.")), ("t1", result("c1", "print(1)"))]


# --- cache key, API, model -------------------------------------------------------------------------


def test_a_changed_cache_key_is_the_cause_even_when_every_byte_repeats() -> None:
    before = record(base(), cache_key="session-1")
    after = record([*base(), ("a2", A2), ("u2", user("thanks"))], cache_key="session-2")
    event = compare_records(before, after)
    assert (event.kind, event.was, event.now) == ("cache_key", "session-1", "session-2")
    assert (event.cacheable_tokens, event.reprocessed_tokens) == (0, after.total_tokens())
    assert drift_cause(event) == "the cache key changed (session-1 → session-2)"
    assert drift_cost(event) == f"{after.total_tokens():,} tokens had to be re-read"
    gained = compare_records(record(base()), record(base(), cache_key="session-1"))
    assert drift_cause(gained) == "the cache key changed (none → session-1)"
    same = compare_records(before, record([*base(), ("a2", A2)], cache_key="session-1"))
    assert same.kind == "none"


def test_another_api_for_the_same_model_is_the_cause() -> None:
    responses = MODEL.model_copy(update={"api": "openai-responses"})
    after = record([*base(), ("a2", A2)], model=responses)
    event = compare_records(record(base()), after)
    assert (event.kind, event.was, event.now) == ("api_switch", "openai-completions", "openai-responses")
    assert event.reprocessed_tokens == after.total_tokens()
    assert drift_cause(event) == "the API changed (chat completions → responses)"


def test_a_model_switch_names_both_models() -> None:
    event = compare_records(record(base()), record(base(), model=OTHER_MODEL))
    assert (event.kind, event.was, event.now) == ("model_switch", "p/m1", "p/m2")
    assert drift_cause(event) == "the model changed (p/m1 → p/m2)"


# --- replayed reasoning ----------------------------------------------------------------------------


def test_reasoning_sent_as_text_instead_of_its_field_is_named() -> None:
    history: Keyed = [("u1", U1), ("a1", thinker("It is fixed.", "Check the loop.")), ("u2", user("ok"))]
    before = record(history)
    after = record([*history, ("a2", A2), ("u3", user("and now?"))], model=AS_TEXT_MODEL)
    event = compare_records(before, after)
    assert (event.kind, event.segment, event.message_number) == ("reasoning_replay", "a1", 2)
    assert event.was is not None and event.was.startswith("reasoning_content:")
    assert event.now is not None and event.now.startswith("text:")
    assert event.cacheable_tokens == after.system.total() + after.tools.total() + after.messages.tokens[0]
    assert drift_cause(event) == (
        "reasoning of message 2 was replayed differently (under reasoning_content → as plain text)"
    )
    # Any other change to such a reply is a changed message, as before.
    edited: Keyed = [("u1", U1), ("a1", thinker("It is fixed!", "Check the loop.")), ("u2", user("ok"))]
    assert compare_records(before, record(edited)).kind == "message_changed"


def test_reasoning_dropped_from_the_replay_is_named() -> None:
    # Thinking streamed without a signature field goes back only as text; a server that takes no
    # reasoning text drops it.
    history: Keyed = [("u1", U1), ("a1", thinker("Fixed.", "Look at line 3.", signature=None))]
    event = compare_records(record(history, model=AS_TEXT_MODEL), record([*history, ("u2", user("ok"))]))
    assert (event.kind, event.segment) == ("reasoning_replay", "a1")
    assert (event.was or "").startswith("text:") and event.now == "dropped"
    assert drift_cause(event) == "reasoning of message 2 was replayed differently (as plain text → dropped)"


# --- Anthropic cache markers -----------------------------------------------------------------------


def marked_conversation() -> list[Keyed]:
    """The context of each request of a four-turn conversation with a tool call, on the marker dialect."""
    turns: Keyed = [("u1", U1)]
    requests = [list(turns)]
    for key, message in [
        ("a1", calling("app.py", text="Reading.")),
        ("t1", result("c1", "print(1)")),
        ("a2", reply("Fixed it.")),
        ("u2", user("Now the tests.")),
        ("a3", calling("test_app.py")),
        ("t2", result("c2", "assert main()")),
        ("a4", reply("They pass.")),
        ("u3", user("Thanks.")),
    ]:
        turns.append((key, message))
        if key.startswith(("u", "t")):
            requests.append(list(turns))
    return requests


def test_the_newest_message_marker_moving_every_turn_is_not_drift() -> None:
    records = [record(context, model=MARKED) for context in marked_conversation()]
    assert [compare_records(a, b).kind for a, b in pairwise(records)] == ["none"] * 4
    message_markers = [
        tuple(m for m in r.wire.markers if m[0] >= r.prefix_length) for r in records if r.wire is not None
    ]
    assert len(set(message_markers)) == len(records), "the newest-message marker moves every request"
    # Marker positions are kept apart: a marked message has the fingerprint it has unmarked.
    plain = record(marked_conversation()[-1])
    assert records[-1].messages.fingerprints == plain.messages.fingerprints
    assert plain.wire is not None and plain.wire.markers == []


def wire_body(model: ModelConfig, context: Keyed) -> dict[str, Any]:
    messages: list[LlmMessage] = [m for _, m in context]  # type: ignore[misc]
    return build_chat_request(model, LlmContext(prompt().text, messages, [TOOL]), StreamOptions()).body


def emulated_reads(*contexts: Keyed) -> list[int]:
    """Blocks the marker-cache emulator reads for each request in turn (one token per block)."""
    cache = PromptCache("marker", min_tokens=0, count_tokens=lambda _: 1)
    return [cache.serve(wire_body(MARKED, context)).cached_tokens for context in contexts]


def tool_run(count: int) -> Keyed:
    """`count` more reads in one reply, then their results."""
    paths = [f"f{n}.py" for n in range(count)]
    results = [(f"t{n + 2}", result(f"c{n + 2}", "x")) for n in range(count)]
    return [("a2", calling(*paths, first=2)), *results]


def block_end(record_: RequestRecord, key: str) -> int:
    index = record_.prefix_length + record_.messages.keys.index(key)
    assert record_.wire is not None
    return next(end for segment, end in record_.wire.markers if segment == index)


@pytest.mark.parametrize("calls", [9, 10])
def test_a_marked_prefix_within_the_lookback_is_read(calls: int) -> None:
    before, after = base(), [*base(), *tool_run(calls)]
    event = compare_records(record(before, model=MARKED), record(after, model=MARKED))
    assert event.kind == "none"
    assert emulated_reads(before, after)[1] == block_end(record(before, model=MARKED), "t1")


def test_a_marked_prefix_beyond_the_lookback_is_a_moved_marker() -> None:
    before, after = base(), [*base(), *tool_run(11)]
    previous, current = record(before, model=MARKED), record(after, model=MARKED)
    event = compare_records(previous, current)
    # 11 calls and 11 results lie between the tool result the last request marked and this one's.
    assert (event.kind, event.segment, event.message_number, event.marker_gap) == (
        "cache_marker",
        "t1",
        3,
        22,
    )
    # pi 1.6's markers: the system prompt, the last tool and the last tool result; only the first two are
    # within reach, so the prefix read is the system prompt and the tools.
    read = current.system.total() + current.tools.total()
    assert (event.cacheable_tokens, event.reprocessed_tokens) == (read, current.total_tokens() - read)
    assert drift_cause(event) == (
        "a cache marker moved: the prefix the last request cached (up to message 3) ends 22 blocks"
        " before the next marker; the provider looks back 20"
    )
    # The emulated provider agrees: it reads the two blocks behind the system and tool markers.
    assert emulated_reads(before, after)[1] == 2


def test_markers_gone_from_the_next_request_leave_the_written_prefix_unread() -> None:
    event = compare_records(record(base(), model=MARKED), record([*base(), ("a2", A2)]))
    assert (event.kind, event.segment, event.marker_gap) == ("cache_marker", "t1", None)
    assert event.cacheable_tokens == 0
    assert drift_cause(event) == (
        "a cache marker moved: the prefix the last request cached (up to message 3) has no marker at or"
        " after it now"
    )


def test_records_without_wire_facts_blame_no_dialect_cause() -> None:
    old = record(base(), cache_key="session-1").model_copy(update={"wire": None})
    event = compare_records(old, record([*base(), ("a2", A2)], model=MARKED, cache_key="session-2"))
    assert event.kind == "none"
