"""bench/compaction_bill.py, in short: a session that compacts on its own keeps its bill near the ideal
when the summary is asked inside the cached conversation. Behaviour (what the emulated provider read
from its cache), not timing."""

from __future__ import annotations

import pytest

from bench.compaction_bill import WHOLE_SESSION_TARGET, measure, threshold_plans, whole_session_plans

pytestmark = pytest.mark.slow


def test_inline_summaries_read_the_history_from_cache_and_keep_the_bill_near_ideal() -> None:
    plans = whole_session_plans(8)
    bills = measure({label: plan for label, plan in plans.items() if not label.startswith("pi 0.73.1")})
    inline, serialised = bills["pi-tui (auto: inline)"], bills["pi-tui, serialising"]
    assert inline.summary_calls, "the session compacted"
    assert all(call.kind == "inline" for call in inline.summary_calls)
    assert all(call.cached >= 0.9 * call.prompt for call in inline.summary_calls)
    assert all(call.kind == "serialize" and call.cached == 0 for call in serialised.summary_calls)
    assert inline.ratio <= WHOLE_SESSION_TARGET < serialised.ratio or inline.ratio < serialised.ratio


def test_a_compaction_at_the_threshold_summarises_inline_and_reads_its_input_from_cache() -> None:
    bills = measure(threshold_plans(16, reserve=8_000))
    calls = bills["inline"].summary_calls
    assert calls and all(call.kind == "inline" and call.cached >= 0.9 * call.prompt for call in calls)
    assert bills["serialise"].summary_calls and all(
        call.kind == "serialize" for call in bills["serialise"].summary_calls
    )


def test_the_messages_api_session_compacts_inline_from_cache_within_the_bill_target() -> None:
    """The same session on Anthropic's own Messages API (the marker cache emulated on its protocol):
    its summary is asked inside the cached conversation, which comes from cache, and the whole bill stays
    within the target."""
    plans = whole_session_plans(8)
    (bill,) = measure(
        {label: plan for label, plan in plans.items() if label.startswith("anthropic-messages")}
    ).values()
    assert bill.summary_calls, "the session compacted"
    first = bill.summary_calls[0]
    assert first.kind == "inline" and first.cached >= 0.9 * first.prompt
    assert bill.ratio <= WHOLE_SESSION_TARGET
