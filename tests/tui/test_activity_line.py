"""The status line above the editor: while something is under way it says what, for how long (its timer
redraws the seconds with no event arriving), the run's output tokens and "esc to interrupt"; after Esc or
the end of the work it is gone. A retry's wait and a question to the user say less (no time, their own
key). Times come from a clock the tests move, never from waiting."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from pi_tui.ai.scripted import ScriptedReply, ScriptedToolCall
from pi_tui.config.settings import CompactionSettings, RetrySettings, Settings
from pi_tui.session.activity import Activity, RunningTool
from pi_tui.session_file.entries import CompactionEntry, MessageEntry
from pi_tui.tui.screens.approval_dialog import ApprovalDialog
from pi_tui.tui.widgets import activity_line, conversation
from pi_tui.tui.widgets.activity_line import ActivityLine, activity_words, status_text
from pi_tui.tui.widgets.compaction_timeline import CompactionTimeline
from pi_tui.tui.widgets.tool_call_block import ToolCallBlock
from tests.support.openai_server import OpenAIServer, StreamReply
from tests.support.waiting import until

from .chat_fixtures import fix_prompt_place_and_day, make_chat_app, make_loopback_chat_app
from .pilot_helpers import settle, submit, terminal_input
from .screen_capture import screen_text
from .test_abort_responsive import TICKER, session_work_ended

SIZE = (160, 48)
GATED = "until [ -e release ]; do sleep 0.05; done"
INTERRUPT = "esc to interrupt"
STATUS_KEYS = (f"{INTERRUPT})", "esc to cancel)", "esc to deny)")


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    fake = FakeClock()
    monkeypatch.setattr(activity_line, "clock", fake)
    return fake


def slow(text: str = "", thinking: str = "") -> ScriptedReply:
    """A reply that streams for minutes unless aborted."""
    return ScriptedReply(text=text, thinking=thinking, chunk_size=5, delay_s=0.05)


def status_line(pilot: Pilot[Any]) -> str:
    """The status line as the terminal shows it ("" when it is not on screen)."""
    lines = [line for line in screen_text(pilot.app).splitlines() if line.rstrip().endswith(STATUS_KEYS)]
    return lines[0].strip() if lines else ""


async def shows(pilot: Pilot[Any], *words: str) -> str:
    await until(
        lambda: all(word in status_line(pilot) for word in words),
        pilot=pilot,
        what=f"the status line to say {words}",
    )
    return status_line(pilot)


async def abort_and_see_it_gone(pilot: Pilot[Any]) -> None:
    terminal_input(pilot, "\x1b")
    session = pilot.app.runtime.session  # type: ignore[attr-defined]
    await until(lambda: session_work_ended(pilot, session), pilot=pilot, what="the work to end")
    await settle(pilot)
    await until(lambda: status_line(pilot) == "", pilot=pilot, what="the status line to go")
    assert not pilot.app.screen.query_one(ActivityLine).display


async def test_a_tool_run_names_the_tool_counts_seconds_and_goes_after_esc(
    tmp_path: Path, clock: FakeClock
) -> None:
    call = ScriptedToolCall(name="bash", arguments={"command": TICKER}, id="t")
    app, _, _ = make_chat_app(tmp_path, [ScriptedReply(tool_calls=[call])])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert status_line(pilot) == ""
        terminal_input(pilot, "run the ticker\r")
        line = await shows(pilot, "Running bash: for i in $(seq 1 600)", "(0s")
        assert "tokens" in line  # the call itself was output
        clock.now += 65
        await shows(pilot, "Running bash", "(1m 05s")  # redrawn by the line's own timer
        await abort_and_see_it_gone(pilot)


async def test_tools_in_parallel_are_counted(tmp_path: Path, clock: FakeClock) -> None:
    calls = [ScriptedToolCall(name="bash", arguments={"command": GATED}, id=f"c{i}") for i in range(3)]
    app, _, _ = make_chat_app(tmp_path, [ScriptedReply(tool_calls=calls)])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        terminal_input(pilot, "run three\r")
        await shows(pilot, "Running 3 tools in parallel: bash")
        await abort_and_see_it_gone(pilot)


async def test_a_user_command(tmp_path: Path, clock: FakeClock) -> None:
    app, _, _ = make_chat_app(tmp_path, [])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        terminal_input(pilot, f"!{GATED}\r")
        await shows(pilot, f"Running !{GATED}", "(0s")
        clock.now += 3
        await shows(pilot, "(3s")
        await abort_and_see_it_gone(pilot)


async def test_waiting_for_the_first_token(
    keep_alive_server: OpenAIServer, tmp_path: Path, clock: FakeClock
) -> None:
    keep_alive_server.enqueue(StreamReply([], hold_headers=True))
    app, _ = make_loopback_chat_app(keep_alive_server, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        terminal_input(pilot, "are you there?\r")
        await shows(pilot, "Waiting for the model (0s")
        clock.now += 12
        await shows(pilot, "Waiting for the model (12s")
        await abort_and_see_it_gone(pilot)


@pytest.mark.parametrize(
    ("reply", "words"),
    [(slow(text="word " * 2_000), "Writing the reply"), (slow(thinking="hmm " * 2_000), "Thinking")],
    ids=["reply", "thinking"],
)
async def test_a_streaming_reply_or_thinking_counts_its_tokens(
    tmp_path: Path, clock: FakeClock, reply: ScriptedReply, words: str
) -> None:
    app, _, _ = make_chat_app(tmp_path, [reply])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        terminal_input(pilot, "go on\r")
        line = await shows(pilot, words, "tokens")
        await until(lambda: status_line(pilot) != line, pilot=pilot, what="the token count to grow")
        await abort_and_see_it_gone(pilot)


async def test_a_finished_reply_leaves_no_status_line(tmp_path: Path, clock: FakeClock) -> None:
    app, session, _ = make_chat_app(tmp_path, [ScriptedReply(text="done")])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await submit(pilot, "hello")
        assert session.last_assistant_text() == "done"
        await until(lambda: status_line(pilot) == "", pilot=pilot, what="no status line when idle")


async def test_a_retry_counts_down_once_in_the_conversation(
    tmp_path: Path, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The retry line in the conversation counts down and stays as the retry's record; the status line
    only says a retry waits, so the countdown is not on screen twice."""
    monkeypatch.setattr(conversation, "clock", clock)
    settings = Settings(retry=RetrySettings(base_delay_ms=600_000, max_delay_ms=600_000, max_retries=2))
    app, _, _ = make_chat_app(tmp_path, [ScriptedReply(error="503 Service Unavailable")], settings=settings)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        terminal_input(pilot, "hello\r")
        line = await shows(pilot, "Waiting to retry (1/2)")
        assert line.endswith("(esc to cancel)")
        await until(
            lambda: "in 600s" in screen_text(pilot.app), pilot=pilot, what="the conversation's countdown"
        )
        assert screen_text(pilot.app).count("600s") == 1
        await abort_and_see_it_gone(pilot)


