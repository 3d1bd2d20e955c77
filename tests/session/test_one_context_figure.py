"""The footer's context figure is the Context pane's (issue #27 item 4: 17.9% beside 17.5% on one
screen), and before the first request both count the prompt and tools the session will send."""

from __future__ import annotations

import io
from pathlib import Path

from pi_tui.ai.messages import UserMessage
from pi_tui.config.settings import CompactionSettings, RetrySettings, Settings
from pi_tui.modes.context_command import print_report
from pi_tui.tui.footer_context import FooterContext
from pi_tui.tui.inspector_view import headline_lines
from tests.session.test_agent_session_retry import make_session, write_models
from tests.session.test_budget_calibration import without_tools
from tests.support.openai_server import OpenAIServer, text_reply

SETTINGS = Settings(retry=RetrySettings(enabled=False))


async def test_the_footer_shows_the_panes_calibrated_figure_not_pis_raw_one(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    write_models(openai_server, "primary")
    openai_server.count_prompt = without_tools  # reports differ from the estimate: calibration != 1
    openai_server.enqueue(text_reply("first answer " * 40), text_reply("second answer " * 40))
    session = make_session(tmp_path, SETTINGS)
    await session.prompt("first question " * 40)
    await session.prompt("second question " * 40)
    session.store.append_message(UserMessage(content="a message after the last report " * 60, timestamp=1))

    pane = session.inspector_data()
    footer_tokens, estimated, _ = FooterContext().count(session)

    assert pane.usage is not None and pane.usage.tokens is not None
    assert pane.usage.tokens != pane.geometry.used_tokens  # pi's raw figure differs from the pane's
    assert (footer_tokens, estimated) == (pane.geometry.used_tokens, False)


def test_a_new_session_counts_its_prompt_and_tools_before_any_request(tmp_path: Path) -> None:
    session = make_session(tmp_path, SETTINGS, model_ref="openai/gpt-4o-mini")
    measured = session.measure_prefix()

    data = session.inspector_data()

    assert data.prefix is not None and data.prefix.source == "given"
    assert data.geometry.prefix_known and data.geometry.split.prefix == measured.tokens > 1_000
    assert data.geometry.used_tokens == measured.tokens
    assert FooterContext().count(session) == (measured.tokens, True, False)
    report = io.StringIO()
    print_report(data, [], report)
    assert "? (unknown)" not in report.getvalue() and f"{measured.tokens:,}" in report.getvalue()


def test_compaction_switched_off_names_the_setting_that_switches_it_on(tmp_path: Path) -> None:
    off = Settings(compaction=CompactionSettings(enabled=False), retry=RetrySettings(enabled=False))
    session = make_session(tmp_path, off, model_ref="openai/gpt-4o-mini")
    assert any(
        line.startswith("Auto-compaction off (compaction.enabled;")
        for line in headline_lines(session.inspector_data())
    )
