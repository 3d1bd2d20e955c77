"""What a headless run says on stderr while it works: a request no compaction can make fit (reported at
once, no summary call, no traceback, the prompt kept) and each retry wait. The real CLI in a subprocess
against the loopback server."""

from __future__ import annotations

from pathlib import Path

from pi_tui.ai.messages import UserMessage
from pi_tui.modes.headless_notices import wait_text
from pi_tui.session_file.store import SessionStore
from tests.modes.test_print_mode import run_cli, session_files
from tests.session.test_overflow_beyond_compaction import (
    LONG_PROMPT,
    accepted,
    summary_requests,
    write_small_window,
)
from tests.support import faults
from tests.support.openai_server import OpenAIServer, text_reply


def stored_prompts(cwd: Path) -> list[str]:
    [file] = session_files(cwd)
    messages = [entry.message for entry in SessionStore.open(file).entries if entry.type == "message"]
    return [message.content[0].text for message in messages if isinstance(message, UserMessage)]  # type: ignore[union-attr]


async def test_a_prompt_the_server_refuses_fails_at_once_with_the_overflow_line(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    write_small_window(openai_server)
    openai_server.enqueue(
        faults.context_overflow(), text_reply("an invented summary"), faults.context_overflow()
    )

    code, out, err = await run_cli("-p", "--model", "local/small", LONG_PROMPT, cwd=tmp_path)

    assert (code, out) == (1, "")
    first, provider_error = err.splitlines()
    assert first.startswith("pi-tui: Context overflow: the request is about ")
    assert "local/small's context window is 1,024 tokens" in first
    assert provider_error == f"pi-tui: 400 {faults.OVERFLOW_TEXT}"
    assert len(openai_server.requests) == 1 and summary_requests(openai_server) == 0
    assert stored_prompts(tmp_path) == [LONG_PROMPT]


async def test_a_prompt_accepted_above_the_window_fails_without_a_traceback(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    write_small_window(openai_server)
    openai_server.enqueue(
        accepted("an answer", 3000),
        text_reply("summary of an empty conversation"),
        accepted("x", 3000),
        text_reply("another summary"),
        accepted("y", 3000),
    )

    code, out, err = await run_cli("-p", "--model", "local/small", LONG_PROMPT, cwd=tmp_path)

    assert "Traceback" not in err
    assert (code, out) == (1, "an answer\n")
    [line] = err.splitlines()
    assert line.startswith(
        "pi-tui: Context overflow: the request is 3,000 tokens (as the provider counted it)"
    )
    assert "raise contextWindow in models.json" in line
    assert len(openai_server.requests) == 1 and summary_requests(openai_server) == 0
    assert stored_prompts(tmp_path) == [LONG_PROMPT]


async def test_each_retry_wait_is_one_stderr_line(openai_server: OpenAIServer, tmp_path: Path) -> None:
    write_small_window(openai_server)
    openai_server.enqueue(faults.rate_limited(retry_after_s=1), text_reply("after the wait"))

    code, out, err = await run_cli("-p", "--model", "local/small", "hello", cwd=tmp_path)

    assert (code, out) == (0, "after the wait\n"), err
    assert openai_server.faults_served == ["429 retry-after"]
    assert err.splitlines() == [
        f"pi-tui: 429 {faults.RATE_LIMIT_TEXT}; retrying in 1 s (attempt 1 of 3)",
    ]


def test_waits_are_said_in_whole_seconds_from_ten_and_tenths_below() -> None:
    assert [wait_text(ms) for ms in (30_000, 12_400, 2_500, 1_000, 200)] == [
        "30 s",
        "12 s",
        "2.5 s",
        "1 s",
        "0.2 s",
    ]


async def test_a_threshold_that_cannot_compact_is_one_stderr_line_naming_the_setting(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    """The 1,024 window's threshold is 768 (the reserve a quarter of it); the server reports 900 prompt
    tokens for a short prompt, all within the kept 256 recent tokens: the answer stands (exit 0) and stderr
    says why no compaction followed."""
    write_small_window(openai_server)
    openai_server.enqueue(accepted("an answer", 900), text_reply("an invented summary"))

    code, out, err = await run_cli("-p", "--model", "local/small", "a question", cwd=tmp_path)

    assert (code, out) == (0, "an answer\n"), err
    assert err.splitlines() == [
        "pi-tui: Auto-compaction cannot run: nothing older than the kept 256 recent tokens"
        " (compaction.keepRecentTokens, unset: a quarter of the window at most). To let it run: lower"
        " compaction.keepRecentTokens, or use a model with a larger window."
    ]
    assert len(openai_server.requests) == 1 and summary_requests(openai_server) == 0