async def test_a_call_waiting_for_approval_says_so(tmp_path: Path, clock: FakeClock) -> None:
    call = ScriptedToolCall(name="bash", arguments={"command": "rm -rf build"}, id="rm")
    replies = [ScriptedReply(tool_calls=[call]), ScriptedReply(text="as you wish")]
    app, session, _ = make_chat_app(tmp_path, replies, settings=Settings(approval=True))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        terminal_input(pilot, "clean up\r")
        await until(lambda: isinstance(app.screen, ApprovalDialog), pilot=pilot, what="the question")
        line = await shows(pilot, "Waiting for your approval: bash rm -rf build")
        assert line.startswith("? ") and line.endswith("(esc to deny)")  # Esc there answers no
        assert "Running" not in line
        await pilot.press("n")
        await until(lambda: not session.is_running, pilot=pilot, what="the run to end")
        await until(lambda: status_line(pilot) == "", pilot=pilot, what="the status line to go")
        assert session.last_assistant_text() == "as you wish"


async def two_long_exchanges(pilot: Pilot[Any]) -> None:
    await settle(pilot)
    await submit(pilot, "first " * 300)
    await submit(pilot, "second " * 300)


def long_replies() -> list[ScriptedReply]:
    return [ScriptedReply(text="answer " * 400), ScriptedReply(text="answer two " * 300)]


