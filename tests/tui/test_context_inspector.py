"""The context inspector pane on data from a real session driven by the scripted provider."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.coordinate import Coordinate
from textual.pilot import Pilot
from textual.widgets import Static, TextArea

from pi_tui.ai.messages import AssistantMessage, CompactionSummaryMessage, UserMessage
from pi_tui.ai.scripted import ScriptedProvider, ScriptedReply, ScriptedToolCall, ScriptedUsage
from pi_tui.ai.stream import ToolSpec
from pi_tui.config.settings import CompactionSettings, Settings
from pi_tui.context.accounting.calibration import UNCALIBRATED
from pi_tui.context.accounting.drift import DriftEvent
from pi_tui.context.accounting.geometry import BudgetGeometry, BudgetSplit
from pi_tui.context.resources import load_resources
from pi_tui.context.system_prompt import PromptSegment, SystemPrompt
from pi_tui.session.agent_session import AgentSession, SessionConfig
from pi_tui.session.inspector import InspectorCache, InspectorData, build_inspector_data, measure_prefix
from pi_tui.session_file.store import SessionStore
from pi_tui.tui.inspector_view import (
    SegmentTexts,
    cap_text,
    drift_alerts,
    drift_event_text,
    headline_lines,
    ledger_zones,
    segment_texts,
    table_rows,
    usage_line,
)
from pi_tui.tui.themed_app import ThemedApp
from pi_tui.tui.widgets.budget_bar import BudgetBar, Legend, bar_cells, fitted_legend, marker_column
from pi_tui.tui.widgets.context_inspector import ContextInspector

from .chat_fixtures import MODEL, fix_prompt_place_and_day

SIZE = (120, 40)
THEMES = ["pi-dark", "pi-light"]
SETTINGS = Settings(compaction=CompactionSettings(reserve_tokens=8_000, keep_recent_tokens=60))
COMPACTABLE = Settings(
    compaction=CompactionSettings(reserve_tokens=8_000, keep_recent_tokens=8, strategy="serialize")
)
"""The newest exchange kept, the first one summarised (the whole session is about 52 tokens)."""
TODO = "- write the parser\n- add tests\n- ship it\n"
FIXED_PROMPT = SystemPrompt(
    (
        PromptSegment("base", "base", "You are pi-tui, a coding assistant in the user's terminal."),
        PromptSegment("tools", "tools", "\n\nAvailable tools:\n- read: Read file contents"),
        PromptSegment("date-cwd", "date-cwd", "\nCurrent working directory: /home/user/project"),
    )
)
FIXED_TOOLS = [
    ToolSpec(
        "read",
        "Read the contents of a file.",
        {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    )
]


def replies() -> list[ScriptedReply]:
    return [
        ScriptedReply(
            thinking="Read the file first.",
            tool_calls=[ScriptedToolCall(name="read", arguments={"path": "todo.md"}, id="call-1")],
            usage=ScriptedUsage(input=1800, output=40, cache_read=1500),
        ),
        ScriptedReply(
            text="Three items are open: the parser, the tests and shipping.",
            usage=ScriptedUsage(input=300, output=30, cache_read=1800),
        ),
        ScriptedReply(
            text="Start with the parser.", usage=ScriptedUsage(input=120, output=10, cache_read=2100)
        ),
    ]


@dataclass
class Inspected:
    session: AgentSession
    data: InspectorData
    texts: SegmentTexts


def inspect(session: AgentSession, *, fixed_prefix: bool = False) -> Inspected:
    """What the screen's worker does: build the data, then the texts for the same leaf."""
    cache = InspectorCache()
    prompt = FIXED_PROMPT if fixed_prefix else session.system_prompt
    tools = FIXED_TOOLS if fixed_prefix else [tool.spec() for tool in session.active_tools]
    prefix = measure_prefix(prompt, tools) if fixed_prefix else None
    data = build_inspector_data(session.store, SETTINGS, MODEL, cache=cache, prefix=prefix)
    context = session.store.build_context()
    texts = segment_texts(
        prompt, tools, context.messages, context.entry_ids, model=MODEL, zones=ledger_zones(cache.ledger)
    )
    return Inspected(session, data, texts)


