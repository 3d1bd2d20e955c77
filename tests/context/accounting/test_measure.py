from __future__ import annotations

from pytest import MonkeyPatch

from pi_tui.ai import tokens
from pi_tui.ai.js_json import js_dumps
from pi_tui.ai.messages import BashExecutionMessage, CompactionSummaryMessage
from pi_tui.ai.openai_messages import to_openai_messages, to_openai_tools
from pi_tui.context.accounting import measure
from pi_tui.context.accounting.fingerprints import fingerprint
from pi_tui.context.accounting.measure import (
    COMPACTION_SUMMARY_KEY,
    MeasureCache,
    keyed_sent_messages,
    message_segments,
    system_segments,
    tool_segments,
)
from tests.context.accounting.builders import MODEL, TOOL, call, prompt, reply, result, user


def test_system_segments_are_counted_and_fingerprinted_per_part() -> None:
    segments = system_segments(prompt("Hello world"), MeasureCache())
    assert [s.key for s in segments] == ["base", "date-cwd"]
    assert segments[0].tokens == tokens.count("Hello world") == 2
    assert segments[0].fingerprint == prompt("Hello world").segments[0].fingerprint
    plain = system_segments("Summarise.", MeasureCache())
    assert [(s.key, s.tokens) for s in plain] == [("system", tokens.count("Summarise."))]


def test_tool_segments_measure_the_wire_schema() -> None:
    [segment] = tool_segments([TOOL], MeasureCache())
    wire = js_dumps(to_openai_tools([TOOL])[0])
    assert (segment.key, segment.tokens, segment.fingerprint) == (
        "read",
        tokens.count(wire),
        fingerprint(wire),
    )


def test_keys_follow_what_the_provider_sends() -> None:
    bang = BashExecutionMessage(command="ls", output="x", exclude_from_context=True)
    summary = CompactionSummaryMessage(summary="s", tokens_before=9)
    failed = reply("boom", stop="error")
    messages = [summary, user("hi"), bang, call("c1", "a.py"), failed, user("next")]
    keyed = keyed_sent_messages(messages, [None, "u1", "b1", "a1", "e1", "u2"], MODEL)
    assert [key for key, _ in keyed] == [COMPACTION_SUMMARY_KEY, "u1", "a1", "orphan:c1", "u2"]
    unsaved = keyed_sent_messages([user("draft")], [None], None)
    assert unsaved[0][0].startswith("unsaved:")


def test_a_result_no_call_asked_for_is_not_sent_and_the_keys_stay_aligned() -> None:
    # A damaged file (a duplicated id) put c9's result after a user message: it is dropped, not sent.
    messages = [user("hi"), result("c9", "stray"), call("c1", "a.py"), result("c1", "text"), reply("done")]
    keyed = keyed_sent_messages(messages, ["u1", "t9", "a1", "t1", "a2"], MODEL)
    assert [key for key, _ in keyed] == ["u1", "a1", "t1", "a2"]


def test_message_fingerprint_is_the_wire_form_and_counts_come_from_count_message() -> None:
    message = result("c1", "file text")
    [segment] = message_segments([("t1", message)], MeasureCache())
    assert segment.fingerprint == fingerprint(js_dumps(to_openai_messages("", [message])))
    assert segment.tokens == tokens.count_message(message)


def test_a_message_is_measured_once_per_object(monkeypatch: MonkeyPatch) -> None:
    calls: list[object] = []

    def counting(message: object) -> int:
        calls.append(message)
        return 7

    monkeypatch.setattr(measure.tokens, "count_message", counting)
    cache = MeasureCache()
    first, second = user("one"), user("two")
    for _ in range(3):
        message_segments([("u1", first), ("u2", second)], cache)
    assert calls == [first, second]