@pytest.mark.parametrize("strategy", ["serialize", "inline"])
async def test_a_manual_compaction(tmp_path: Path, clock: FakeClock, strategy: str) -> None:
    settings = Settings(compaction=CompactionSettings(strategy=strategy, keep_recent_tokens=1_000))  # type: ignore[arg-type]
    replies = [*long_replies(), slow(text="## Goal\n" + "summary " * 2_000)]
    app, _, provider = make_chat_app(tmp_path, replies, settings=settings)
    async with app.run_test(size=SIZE) as pilot:
        await two_long_exchanges(pilot)
        terminal_input(pilot, "/compact\r")
        await shows(pilot, "Compacting the context (0s")
        clock.now += 7
        await shows(pilot, "Compacting the context (7s")
        await abort_and_see_it_gone(pilot)
        record = provider.contexts[-1]
        assert (record.tools != []) == (strategy == "inline")  # the inline summary asks in the live request


async def test_an_overflow_compaction(tmp_path: Path, clock: FakeClock) -> None:
    settings = Settings(
        compaction=CompactionSettings(keep_recent_tokens=150), retry=RetrySettings(enabled=False)
    )
    overflow = ScriptedReply(error="prompt is too long: 40000 tokens > 32000 maximum")
    replies = [*long_replies(), overflow, slow(text="## Goal\n" + "summary " * 2_000)]
    app, _, _ = make_chat_app(tmp_path, replies, settings=settings)
    async with app.run_test(size=SIZE) as pilot:
        await two_long_exchanges(pilot)
        terminal_input(pilot, "and now overflow\r")
        await shows(pilot, "Context overflow: compacting the context")
        await abort_and_see_it_gone(pilot)


TWO_TURNS_AND_A_SLOW_SUMMARY = [
    ScriptedReply(text="a1"),
    ScriptedReply(text="a2"),
    slow(text="## Goal\n" + "gist " * 2_000),
]


async def summarise_on_the_way_back(pilot: Any, session: Any) -> tuple[str | None, str, Any]:
    """Two turns, then a move back to the first reply that summarises the branch left; returns the
    leaf before the move, the first reply's id and the chat screen, once the status line names it."""
    await settle(pilot)
    await submit(pilot, "q1")
    await submit(pilot, "q2")
    leaf = session.store.leaf_id
    first_reply = [entry for entry in session.store.entries if isinstance(entry, MessageEntry)][1]
    screen: Any = pilot.app.screen
    screen._start(screen._navigate(first_reply.id, "summarise", None))
    await shows(pilot, "Summarising the branch you left")
    return leaf, first_reply.id, screen


async def test_a_branch_summary_on_a_tree_move(tmp_path: Path, clock: FakeClock) -> None:
    app, session, _ = make_chat_app(tmp_path, TWO_TURNS_AND_A_SLOW_SUMMARY)
    async with app.run_test(size=SIZE) as pilot:
        _, first_reply_id, _ = await summarise_on_the_way_back(pilot, session)
        await abort_and_see_it_gone(pilot)
        assert session.store.leaf_id != first_reply_id  # cancelled: the move did not happen


async def test_esc_esc_during_a_branch_summary_stops_it_and_opens_no_tree(
    tmp_path: Path, clock: FakeClock
) -> None:
    app, session, _ = make_chat_app(tmp_path, TWO_TURNS_AND_A_SLOW_SUMMARY)
    async with app.run_test(size=SIZE) as pilot:
        leaf, _, screen = await summarise_on_the_way_back(pilot, session)
        assert screen.busy
        await pilot.press("escape", "escape")
        await until(lambda: not session.is_summarizing_branch, pilot=pilot, what="the summary to stop")
        await until(lambda: status_line(pilot) == "", pilot=pilot, what="the status line to go")
        await settle(pilot)
        assert app.screen is screen  # no tree on top of the chat
        assert session.store.leaf_id == leaf  # cancelled: the move did not happen


