from __future__ import annotations

from pi_tui.context.accounting.record import RequestRecord, record_entry_data
from pi_tui.context.accounting.record_log import RecordLog
from tests.context.accounting.builders import record, reply, user


def growing_records(count: int) -> list[RequestRecord]:
    messages: list[tuple[str | None, object]] = []
    built = []
    for turn in range(count):
        messages.append((f"u{turn}", user(f"question {turn}")))
        built.append(record(messages, time_ms=turn))  # type: ignore[arg-type]
        messages.append((f"a{turn}", reply(f"answer {turn}")))
    return built


def test_delta_chains_expand_even_after_eviction() -> None:
    built = growing_records(6)
    log = RecordLog(expanded_limit=1)
    previous: tuple[str, RequestRecord] | None = None
    for index, full in enumerate(built):
        data = record_entry_data(full, previous)
        assert (index == 0) == ("base" not in data)
        assert log.add(f"r{index}", data)
        previous = (f"r{index}", full)
    assert log.full("r5") == built[5]
    assert log.full("r2") == built[2]
    assert log.full("r0") == built[0]
    assert log.previous_of_same_kind(3) == 2 and log.previous_of_same_kind(0) is None


def test_broken_chains_and_unreadable_data() -> None:
    first, second = growing_records(2)
    log = RecordLog()
    assert not log.add("x", {"not": "a record"})
    assert log.add("r1", record_entry_data(second, ("missing", first)))
    assert log.full("r1") is None
    assert log.full("nope") is None
    assert not log.add("r1", record_entry_data(first))
    assert len(log) == 1
