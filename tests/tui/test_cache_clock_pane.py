"""The cache clock in the Context pane and pi 1.6's `Cache warmed` and `Cache miss` lines in the
conversation, on the real client against the loopback server, with the warmer on a clock the test moves."""

from __future__ import annotations

import time
from pathlib import Path

from textual.widgets import Static

from pi_tui.config.model_config import ModelConfig, Prices, PromptCacheLifetimes
from pi_tui.config.settings import Settings
from pi_tui.session.runtime import RuntimeOptions
from pi_tui.tui.widgets.message_blocks import NoticeBlock
from tests.support.clocks import SteppedClock
from tests.support.openai_server import OpenAIServer, StreamReply, chunk, usage
from tests.support.waiting import until

from .chat_fixtures import _chat_app, _services
from .pilot_helpers import settle, terminal_input
from .screen_capture import screen_text

SIZE = (160, 48)
PROMPT = 100_000


def reply(text: str, cached: int = 0) -> StreamReply:
    return StreamReply(
        [
            chunk(content=text),
            chunk(finish_reason="stop"),
            chunk(no_choices=True, usage=usage(PROMPT, 1, cached)),
        ]
    )


async def test_the_context_pane_counts_the_cache_down_and_the_refresh_is_said(
    keep_alive_server: OpenAIServer, tmp_path: Path
) -> None:
    model = ModelConfig(
        id="m",
        provider="loop",
        base_url=keep_alive_server.base_url,
        context_window=200_000,
        cost=Prices(input=15, output=75, cache_read=1.5, cache_write=18.75),
        prompt_cache=PromptCacheLifetimes(short=300),
    )
    settings = Settings.model_validate({"showCacheMissNotices": True})
    options = RuntimeOptions(
        model=model, api_key="loopback-key", services_factory=_services(tmp_path, settings)
    )
    app, runtime = _chat_app(tmp_path, options)
    keep_alive_server.enqueue(reply("Hello."), reply(".", cached=PROMPT), reply("Cold again."))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        # Starts at the real time so the replies' own timestamps agree with it; then only the test moves it.
        clock = SteppedClock(time.time())
        runtime.session.warmer.clock = clock
        terminal_input(pilot, "Hi\r")
        await until(lambda: not runtime.session.is_running and keep_alive_server.requests, pilot=pilot)
        await settle(pilot)
        clock.advance(30)  # half a minute after the request
        pane = app.screen.query_one("#inspector-cache-clock", Static)
        await until(lambda: "expires in 4:30" in str(pane.render()), pilot=pilot, what="the countdown")
        shown = str(pane.render())
        assert "next refresh at" in shown and "protects $1.7250" in shown
        clock.advance(240)  # the refresh is due at 4:30
        await until(lambda: len(keep_alive_server.requests) == 2, pilot=pilot, what="the refresh")
        await until(
            lambda: any("Cache warmed: $0.150075" in str(n.render()) for n in app.screen.query(NoticeBlock)),
            pilot=pilot,
            what="the refresh's line in the conversation",
        )
        await until(lambda: "1 refresh $0.1501" in str(pane.render()), pilot=pilot, what="the pane's count")
        assert "Cache warmed" in screen_text(app)
        # The next reply reads nothing from the cache the refresh kept: pi 1.6's miss notice.
        terminal_input(pilot, "And now?\r")
        await until(
            lambda: len(keep_alive_server.requests) == 3 and not runtime.session.is_running, pilot=pilot
        )
        await settle(pilot)
        await until(
            lambda: any(
                "Cache miss: 100k tokens re-billed (~$1.35)" in str(n.render())
                for n in app.screen.query(NoticeBlock)
            ),
            pilot=pilot,
            what="the miss notice",
        )