async def test_a_recompaction_from_the_compactions_pane(tmp_path: Path, clock: FakeClock) -> None:
    summary = ScriptedReply(text="## Goal\nfirst summary")
    keep_one_turn = Settings(
        compaction=CompactionSettings(keep_recent_tokens=1_000)
    )  # something to summarise
    app, session, provider = make_chat_app(
        tmp_path, [*long_replies(), summary, summary], settings=keep_one_turn
    )
    async with app.run_test(size=SIZE) as pilot:
        await two_long_exchanges(pilot)
        await submit(pilot, "/compact")
        provider.replies[:] = [slow(text="## Goal\n" + "again " * 2_000)] * 2
        compaction = next(e for e in session.store.entries if isinstance(e, CompactionEntry))
        app.screen.query_one(CompactionTimeline).post_message(
            CompactionTimeline.RecompactRequested(compaction.id, "keep the numbers")
        )
        await shows(pilot, "Re-compacting")
        await abort_and_see_it_gone(pilot)


def test_every_state_has_its_words() -> None:
    tool = RunningTool("read", {"path": "README.md"}, 0.0)
    cases = [
        (Activity("waiting", 0), "Waiting for the model"),
        (Activity("thinking", 0), "Thinking"),
        (Activity("writing", 0), "Writing the reply"),
        (Activity("calling", 0, name="write"), "Writing a call to write"),
        (Activity("tools", 0, tools=(tool,)), "Running read: README.md"),
        (Activity("tools", 0, tools=(tool, tool)), "Running 2 tools in parallel: read"),
        (Activity("retry", 0, attempt=1, max_attempts=3), "Waiting to retry (1/3)"),
        (Activity("approval", 0, name="write a.py (2 lines)"), "Waiting for your approval: write a.py"),
        (Activity("compaction", 0, compaction="manual"), "Compacting the context"),
        (Activity("compaction", 0, compaction="threshold"), "Auto-compacting the context"),
        (Activity("compaction", 0, compaction="overflow"), "Context overflow: compacting the context"),
        (Activity("compaction", 0, compaction="manual", recompacting=True), "Re-compacting"),
        (Activity("branch_summary", 0), "Summarising the branch you left"),
        (Activity("user_shell", 0, name="!make test"), "Running !make test"),
    ]
    assert [activity_words(activity)[: len(words)] for activity, words in cases] == [
        words for _, words in cases
    ]


def test_a_long_line_keeps_its_time_and_key() -> None:
    tool = RunningTool("bash", {"command": "x" * 200}, 0.0)
    line = status_text(Activity("tools", 0, output_tokens=1234, tools=(tool,)), 3725.0, 80)
    assert len(line) <= 80
    assert line.endswith("… (1h 02m · ↓ 1.2k tokens · esc to interrupt)")


async def a_gated_command_running(pilot: Pilot[Any]) -> None:
    screen = pilot.app.screen
    await settle(pilot)
    terminal_input(pilot, "run the gated command\r")
    await until(lambda: screen.query(ToolCallBlock), pilot=pilot, what="the command to start")
    await until(
        lambda: screen.caught_up and all(w.is_finished for w in pilot.app.workers if w.group != "turn"),
        pilot=pilot,
        what="the screen to catch up",
    )
    await pilot.press("ctrl+b")  # the side panel's figures are not what this shows
    await until(lambda: not screen.query_one("#side").display, pilot=pilot, what="the side panel hidden")
    activity_line.clock.now += 12.3  # type: ignore[attr-defined]
    pilot.app.clear_notifications()
    screen.set_focus(None)  # a focused editor's cursor blinks
    await until(lambda: "(12s" in status_line(pilot), pilot=pilot, what="12 seconds on the status line")


def test_snapshot_of_the_status_line_during_a_tool_run(
    snap_compare: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clock: FakeClock
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setattr(conversation, "clock", lambda: 100.0)
    fix_prompt_place_and_day(monkeypatch)
    gate = ScriptedToolCall(name="bash", arguments={"command": GATED}, id="gate")
    app, _, _ = make_chat_app(tmp_path, [ScriptedReply(tool_calls=[gate])])
    app.theme = "pi-dark"
    assert snap_compare(app, terminal_size=(160, 48), run_before=a_gated_command_running)