def make_session(tmp_path: Path, script: list[ScriptedReply], settings: Settings = SETTINGS) -> AgentSession:
    """A real session on a file under `tmp_path`, answered by the scripted provider (as chat_fixtures)."""
    project = tmp_path / "project"
    store = SessionStore.create(str(project), tmp_path / "sessions")
    resources = load_resources(project, settings=settings, home=tmp_path, include_builtin=False)
    config = SessionConfig(
        store=store,
        resources=resources,
        model=MODEL,
        api_key="unused",
        thinking_level="medium",
        stream_fn=ScriptedProvider(script),
    )
    return AgentSession(config)


async def run_session(
    tmp_path: Path, extra: list[ScriptedReply] | None = None, settings: Settings = SETTINGS
) -> AgentSession:
    (tmp_path / "project").mkdir(exist_ok=True)
    (tmp_path / "project" / "todo.md").write_text(TODO)
    session = make_session(tmp_path, replies() + (extra or []), settings)
    await session.prompt("what is left in todo.md?")
    await session.prompt("which first?")
    return session


class InspectorHost(ThemedApp[None]):
    """A conversation stand-in on the left and the inspector in a 50-column right-hand pane."""

    CSS = "#left { width: 1fr; } #pane { width: 50; }"

    def __init__(self, inspected: Inspected | None = None, pane_width: int = 50) -> None:
        super().__init__()
        self.inspected = inspected
        self.pane_width = pane_width
        self.selected: list[str] = []

    def on_context_inspector_segment_selected(self, message: ContextInspector.SegmentSelected) -> None:
        self.selected.append(message.row_key)

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield Static("conversation", id="left")
            yield ContextInspector(id="pane")

    def on_mount(self) -> None:
        self.query_one("#pane").styles.width = self.pane_width
        if self.inspected is not None:
            self.query_one(ContextInspector).show(self.inspected.data, self.inspected.texts)


def table_keys(inspector: ContextInspector) -> list[str]:
    table = inspector.table
    return [
        str(table.coordinate_to_cell_key(Coordinate(row, 0)).row_key.value) for row in range(table.row_count)
    ]


# --- pure view model ------------------------------------------------------------------------------


async def test_segment_texts_hold_what_the_model_is_sent(tmp_path: Path) -> None:
    inspected = inspect(await run_session(tmp_path))
    texts, session = inspected.texts, inspected.session
    assert texts.system == {s.name: s.text for s in session.system_prompt.segments}
    read_schema = json.loads(texts.tools["read"])
    assert read_schema["function"]["name"] == "read"
    roles = [m.role for m in texts.messages]
    assert roles == ["user", "assistant", "toolResult", "assistant", "user", "assistant"]
    user, call, result = texts.messages[:3]
    assert user.text == "[user]\nwhat is left in todo.md?"
    assert user.preview == "what is left in todo.md?"
    assert '→ read {"path":"todo.md"}' in call.text
    assert "Read the file first." not in call.text  # thinking is not replayed on this wire
    assert result.text.startswith("[tool] tool_call_id=call-1\n")
    assert "write the parser" in result.text
    assert all(m.zone == "new" and m.tokens > 0 for m in texts.messages)
    assert texts.text_for("message:" + user.key) == user.text
    assert texts.text_for("system:base") == session.system_prompt.segments[0].text
    assert texts.text_for("tool:nope") is None


