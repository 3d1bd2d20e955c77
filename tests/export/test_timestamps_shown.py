"""Timestamps as the export and the Compactions pane show them, read by the one ISO parser the session
format uses (`iso_to_ms`): the same instant whatever the offset it was written with."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator

import pytest

from pi_tui.export.html_text import when
from pi_tui.tui.timeline_view import local_time


@pytest.fixture
def in_st_johns() -> Iterator[None]:
    """Local time is St. John's (UTC-3:30 in November), whatever the machine's zone."""
    before = os.environ.get("TZ")
    os.environ["TZ"] = "America/St_Johns"
    time.tzset()
    yield
    if before is None:
        del os.environ["TZ"]
    else:
        os.environ["TZ"] = before
    time.tzset()


@pytest.mark.parametrize(
    "written", ["2026-11-29T23:15:12.049Z", "2026-11-30T01:15:12.049+02:00", 1795994112049]
)
def test_the_export_shows_utc(written: str | int) -> None:
    assert when(written) == "2026-11-29 23:15:12 UTC"


@pytest.mark.parametrize("unreadable", ["yesterday", "2026-13-01T00:00:00Z"])
def test_an_unreadable_timestamp_is_shown_as_written(unreadable: str, in_st_johns: None) -> None:
    assert when(unreadable) == unreadable
    assert local_time(unreadable) == unreadable


def test_the_pane_shows_local_time(in_st_johns: None) -> None:
    assert local_time("2026-11-29T23:15:12.049Z") == "11-29 19:45:12"
    assert local_time("2026-11-30T01:15:12.049+02:00", seconds=False) == "11-29 19:45"
