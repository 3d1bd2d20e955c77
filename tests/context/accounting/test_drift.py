from __future__ import annotations

from pi_tui.ai.messages import AgentMessage, CompactionSummaryMessage
from pi_tui.context.accounting.blame import drift_cause, drift_cost
from pi_tui.context.accounting.drift import DriftEvent, DriftKind, compare_records, drift_events
from tests.context.accounting.builders import (
    OTHER_MODEL,
    OTHER_TOOL,
    TOOL,
    call,
    prompt,
    record,
    reply,
    result,
    user,
)

Keyed = list[tuple[str | None, AgentMessage]]
U1, A1, T1, A2 = user("fix the bug"), call("c1", "app.py"), result("c1", "print(1)"), reply("done")


def base() -> Keyed:
    return [("u1", U1), ("a1", A1), ("t1", T1)]


def test_append_only_turn_has_no_drift_and_everything_before_is_cacheable() -> None:
    before = record(base())
    after = record([*base(), ("a2", A2), ("u2", user("thanks"))], response=reply("ok", cache_read=77))
    event = compare_records(before, after)
    assert event.kind == "none" and not event.drifted
    assert event.cacheable_tokens == before.total_tokens()
    assert event.uncached_tokens == after.total_tokens() - before.total_tokens()
    assert event.reprocessed_tokens == 0
    assert event.cache_read == 77


def test_system_prompt_part_is_named() -> None:
    before = record(base())
    after = record(base(), system=prompt(date="Current date: 2026-12-01"))
    event = compare_records(before, after)
    assert (event.kind, event.segment, event.index) == ("system_prompt", "date-cwd", 1)
    assert event.cacheable_tokens == after.system.tokens[0]
    assert event.reprocessed_tokens == after.total_tokens() - after.system.tokens[0]


def test_tool_schema_is_named() -> None:
    event = compare_records(record(base()), record(base(), tools=(TOOL, OTHER_TOOL)))
    assert (event.kind, event.segment) == ("tool_schema", "ls")
    event = compare_records(record(base(), tools=(OTHER_TOOL, TOOL)), record(base()))
    assert (event.kind, event.segment) == ("tool_schema", "read")


def test_message_changed_same_entry_other_bytes() -> None:
    after = [("u1", U1), ("a1", A1), ("t1", result("c1", "print(2)"))]
    event = compare_records(record(base()), record(after))
    assert (event.kind, event.segment) == ("message_changed", "t1")
    prefix = record(after)
    assert event.cacheable_tokens == prefix.system.total() + prefix.tools.total() + sum(
        prefix.messages.tokens[:2]
    )
    assert event.reprocessed_tokens == prefix.messages.tokens[2]


def test_message_removed_when_later_messages_survive() -> None:
    before = record([*base(), ("a2", A2), ("u2", user("and now?"))])
    after = record([("u1", U1), ("a1", A1), ("t1", T1), ("u2", user("and now?"))])
    event = compare_records(before, after)
    assert (event.kind, event.segment) == ("message_removed", "a2")


def test_message_removed_when_the_entry_is_still_on_the_branch() -> None:
    before = record([*base(), ("a2", A2)])
    after = record([*base(), ("u3", user("retry"))])
    assert compare_records(before, after).kind == "branch_move"
    assert compare_records(before, after, on_branch=lambda entry: entry == "a2").kind == "message_removed"


def test_branch_move() -> None:
    before = record([*base(), ("a2", A2), ("u2", user("next"))])
    after = record([("u1", U1), ("u9", user("let's do something else"))])
    event = compare_records(before, after)
    assert (event.kind, event.segment) == ("branch_move", "a1")
    assert event.reprocessed_tokens == after.messages.tokens[1]


def test_compaction() -> None:
    summary = CompactionSummaryMessage(summary="we fixed a bug", tokens_before=900)
    thanks = user("thanks")
    before = record([*base(), ("a2", A2), ("u2", thanks)])
    # The kept part starts at a user message, as a cut does (a tool result without its call is not sent).
    after = record([(None, summary), ("u2", thanks)])
    event = compare_records(before, after)
    assert (event.kind, event.segment) == ("compaction", "compaction-summary")
    assert event.cacheable_tokens == after.system.total() + after.tools.total()
    replaced = len(before.messages.keys) - 1  # u2 is kept
    assert event.replaced_messages == replaced
    assert drift_cause(event) == f"the summary replaced {replaced} messages"
    assert drift_cost(event) == f"{event.reprocessed_tokens:,} tokens had to be re-read"


def test_every_cause_is_said_in_plain_words() -> None:
    def cause(kind: DriftKind, segment: str | None = None, number: int | None = None) -> str:
        return drift_cause(DriftEvent(kind, segment, 1, 0, 10, 10, None, 2, 1, message_number=number))

    assert cause("system_prompt", "tools") == "the system prompt changed (its tools part)"
    assert cause("tool_schema", "read") == "the definition of the `read` tool changed"
    assert cause("message_changed", "u1", 3) == "message 3 differs from what the last request sent"
    assert cause("message_removed", "u1", 4) == "message 4 of the last request is no longer sent"
    assert cause("branch_move", "a1") == "the conversation moved to another branch"
    assert cause("compaction", "compaction-summary") == "a compaction summary replaced older messages"


def test_model_switch() -> None:
    event = compare_records(record(base()), record(base(), model=OTHER_MODEL))
    assert event.kind == "model_switch" and event.cacheable_tokens == 0


def test_events_compare_with_the_previous_record_of_the_same_kind() -> None:
    first = record(base(), time_ms=1)
    summary_call = record([("u1", U1)], system=prompt("Summarise."), tools=(), kind="summary", time_ms=2)
    second = record([*base(), ("a2", A2)], time_ms=3)
    events = drift_events([first, summary_call, second])
    assert [(index, event.kind, event.previous_time) for index, event in events] == [(2, "none", 1)]


def test_summary_calls_blame_only_their_instructions_never_the_conversation_they_summarise() -> None:
    history = record([("u1", U1)], system=prompt("Summarise."), tools=(), kind="summary", time_ms=1)
    turn_prefix = record(
        [(None, user("the turn so far"))], system=prompt("Summarise."), tools=(), kind="summary"
    )
    event = compare_records(history, turn_prefix)
    assert event.kind == "none" and event.reprocessed_tokens == 0
    assert event.cacheable_tokens == sum(turn_prefix.token_columns()[: len(turn_prefix.system)])
    assert event.uncached_tokens == turn_prefix.total_tokens() - event.cacheable_tokens
    reworded = record([("u1", U1)], system=prompt("Summarise tersely."), tools=(), kind="summary")
    assert compare_records(history, reworded).kind == "system_prompt"
    other_model = record(
        [("u1", U1)], system=prompt("Summarise."), tools=(), kind="summary", model=OTHER_MODEL
    )
    assert compare_records(history, other_model).kind == "model_switch"