def test_segment_texts_mark_the_summary_and_kept_zones() -> None:
    summary = CompactionSummaryMessage(summary="We read todo.md.", tokens_before=900)
    kept = UserMessage(content="keep me", timestamp=1)
    new = UserMessage(content="after", timestamp=1)
    texts = segment_texts("plain prompt", [], [summary, kept, new], [None, "k1", "n1"], zones={"k1": "kept"})
    assert texts.system == {"system": "plain prompt"}
    assert [(m.key, m.zone) for m in texts.messages] == [
        ("compaction-summary", "summary"),
        ("k1", "kept"),
        ("n1", "new"),
    ]
    assert "We read todo.md." in texts.messages[0].text


def test_a_failed_reply_is_listed_but_not_sent() -> None:
    failed = AssistantMessage(
        content=[], api="openai-completions", provider="p", model=MODEL.id, stop_reason="error"
    )
    texts = segment_texts("", [], [UserMessage(content="hi", timestamp=1), failed], ["u1", "a1"], model=MODEL)
    assert texts.messages[1].text == ""
    assert texts.messages[1].preview == "(not sent)"


async def test_table_rows_list_prefix_then_messages_and_sort_by_size(tmp_path: Path) -> None:
    inspected = inspect(await run_session(tmp_path))
    data, texts = inspected.data, inspected.texts
    assert data.prefix is not None and data.source == "records"
    rows = table_rows(data, texts)
    prefix_count = len(data.prefix.segments)
    assert [row.zone for row in rows[:prefix_count]] == ["prefix"] * prefix_count
    assert [row.name for row in rows[prefix_count:]] == [m.role for m in texts.messages]
    biggest = table_rows(data, texts, largest_first=True)
    assert [row.tokens for row in biggest] == sorted((row.tokens for row in rows), reverse=True)
    assert {row.key for row in biggest} == {row.key for row in rows}


async def test_headline_reports_usage_cache_split_and_forecast(tmp_path: Path) -> None:
    data = inspect(await run_session(tmp_path)).data
    lines = headline_lines(data)
    assert data.usage is not None and data.usage.tokens is not None
    assert lines[0].startswith(f"Context {data.usage.tokens:,} / 32,000 (")
    assert f"{data.geometry.tokens_left:,} left before auto-compaction at 24,000" in lines
    assert "Last request: 2,100 cached · 120 uncached" in lines
    assert any(line.startswith(f"Next request ≈ {data.forecast.next_request_tokens:,}") for line in lines)


async def test_headline_says_when_the_reserve_was_held_to_half_the_window(tmp_path: Path) -> None:
    session = await run_session(tmp_path)
    settings = Settings(compaction=CompactionSettings(reserve_tokens=20_000, keep_recent_tokens=60))
    data = build_inspector_data(session.store, settings, MODEL, cache=InspectorCache())
    assert (data.geometry.reserve_tokens, data.geometry.threshold) == (16_000, 16_000)
    assert headline_lines(data)[2] == (
        "compaction.reserveTokens 20,000 is more than half of the window (32,000 tokens): 16,000 is reserved"
    )


async def test_after_a_compaction_the_pane_shows_the_estimate_the_bar_is_made_of(tmp_path: Path) -> None:
    session = await run_session(tmp_path, [ScriptedReply(text="## Goal\nFinish the todo list.")], COMPACTABLE)
    outcome = await session.compact()
    assert outcome.entry_id is not None
    inspected = inspect(session)
    geometry = inspected.data.geometry
    assert inspected.data.usage is not None and inspected.data.usage.tokens is None  # pi's figure: "?"
    assert geometry.used_source == "estimate" and geometry.used_tokens == geometry.split.used > 0
    percent = geometry.used_tokens / 32_000 * 100
    assert (
        usage_line(inspected.data)
        == f"Context {geometry.used_tokens:,} / 32,000 ({percent:.1f}%; all estimated)"
    )
    zones = [m.zone for m in inspected.texts.messages]
    assert zones[0] == "summary" and "kept" in zones


