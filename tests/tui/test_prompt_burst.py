"""Every key typed before Enter is in the prompt that is sent, when the keys come as one burst the way a
terminal delivers fast typing, a paste or tmux `send-keys` (`Pilot.press` sends them one at a time)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pi_tui.ai.scripted import ScriptedReply
from pi_tui.tui.widgets.prompt_area import PromptArea
from tests.support.openai_server import OpenAIServer, text_reply
from tests.support.waiting import until

from .chat_fixtures import make_chat_app, make_loopback_chat_app
from .pilot_helpers import settle, terminal_input

SIZE = (160, 48)
WORDS = "What should the README say? Keep it short, name the commands (make run, make test) & the keys: 42!"
LONG_PROMPT = " ".join([WORDS] * 16)[:1_500]
PASTED = "first line of the paste\n    indented second line\n\nlast line after a blank one"


def sent_user_text(body: Any) -> str:
    """The text of the last user message of a Chat Completions request body."""
    message = body["messages"][-1]
    assert message["role"] == "user"
    content = message["content"]
    return content if isinstance(content, str) else "".join(part["text"] for part in content)


async def test_a_1500_character_burst_then_enter_sends_every_character(
    keep_alive_server: OpenAIServer, tmp_path: Path
) -> None:
    assert len(LONG_PROMPT) == 1_500
    keep_alive_server.enqueue(text_reply("read it all"))
    app, runtime = make_loopback_chat_app(keep_alive_server, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        terminal_input(pilot, LONG_PROMPT + "\r")
        await until(lambda: keep_alive_server.requests, pilot=pilot, what="the prompt to reach the server")
        await runtime.session.wait_for_idle()
        await settle(pilot)
        assert sent_user_text(keep_alive_server.requests[0].body) == LONG_PROMPT
        assert app.screen.query_one(PromptArea).text == ""
        assert runtime.session.last_assistant_text() == "read it all"


async def test_a_bracketed_paste_then_enter_sends_the_whole_paste(
    keep_alive_server: OpenAIServer, tmp_path: Path
) -> None:
    keep_alive_server.enqueue(text_reply("got the paste"))
    app, runtime = make_loopback_chat_app(keep_alive_server, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        terminal_input(pilot, "Review this: \x1b[200~" + PASTED + "\x1b[201~\r")
        await until(lambda: keep_alive_server.requests, pilot=pilot, what="the prompt to reach the server")
        await runtime.session.wait_for_idle()
        await settle(pilot)
        assert sent_user_text(keep_alive_server.requests[0].body) == "Review this: " + PASTED


async def test_edits_in_a_burst_apply_in_the_order_typed(tmp_path: Path) -> None:
    """Backspace, the arrows and ctrl+j (a new line) act where they were typed, not after later keys."""
    app, session, provider = make_chat_app(tmp_path, [ScriptedReply(text="ok")])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        editor = app.screen.query_one(PromptArea)
        # "fix teh", two backspaces, "he test", four lefts, "unit ", End, ctrl+j, "now".
        terminal_input(pilot, "fix teh\x7f\x7fhe test\x1b[D\x1b[D\x1b[D\x1b[Dunit \x1b[F\nnow")
        await until(lambda: editor.text.endswith("now"), pilot=pilot, what="the burst to reach the editor")
        assert editor.text == "fix the unit test\nnow"
        terminal_input(pilot, "\r")
        await until(lambda: provider.calls == 1, pilot=pilot, what="the prompt to be sent")
        await session.wait_for_idle()
        await settle(pilot)
        sent = provider.contexts[0].messages[-1]
        assert sent.role == "user" and sent.content[0].text == "fix the unit test\nnow"  # type: ignore[union-attr]
