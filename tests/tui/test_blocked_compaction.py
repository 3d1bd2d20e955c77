"""When automatic compaction cannot run over the threshold, the TUI says so (issue #27): the footer shows
`(auto: blocked)` instead of `(auto)`, the Context pane gives the reason and the setting to change, and
the conversation is told once."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from pi_tui.ai.scripted import ScriptedReply, ScriptedUsage
from pi_tui.config.settings import CompactionSettings, RetrySettings, Settings
from pi_tui.tui.widgets.message_blocks import NoticeBlock
from tests.support.waiting import until

from .chat_fixtures import make_chat_app
from .pilot_helpers import settle

SIZE = (160, 48)
SETTINGS = Settings(
    compaction=CompactionSettings(keep_recent_tokens=30_000), retry=RetrySettings(enabled=False)
)
"""On the 32,000 window the threshold is 24,000: a kept tail of 30,000 leaves nothing older."""
REASON = "nothing older than the kept 30,000 recent tokens (compaction.keepRecentTokens)"


def over_threshold(text: str) -> ScriptedReply:
    return ScriptedReply(text=text, usage=ScriptedUsage(input=25_000, output=50))


def below_threshold(text: str) -> ScriptedReply:
    return ScriptedReply(text=text, usage=ScriptedUsage(input=2_000, output=50))


async def test_footer_and_context_pane_say_why_compaction_cannot_run(tmp_path: Path) -> None:
    replies = [below_threshold("small"), over_threshold("big"), over_threshold("bigger")]
    app, session, _ = make_chat_app(tmp_path, replies, settings=SETTINGS)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        footer = app.screen.query_one("#footer-context", Static)

        await pilot.press(*"first", "enter")
        await session.wait_for_idle()
        await settle(pilot)
        assert str(footer.render()).endswith("%/32k (auto)")

        await pilot.press(*"second", "enter")
        await session.wait_for_idle()
        await until(lambda: str(footer.render()).endswith("(auto: blocked)"), pilot=pilot, what="blocked")
        await pilot.press(*"third", "enter")
        await session.wait_for_idle()
        await settle(pilot)
        assert str(footer.render()).endswith("%/32k (auto: blocked)")
        notices = [str(notice.render()) for notice in app.screen.query(NoticeBlock)]
        assert [text for text in notices if "Auto-compaction cannot run" in text] == [
            f"Auto-compaction cannot run: {REASON}. To let it run: set compaction.keepRecentTokens below"
            " the threshold (24,000)."
        ]

        panel = app.screen.side_panel  # type: ignore[attr-defined]
        panel.open_pane("pane-context")
        panel.refresh_context_pane()
        await settle(pilot)
        headline = str(app.screen.query_one("#inspector-headline").render())
        assert (
            f"Auto-compaction blocked: {REASON} · to let it run: set compaction.keepRecentTokens below the"
            " threshold (24,000)"
        ) in headline
