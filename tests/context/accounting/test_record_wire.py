"""The request record's dialect facts (`wire`): measured in the model's dialect, stored compactly (deltas
keep their own messages' reasoning), and optional so records written before them still load."""

from __future__ import annotations

import json

from pi_tui.config.compat import CompatOverrides
from pi_tui.context.accounting.record import expand_record, parse_request_record, record_entry_data
from tests.context.accounting.builders import (
    AS_TEXT_MODEL,
    MARKED,
    MODEL,
    call,
    record,
    result,
    thinker,
    user,
)

THOUGHT = "The loop runs one time too many."


def test_wire_facts_are_stored_without_payload_and_read_back() -> None:
    built = record(
        [("u1", user("fix it")), ("a1", thinker("Fixed.", THOUGHT))], model=MARKED, cache_key="s-1"
    )
    data = json.loads(json.dumps(record_entry_data(built)))
    wire = data["wire"]
    assert (wire["api"], wire["cacheKey"]) == ("openai-completions", "s-1")
    assert wire["markers"] == [[2, 1], [1, 2], [4, 4]]  # last tool, system prompt, the newest text
    [[key, replayed]] = wire["reasoning"]
    assert key == "a1" and replayed.startswith("reasoning_content:")
    assert THOUGHT not in json.dumps(data)
    assert parse_request_record(data) == built


def test_records_written_before_wire_facts_still_load() -> None:
    data = record_entry_data(
        record([("u1", user("fix it")), ("a1", call("c1", "a.py")), ("t1", result("c1", "x"))])
    )
    del data["wire"]
    loaded = parse_request_record(json.loads(json.dumps(data)))
    assert loaded is not None and loaded.wire is None
    assert loaded.messages.keys == ["u1", "a1", "t1"]


def test_a_delta_keeps_only_its_new_messages_reasoning_and_expands_back() -> None:
    head = [("u1", user("fix it")), ("a1", thinker("Fixed.", THOUGHT))]
    first = record(head)
    second = record(
        [*head, ("u2", user("why?")), ("a2", thinker("Off by one.", "Explain.")), ("u3", user("ok"))]
    )
    data = json.loads(json.dumps(record_entry_data(second, ("r1", first))))
    assert data["base"] == "r1" and [key for key, _ in data["wire"]["reasoning"]] == ["a2"]
    stored = parse_request_record(data)
    assert stored is not None
    expanded = expand_record(stored, first)
    assert expanded == second
    assert (
        expanded is not None
        and expanded.wire is not None
        and [key for key, _ in expanded.wire.reasoning] == ["a1", "a2"]
    )
    # On a base without wire facts the kept messages' reasoning is unknown: no facts rather than half.
    old_base = first.model_copy(update={"wire": None})
    from_old = expand_record(stored, old_base)
    assert from_old is not None and from_old.wire is None


def test_fingerprints_follow_the_dialect_markers_aside() -> None:
    history = [("u1", user("fix it")), ("a1", thinker("Fixed.", THOUGHT)), ("u2", user("ok"))]
    plain, as_text, marked = (record(history, model=m) for m in (MODEL, AS_TEXT_MODEL, MARKED))
    changed = [
        a != b for a, b in zip(plain.messages.fingerprints, as_text.messages.fingerprints, strict=True)
    ]
    assert changed == [False, True, False]
    assert marked.messages.fingerprints == plain.messages.fingerprints
    strict = MODEL.model_copy(update={"compat": CompatOverrides(supports_strict_mode=True)})
    assert record(history, model=strict).tools.fingerprints != plain.tools.fingerprints


def test_another_models_thinking_is_recorded_as_replayed_text() -> None:
    foreign = thinker("Fixed.", THOUGHT).model_copy(update={"model": "m2"})  # turned into text for m1
    as_text = record([("u1", user("fix it")), ("a1", foreign)]).wire
    native = record([("u1", user("fix it")), ("a1", thinker("Fixed.", THOUGHT))], model=AS_TEXT_MODEL).wire
    assert as_text is not None and native is not None
    assert as_text.replayed("a1") == native.replayed("a1")
    assert (as_text.replayed("a1") or "").startswith("text:")