async def test_a_tool_change_raises_a_drift_alert_naming_the_segment(tmp_path: Path) -> None:
    later = [ScriptedReply(text=text, usage=ScriptedUsage(input=900)) for text in ("ok", "fine", "done")]
    session = await run_session(tmp_path, later)
    assert drift_alerts(inspect(session).data)[0].text == "No drift: the last request only appended"
    await session.set_active_tools(["read", "bash"])
    await session.prompt("again")
    alerts = drift_alerts(inspect(session).data)
    assert alerts[0].drifted
    assert alerts[0].text.startswith("Drift: the system prompt changed (its tools part): ")
    assert alerts[0].text.endswith(" tokens had to be re-read")
    await session.prompt("and again")
    await session.prompt("once more")
    clean, earlier = drift_alerts(inspect(session).data)
    assert clean.text == "No drift: the last request only appended" and not clean.drifted
    assert earlier.drifted and earlier.text.startswith(
        "Drift 2 requests ago: the system prompt changed (its tools part)"
    )


def test_a_dialect_cause_is_said_in_plain_words_with_its_cost() -> None:
    event = DriftEvent("cache_key", None, 0, 0, 12_340, 12_340, None, 2, 1, was="s-1", now="s-2")
    assert (
        drift_event_text(event) == "Drift: the cache key changed (s-1 → s-2): 12,340 tokens had to be re-read"
    )
    assert drift_event_text(event, requests_ago=2).startswith("Drift 2 requests ago: the cache key changed")


def test_the_providers_own_reason_is_shown_beside_pi_tuis_blame() -> None:
    """Anthropic's `cache_miss_reason` (with `sendCacheMissDiagnostics`) rides along, even when pi-tui
    sees no drift: the two accounts differ when the cause is outside the bytes pi-tui records."""
    clean = DriftEvent(
        "none", None, None, 900, 10, 0, 900, 2, 1, provider_reason="previous_message_not_found"
    )
    assert drift_event_text(clean) == (
        "No drift: the last request only appended · Anthropic says: it no longer knows the previous reply"
    )
    event = DriftEvent(
        "cache_key", None, 0, 0, 500, 500, None, 2, 1, was="a", now="b",
        provider_reason="messages_changed", provider_missed_tokens=1234,
    )  # fmt: skip
    assert drift_event_text(event).endswith(
        "500 tokens had to be re-read · Anthropic says: the messages changed"
        " (1,234 tokens not read from cache)"
    )


def test_cap_text_cuts_giant_texts_with_a_note() -> None:
    assert cap_text("short", 10) == ("short", None)
    shown, note = cap_text("x" * 25_000, 10_000)
    assert len(shown) == 10_000
    assert note == "Showing the first 10,000 of 25,000 characters."


def test_bar_cells_fill_the_width_in_proportion() -> None:
    assert bar_cells([50, 0, 25, 25], 8) == [4, 0, 2, 2]
    assert sum(bar_cells([3, 7, 11, 13, 17], 37)) == 37
    assert bar_cells([0, 0], 5) == [0, 0]
    assert bar_cells([1, 0, 998, 1], 10) == [1, 0, 8, 1]  # a non-empty part always shows
    assert marker_column(24_000, 32_000, 40) == 30
    assert marker_column(32_000, 32_000, 40) == 39


def legend_geometry(prefix_known: bool = True) -> BudgetGeometry:
    split = BudgetSplit(prefix=1602, summary=282, kept=1000, new_tail=341, free=6377, reserve=8000)
    return BudgetGeometry(
        context_window=17_602,
        reserve_tokens=8000,
        threshold=8000,
        keep_recent_tokens=1000,
        auto_compaction=True,
        used_tokens=split.used,
        used_source="estimate",
        reported_tokens=0,
        tokens_left=8000 - split.used,
        boundary=None,
        split=split,
        prefix_known=prefix_known,
        calibration=UNCALIBRATED,
    )


def legend_text(legend: Legend) -> list[str]:
    return [legend.gap.join(f"{item.swatch} {item.label}" for item in line) for line in legend.lines]


