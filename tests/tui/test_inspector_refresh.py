"""The Context pane's refreshes: a newer one never builds on the pane's cache while an older one still
does (on a real pi session with three compactions, where that made the usage unknown)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from tests.support.waiting import until

from .chat_fixtures import chat_on_pi_session
from .pilot_helpers import settle

SESSION = "c-auto-compaction.jsonl"


@pytest.fixture
def pi_chat(tmp_path: Path, pi_fixtures: Path) -> Any:
    return chat_on_pi_session(tmp_path, pi_fixtures, SESSION)


async def test_two_context_refreshes_never_build_on_one_cache_at_once(
    pi_chat: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A refresh superseded by a newer one still runs (a thread cannot be stopped); sharing the pane's
    cache, the two made the newer one show 'Context ? (no usage since the last compaction)'."""
    active: list[int] = []
    overlapped = threading.Event()
    first_in = threading.Event()

    def one_at_a_time(cache: Any = None, **kwargs: Any) -> Any:
        if cache is not pi_chat.screen.side_panel._inspector_cache:  # the footer counts on its own cache
            return build(cache, **kwargs)
        active.append(1)
        try:
            if len(active) > 1:
                overlapped.set()
            if not first_in.is_set():
                first_in.set()
                # Long enough for the second refresh to come in, if nothing keeps it out.
                overlapped.wait(timeout=1.0)
            return build(cache, **kwargs)
        finally:
            active.pop()

    async with pi_chat.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        screen = pi_chat.screen
        build = screen.session.inspector_data
        monkeypatch.setattr(screen.session, "inspector_data", one_at_a_time)
        screen.side_panel.refresh_context_pane()
        await until(first_in.is_set, pilot=pilot, what="the first build")
        screen.side_panel.refresh_context_pane()
        await settle(pilot)
        assert not overlapped.is_set()
        headline = str(screen.query_one("#inspector-headline").render())
        assert headline.startswith("Context 6,100 / 32,000 (19.1%")
