"""The budget against a server that ignores the tool schemas (through the real openai client and the
loopback server): the estimate counts tools the model never saw, the reported usage does not, and every
view shows the one calibrated set of figures."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from pi_tui.ai import tokens
from pi_tui.config.settings import CompactionSettings, RetrySettings, Settings
from pi_tui.modes.context_command import print_report
from pi_tui.session.inspector import build_inspector_data
from pi_tui.tui.inspector_view import headline_lines
from pi_tui.tui.widgets.budget_bar import legend_items
from tests.session.test_agent_session_retry import make_session, write_models
from tests.support.openai_server import OpenAIServer, text_reply

RESERVE = 200
SETTINGS = Settings(compaction=CompactionSettings(reserve_tokens=RESERVE), retry=RetrySettings(enabled=False))


def without_tools(body: dict[str, Any]) -> int:
    return tokens.count(json.dumps(body["messages"]))


async def test_a_server_that_drops_the_tools_gets_one_consistent_budget(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    write_models(openai_server, "primary")
    openai_server.count_prompt = without_tools
    openai_server.enqueue(text_reply("first answer " * 40), text_reply("second answer " * 40))
    session = make_session(tmp_path, SETTINGS)
    await session.prompt("first question " * 40)
    await session.prompt("second question " * 40)
    assert session.model is not None
    # A window whose threshold falls between what the server reported and what the raw estimate says:
    # before calibration the bar showed "free 0" next to "tokens left" from the usage.
    probe = build_inspector_data(session.store, SETTINGS, session.model)
    assert probe.usage is not None and probe.usage.tokens is not None and probe.prefix is not None
    reported = probe.usage.tokens
    raw_estimate = probe.prefix.tokens + probe.context_tokens
    assert raw_estimate - reported > 500  # the tool schemas the server never counted
    threshold = (reported + raw_estimate) // 2
    model = session.model.model_copy(update={"context_window": threshold + RESERVE})

    data = build_inspector_data(session.store, SETTINGS, model)

    geometry, split = data.geometry, data.geometry.split
    calibration = geometry.calibration
    assert calibration.basis == "per-kind" and calibration.prefix_ratio < calibration.message_ratio
    left = threshold - reported
    assert geometry.used_tokens == split.used == reported and geometry.used_source == "usage"
    assert geometry.tokens_left == split.free == left > 0 and split.reserve == RESERVE
    assert data.forecast.next_request_tokens == reported
    assert split.prefix == calibration.prefix(data.prefix.tokens if data.prefix else 0) < data.prefix.tokens  # type: ignore[union-attr]

    report = io.StringIO()
    print_report(data, [], report)
    text = report.getvalue()
    assert f"Context: {reported:,} / {model.context_window:,} (" in text
    assert f" · free {left:,} · R reserve {RESERVE:,}\n" in text and f"tokens left {left:,} (usage)" in text
    assert f"Forecast: next request ≈ {reported:,} tokens" in text
    lines = headline_lines(data)
    assert lines[0].startswith(f"Context {reported:,} / {model.context_window:,} (")
    assert lines[1] == f"{left:,} left before auto-compaction at {threshold:,}"
    assert any(line.startswith(f"Next request ≈ {reported:,}") for line in lines)
    labels = [item.label for item in legend_items(geometry)]
    assert f"free {left:,}" in labels and f"reserve {RESERVE:,}" in labels
    assert f"prefix {split.prefix:,}" in labels