def test_a_legend_held_to_one_line_says_less_rather_than_cut_an_item() -> None:
    geometry = legend_geometry()
    assert len(fitted_legend(geometry, 78, None).lines) == 2  # wrapped, full names and figures
    assert legend_text(fitted_legend(geometry, 78, 1)) == [
        "█ pre 1.6k  █ sum 282  █ kept 1.0k  █ new 341  ░ free 6.4k  ▒ res 8.0k  T 8.0k"
    ]
    assert legend_text(fitted_legend(geometry, 74, 1)) == [
        "█ pre 1.6k █ sum 282 █ kept 1.0k █ new 341 ░ free 6.4k ▒ res 8.0k T 8.0k"
    ]
    assert legend_text(fitted_legend(geometry, 66, 1)) == [
        "█ pre 1.6k █ sum 282 █ kept 1.0k █ new 341 ░ free 6.4k ▒ res 8.0k"
    ]
    assert legend_text(fitted_legend(geometry, 200, 1)) == [
        "█ prefix 1,602  █ summary 282  █ kept 1,000  █ new 341  ░ free 6,377  ▒ reserve 8,000"
        "  T threshold 8,000"
    ]
    # Too narrow for even the tersest: whole items are left out at the end.
    assert legend_text(fitted_legend(geometry, 30, 1)) == ["█ pre 1.6k █ sum 282"]
    assert legend_text(fitted_legend(legend_geometry(prefix_known=False), 78, 1))[0].startswith(
        "█ pre ~1.6k "
    )


# --- the widget -----------------------------------------------------------------------------------


async def test_show_renders_headline_bar_drift_and_table(tmp_path: Path) -> None:
    inspected = inspect(await run_session(tmp_path))
    app = InspectorHost(inspected)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        inspector = app.query_one(ContextInspector)
        assert str(inspector.headline.render()).splitlines() == headline_lines(inspected.data)
        assert [c.label.plain for c in inspector.table.columns.values()] == [
            "zone",
            "name",
            "tokens",
            "preview",
        ]
        assert table_keys(inspector) == [row.key for row in table_rows(inspected.data, inspected.texts)]
        bar = inspector.query_one(BudgetBar)
        assert bar.geometry == inspected.data.geometry
        first_line = "".join(segment.text for segment in bar.render_line(0))
        assert len(first_line) == bar.size.width == 48
        assert first_line.startswith("█") and "░" in first_line and first_line.endswith("▒")
        markers = "".join(segment.text for segment in bar.render_line(1))
        assert markers[marker_column(24_000, 32_000, 48)] == "T"
        assert "No drift" in str(inspector.drift.render())
        assert not inspector.drift.has_class("-drifted")


async def test_enter_on_a_row_shows_its_exact_text_and_posts_the_selection(tmp_path: Path) -> None:
    inspected = inspect(await run_session(tmp_path))
    app = InspectorHost(inspected)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        inspector = app.query_one(ContextInspector)
        inspector.table.focus()
        tool_row = table_keys(inspector).index("tool:read")
        await pilot.press(*["down"] * tool_row, "enter")
        await pilot.pause()
        assert inspector.detail.text == inspected.texts.tools["read"]
        assert str(inspector.detail_title.render()).startswith("read · prefix · ")
        assert app.selected == ["tool:read"]
        second = table_keys(inspector)[1]
        inspector.table.scroll_home(animate=False, immediate=True)
        await pilot.pause()
        await pilot.click(inspector.table, offset=(2, 2))  # the header, then row 0, then row 1
        await pilot.pause()
        assert inspector.detail.text == inspected.texts.text_for(second)  # the detail follows the cursor
        assert app.selected == ["tool:read"]
        await pilot.click(inspector.table, offset=(2, 2))  # a click on the cursor row selects it
        await pilot.pause()
        assert app.selected == ["tool:read", second]
        assert inspector.query_one("#inspector-detail", TextArea).read_only


