from __future__ import annotations

import json

from pi_tui.ai import tokens
from pi_tui.context.accounting.fingerprints import extend_chain
from pi_tui.context.accounting.record import (
    RequestRecord,
    expand_record,
    parse_request_record,
    record_entry_data,
)
from tests.context.accounting.builders import call, record, reply, result, user

SECRET_TEXTS = ["the launch code is 0451", "def handler(): pass", "You are a careful assistant."]


def conversation() -> list[tuple[str | None, object]]:
    return [
        ("u1", user(SECRET_TEXTS[0])),
        ("a1", call("c1", "app.py")),
        ("t1", result("c1", SECRET_TEXTS[1])),
    ]


def test_record_holds_counts_and_fingerprints_per_segment() -> None:
    built = record(conversation(), response=reply("ok", input=40, output=3, cache_read=20))  # type: ignore[arg-type]
    assert built.system.keys == ["base", "date-cwd"]
    assert built.tools.keys == ["read"]
    assert built.messages.keys == ["u1", "a1", "t1"]
    assert built.messages.tokens[0] == tokens.count(SECRET_TEXTS[0])
    assert built.chain == extend_chain([], built.fingerprints())
    assert len(built.chain) == 6
    assert built.usage is not None and (built.usage.input, built.usage.cache_read, built.usage.output) == (
        40,
        20,
        3,
    )
    assert built.total_tokens() == sum(built.token_columns())


def test_serialised_record_never_contains_payload_text() -> None:
    built = record(conversation(), response=reply("a reply nobody should see"))  # type: ignore[arg-type]
    text = json.dumps(record_entry_data(built))
    for secret in [*SECRET_TEXTS, "app.py", "a reply nobody should see", "careful"]:
        assert secret not in text


def test_append_only_record_is_stored_as_a_delta_and_expands_back() -> None:
    first = record(conversation()[:1])  # type: ignore[arg-type]
    second = record([*conversation(), ("u2", user("more"))])  # type: ignore[arg-type]
    data = record_entry_data(second, ("r1", first))
    assert data["base"] == "r1" and data["baseKeep"] == 1
    assert data["messages"]["keys"] == ["a1", "t1", "u2"]
    stored = parse_request_record(json.loads(json.dumps(data)))
    assert stored is not None
    assert expand_record(stored, first) == second
    assert expand_record(stored, None) is None


def test_changed_prefix_is_stored_in_full() -> None:
    first = record(conversation())  # type: ignore[arg-type]
    second = record(conversation(), tools=())  # type: ignore[arg-type]
    data = record_entry_data(second, ("r1", first))
    assert "base" not in data
    assert RequestRecord.model_validate(data) == second


def test_chain_reuse_from_previous_gives_the_same_chain() -> None:
    from pi_tui.context.accounting.measure import MeasureCache
    from pi_tui.context.accounting.record import build_request_record
    from tests.context.accounting.builders import MODEL, TOOL, prompt

    messages = [m for _, m in conversation()]
    first = record(conversation()[:2])  # type: ignore[arg-type]
    reused = build_request_record(
        model=MODEL,
        system_prompt=prompt(),
        tools=[TOOL],
        messages=messages,
        entry_ids=["u1", "a1", "t1"],
        time_ms=1000,
        previous=first,
        cache=MeasureCache(),
    )
    assert reused == record(conversation())  # type: ignore[arg-type]


def test_unreadable_data_is_not_a_record() -> None:
    assert parse_request_record("nope") is None
    assert parse_request_record({"provider": "p"}) is None
    assert parse_request_record({"provider": "p", "model": "m", "time": 1, "version": 99}) is None
    bad = {
        "provider": "p",
        "model": "m",
        "time": 1,
        "messages": {"keys": ["a"], "tokens": [], "fingerprints": []},
    }
    assert parse_request_record(bad) is None
