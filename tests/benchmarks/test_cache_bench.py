"""bench/cache.py, in short: pi-tui's own requests keep the emulated provider caches warm.

Two turns on one marker and one automatic dialect, through the same code the benchmark prints from; the
shares are behaviour (how much of each request the provider could read from its cache), not timing.
"""

from __future__ import annotations

import pytest

from bench.cache import PHASES, DialectRun, measure

pytestmark = pytest.mark.slow
TURNS = 2


def measured(dialect: str) -> DialectRun:
    (run,) = measure([dialect], TURNS)
    assert [r.phase for r in run.requests] == [
        phase for phase in PHASES for _ in range(2 * (TURNS if phase == "session" else 1))
    ]
    # Below 1,024 tokens neither cache keeps anything, and the benchmark would measure nothing.
    assert run.requests[0].prompt_tokens >= 1024
    return run


def test_marker_cache_reads_each_previous_request() -> None:
    run = measured("openrouter-anthropic")
    for phase in ("session", "resume", "switch-back"):
        mean = run.mean(phase)
        assert mean is not None and mean >= 0.95, (phase, [r.miss for r in run.requests])
    assert max(r.markers for r in run.requests) <= 4
    # The trailing tool-result marker is what lifts pi-tui above pi's markers on tool turns.
    assert run.session_mean_pi_markers is not None
    assert run.session_mean_pi_markers < run.mean("session")
    assert sum(r.cost_cached for r in run.requests) < sum(r.cost_uncached for r in run.requests)


def test_automatic_cache_reads_whole_previous_request() -> None:
    run = measured("openai-reasoning")
    for request in run.requests:
        if request.phase != "switch-away" and request.share is not None:
            assert request.share == 1.0, (request.phase, request.turn, request.miss)
    # Resuming and switching back read what the same model's last request left, not nothing.
    assert run.first("resume") == 1.0
    assert run.first("switch-back") == 1.0
    assert run.ok


def test_anthropics_own_api_reads_each_previous_request() -> None:
    """On the Messages API the three markers are pi's own, thinking is replayed with its signatures, and
    the emulated cache (reading `system` blocks and `tool_result` parts) serves each request whole."""
    run = measured("anthropic-messages")
    for phase in ("session", "resume", "switch-back"):
        mean = run.mean(phase)
        assert mean is not None and mean >= 0.98, (phase, [r.miss for r in run.requests])
    assert max(r.markers for r in run.requests) == 3
    assert run.session_mean_pi_markers is None
    assert sum(r.cost_cached for r in run.requests) < sum(r.cost_uncached for r in run.requests)