async def test_s_toggles_largest_first_and_keeps_the_cursor_row(tmp_path: Path) -> None:
    inspected = inspect(await run_session(tmp_path))
    app = InspectorHost(inspected)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        inspector = app.query_one(ContextInspector)
        inspector.table.focus()
        await pilot.press("down", "down")
        cursor_key = table_keys(inspector)[2]
        await pilot.press("s")
        await pilot.pause()
        biggest = table_rows(inspected.data, inspected.texts, largest_first=True)
        assert table_keys(inspector) == [row.key for row in biggest]
        assert table_keys(inspector)[inspector.table.cursor_row] == cursor_key
        await pilot.press("s")
        await pilot.pause()
        assert table_keys(inspector) == [row.key for row in table_rows(inspected.data, inspected.texts)]


async def test_a_giant_text_is_capped_in_the_detail(tmp_path: Path) -> None:
    huge = "line of text\n" * 5_000
    texts = segment_texts("", [], [UserMessage(content=huge, timestamp=1)], ["u1"])
    data = inspect(await run_session(tmp_path)).data
    app = InspectorHost()
    async with app.run_test(size=SIZE) as pilot:
        inspector = app.query_one(ContextInspector)
        inspector.show(data, texts)
        inspector.select_row("message:u1")
        await pilot.pause()
        assert len(inspector.detail.text) == 40_000
        assert "Showing the first 40,000 of 65,007 characters." in str(inspector.detail_title.render())


async def test_estimate_and_drift_alert_in_the_pane_after_a_compaction(tmp_path: Path) -> None:
    session = await run_session(
        tmp_path,
        [ScriptedReply(text="ok", usage=ScriptedUsage(input=900)), *[ScriptedReply(text="## Goal")] * 3],
        COMPACTABLE,
    )
    await session.set_active_tools(["read", "bash"])
    await session.prompt("again")
    assert (await session.compact()).ok  # inline tried, then pi's two calls (the cut splits a turn)
    inspected = inspect(session)
    app = InspectorHost(inspected)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        inspector = app.query_one(ContextInspector)
        headline = str(inspector.headline.render())
        assert headline.startswith(f"Context {inspected.data.geometry.used_tokens:,} / 32,000 (")
        assert "all estimated" in headline.split("\n")[0]
        drift = str(inspector.drift.render())
        # The summary calls were requests too: the tools' change is the drift one request back.
        assert "Drift 1 request ago: the system prompt changed (its tools part)" in drift
        assert inspector.drift.has_class("-drifted")
        assert table_keys(inspector)[
            len(inspected.data.prefix.segments if inspected.data.prefix else ())
        ] == ("message:compaction-summary")


async def test_a_narrow_pane_drops_the_preview_column(tmp_path: Path) -> None:
    inspected = inspect(await run_session(tmp_path))
    app = InspectorHost(inspected, pane_width=36)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        inspector = app.query_one(ContextInspector)
        assert inspector.has_class("-narrow")
        assert [c.label.plain for c in inspector.table.columns.values()] == ["zone", "name", "tokens"]
        assert inspector.table.row_count == len(table_rows(inspected.data, inspected.texts))
        assert app.query_one(BudgetBar).size.width == 34


# --- snapshots ------------------------------------------------------------------------------------


def snapshot_app(tmp_path: Path, theme: str) -> InspectorHost:
    session = asyncio.run(run_session(tmp_path))
    app = InspectorHost(inspect(session, fixed_prefix=True))
    app.theme = theme
    return app


async def select_tool_row(pilot: Pilot[Any]) -> None:
    await pilot.pause()
    inspector = pilot.app.query_one(ContextInspector)
    inspector.select_row("tool:read")
    pilot.app.screen.set_focus(None)
    await pilot.pause()


@pytest.mark.parametrize("theme", THEMES)
def test_snapshot(snap_compare: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, theme: str) -> None:
    # The figures are calibrated by the recorded requests, which hold the real prompt.
    fix_prompt_place_and_day(monkeypatch)
    assert snap_compare(snapshot_app(tmp_path, theme), terminal_size=SIZE, run_before=select_tool_row)
