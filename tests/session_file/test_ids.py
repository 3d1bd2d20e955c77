from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest

from pi_tui.session_file import ids


def test_uuid7_layout_and_time_order() -> None:
    value = uuid.UUID(ids.uuid7(now_ms=1795993475731))
    assert value.version == 7 and value.variant == uuid.RFC_4122
    assert value.int >> 80 == 1795993475731
    assert str(value).startswith("01a2298d-9a93")  # same time prefix as pi's a-plain fixture (+1 ms)
    assert ids.uuid7(now_ms=1) < ids.uuid7(now_ms=2)
    assert ids.uuid7() != ids.uuid7()


def test_entry_id_redraws_on_collision_then_falls_back_to_full_uuid(monkeypatch: pytest.MonkeyPatch) -> None:
    taken = {"aaaaaaaa"}
    draws = iter(["aaaaaaaa" + "0" * 24, "bbbbbbbb" + "0" * 24])

    class Fake:
        def __init__(self, hex_value: str) -> None:
            self.hex = hex_value

    with monkeypatch.context() as patch:
        patch.setattr(uuid, "uuid4", lambda: Fake(next(draws)))
        assert ids.new_entry_id(taken) == "bbbbbbbb"

    class Everything:
        def __contains__(self, item: object) -> bool:
            return True

    assert len(ids.new_entry_id(Everything())) == 36


def test_iso_timestamp_and_back() -> None:
    moment = datetime(2026, 11, 29, 23, 4, 35, 750999, tzinfo=UTC)
    text = ids.iso_timestamp(moment)
    assert text == "2026-11-29T23:04:35.750Z"
    assert ids.iso_to_ms(text) == 1795993475750
    assert ids.iso_to_ms("garbage") is None
    assert ids.file_timestamp(text) == "2026-11-29T23-04-35-750Z"
