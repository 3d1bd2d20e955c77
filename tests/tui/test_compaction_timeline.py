"""The compaction timeline pane: the pure view builders on a real pi session with three compactions,
Pilot interactions in a tiny host app, and two SVG snapshots (dark, light)."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from textual import on
from textual.app import ComposeResult
from textual.message import Message
from textual.pilot import Pilot
from textual.widgets import DataTable, ListView, Markdown, Static, TabbedContent

from pi_tui.config.settings import CompactionSettings
from pi_tui.session.compaction_ops import PreviewBasis, restore_before
from pi_tui.session.compaction_pins import pin_text
from pi_tui.session_file.store import SessionStore
from pi_tui.tui.screens.recompact_dialog import RecompactDialog
from pi_tui.tui.themed_app import ThemedApp
from pi_tui.tui.timeline_view import (
    ON_BRANCH_MARKER,
    detail_for,
    preview_for,
    summary_markdown,
    timeline_rows,
)
from pi_tui.tui.widgets.compaction_detail import (
    TAB_AUDIT,
    TAB_DIFF,
    TAB_NEXT,
    TAB_SUMMARY,
    AuditEntry,
    CompactionDetail,
)
from pi_tui.tui.widgets.compaction_timeline import CompactionTimeline

from .pilot_helpers import settle

SIZE = (120, 40)
THEMES = ["pi-dark", "pi-light"]
FIXTURE = "c-auto-compaction.jsonl"
FIRST, SECOND, THIRD = "4db33679", "f66ec6cb", "25ab72d3"
SETTINGS = CompactionSettings(keep_recent_tokens=2000)
BASIS = PreviewBasis(SETTINGS)


@pytest.fixture
def session_file(tmp_path: Path, pi_fixtures: Path) -> Path:
    target = tmp_path / FIXTURE
    shutil.copy(pi_fixtures / "pi-sessions" / FIXTURE, target)
    return target


@pytest.fixture
def store(session_file: Path) -> SessionStore:
    return SessionStore.open(session_file)


# --- timeline_view (pure) -------------------------------------------------------------------------


def test_rows_list_every_compaction_in_file_order(store: SessionStore) -> None:
    rows = timeline_rows(store)
    assert [row.compaction_id for row in rows] == [FIRST, SECOND, THIRD]
    assert all(row.branch == ON_BRANCH_MARKER for row in rows)
    assert rows[0].time == "11-29 23:15"  # to the minute: the detail has the seconds
    assert rows[0].tokens == "9,400 → ?"
    assert (rows[0].reason, rows[0].model, rows[0].audit) == ("unknown", "—", "1/3")


def test_rows_mark_compactions_left_behind_by_a_restore(store: SessionStore) -> None:
    assert restore_before(store, SECOND).error is None
    rows = timeline_rows(store)
    assert [row.branch for row in rows] == [ON_BRANCH_MARKER, "", ""]


def test_rows_show_pi_tui_details(store: SessionStore) -> None:
    details = {
        "requestTokensBefore": 9800,
        "requestTokensAfter": 2450,
        "model": "local/qwen",
        "reason": "threshold",
    }
    entry = store.append_compaction("## Goal\nship it", THIRD, 9400, details, from_hook=False)
    row = timeline_rows(store)[-1]
    assert row.compaction_id == entry.id
    assert (row.reason, row.model, row.tokens) == ("threshold", "local/qwen", "~9,800 → ~2,450 (-75%)")


def test_an_old_messages_only_figure_is_not_compared_with_the_whole_request(store: SessionStore) -> None:
    # Entries written before both sides measured the whole request kept the messages alone after.
    details = {"tokensAfter": 2350, "model": "local/qwen", "reason": "threshold"}
    store.append_compaction("## Goal\nship it", THIRD, 9400, details, from_hook=False)
    assert timeline_rows(store)[-1].tokens == "9,400 → ?"


def test_detail_diffs_against_the_previous_summary(store: SessionStore) -> None:
    detail = detail_for(store, SECOND, BASIS)
    assert detail is not None
    progress = next(section for section in detail.diff if section.heading == "## Progress")
    assert progress.status == "changed"
    kinds = {line.text: line.kind for line in progress.lines}
    assert kinds["-- [x] Reviewed log chunks 1-4: E1001 upstream timeout in chunk 3"] == "remove"
    assert kinds["+- [x] Reviewed log chunks 1-8: E1001 in chunk 3, E2002 disk full in chunk 7"] == "add"
    assert not any(line.text.startswith(("--- ", "+++ ")) for line in progress.lines)
    assert "## Goal" in detail.unchanged
    assert ("Id", SECOND) in detail.facts


def test_detail_summary_turns_file_tags_into_markdown(store: SessionStore) -> None:
    detail = detail_for(store, SECOND, BASIS)
    assert detail is not None
    assert "<read-files>" not in detail.summary
    assert "### Read files\n\n- `docs/errors.md`\n- `notes.txt`" in detail.summary
    assert summary_markdown("no tags") == "no tags"


def test_detail_audit_marks_missing_and_pinned_items(store: SessionStore) -> None:
    before = detail_for(store, FIRST, BASIS)
    assert before is not None
    missing = [row for row in before.audit if not row.survives]
    assert [(row.kind, row.text) for row in missing] == [("number", "38 bytes")]
    assert before.audit_note == "1 of 3 items missing from the summary"
    pin_text(store, "number", "38 bytes")
    after = detail_for(store, FIRST, BASIS)
    assert after is not None
    assert [row.text for row in after.audit if row.pinned] == ["38 bytes"]


def test_detail_previews_the_next_compaction(store: SessionStore) -> None:
    detail = detail_for(store, THIRD, BASIS)
    assert detail is not None
    facts = dict(detail.preview.facts)
    assert facts["Cut before"] == "ae2f91a2"
    assert facts["Summarised"].startswith("4 messages")
    assert [row.kind for row in detail.preview.rows].count("kept") == 4


def test_preview_of_an_empty_session_says_why_not(tmp_path: Path) -> None:
    nothing = preview_for(SessionStore.in_memory(str(tmp_path)), BASIS)
    assert nothing.unavailable and nothing.rows == ()


def test_detail_of_a_non_compaction_is_none(store: SessionStore) -> None:
    assert detail_for(store, "missing", BASIS) is None
    assert detail_for(store, store.entries[0].id, BASIS) is None


# --- the pane in a host app -----------------------------------------------------------------------


class TimelineHost(ThemedApp[None]):
    """Plays the screen's part: hands rows and details down, records the pane's messages."""

    def __init__(self, store: SessionStore) -> None:
        super().__init__()
        self.store = store
        self.received: list[Message] = []

    def compose(self) -> ComposeResult:
        yield CompactionTimeline(id="timeline")

    def on_mount(self) -> None:
        self.query_one(CompactionTimeline).show(timeline_rows(self.store))

    @on(CompactionTimeline.CompactionSelected)
    def _load(self, event: CompactionTimeline.CompactionSelected) -> None:
        self.received.append(event)
        self.query_one(CompactionTimeline).show_detail(detail_for(self.store, event.compaction_id, BASIS))

    @on(CompactionTimeline.RestoreRequested)
    @on(CompactionTimeline.RecompactRequested)
    @on(CompactionTimeline.PreviewRequested)
    @on(CompactionTimeline.PinToggled)
    def _record(self, event: Message) -> None:
        self.received.append(event)

    def of(self, kind: type[Message]) -> list[Any]:
        return [message for message in self.received if isinstance(message, kind)]


async def test_selection_loads_the_detail(store: SessionStore) -> None:
    app = TimelineHost(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        timeline = app.query_one(CompactionTimeline)
        assert timeline.row_ids == [FIRST, SECOND, THIRD]
        assert app.of(CompactionTimeline.CompactionSelected)[-1].compaction_id == FIRST
        timeline.table.focus()
        await pilot.press("down")
        await settle(pilot)
        assert timeline.selected_id == SECOND
        facts = str(app.query_one("#detail-facts", Static).render())
        assert f"Id: {SECOND}" in facts
        markdown = app.query_one("#summary-markdown", Markdown)
        assert markdown.source.startswith("## Goal")
        assert timeline.select(THIRD)
        await settle(pilot)
        assert app.of(CompactionTimeline.CompactionSelected)[-1].compaction_id == THIRD
        assert not timeline.select("nope")


async def test_r_requests_a_restore_of_the_selected_compaction(store: SessionStore) -> None:
    app = TimelineHost(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.query_one(CompactionTimeline).table.focus()
        await pilot.press("down", "r")
        await settle(pilot)
        assert [message.compaction_id for message in app.of(CompactionTimeline.RestoreRequested)] == [SECOND]


async def test_c_asks_for_instructions_then_requests_a_recompaction(store: SessionStore) -> None:
    app = TimelineHost(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.query_one(CompactionTimeline).table.focus()
        await pilot.press("c")
        await settle(pilot)
        assert isinstance(app.screen, RecompactDialog)
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, RecompactDialog)
        assert app.of(CompactionTimeline.RecompactRequested) == []
        await pilot.press("c", *"keep errors", "enter")
        await settle(pilot)
        await pilot.press("c", "enter")
        await settle(pilot)
        requested = app.of(CompactionTimeline.RecompactRequested)
        assert [(item.compaction_id, item.instructions) for item in requested] == [
            (FIRST, "keep errors"),
            (FIRST, None),
        ]


async def test_v_shows_the_preview_and_requests_a_fresh_one(store: SessionStore) -> None:
    app = TimelineHost(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.query_one(CompactionTimeline).table.focus()
        await pilot.press("v")
        await settle(pilot)
        assert len(app.of(CompactionTimeline.PreviewRequested)) == 1
        assert app.query_one("#detail-tabs", TabbedContent).active == TAB_NEXT
        rows = app.query(".preview-row").results(Static)
        texts = [str(row.render()) for row in rows]
        assert any(text.startswith("summarised  62859023") for text in texts)
        assert len(app.query(".preview-kept")) == 4


async def test_each_tab_has_its_own_key(store: SessionStore) -> None:
    app = TimelineHost(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.query_one(CompactionTimeline).table.focus()
        shown = []
        for key in ("d", "a", "n", "s"):
            await pilot.press(key)
            await settle(pilot)
            shown.append(app.query_one("#detail-tabs", TabbedContent).active)
        assert shown == [TAB_DIFF, TAB_AUDIT, TAB_NEXT, TAB_SUMMARY]
        assert len(app.of(CompactionTimeline.PreviewRequested)) == 1  # the Next tab is a fresh preview


async def test_diff_lines_carry_their_classes(store: SessionStore) -> None:
    app = TimelineHost(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.query_one(CompactionTimeline).select(SECOND)
        await settle(pilot)
        app.query_one(CompactionDetail).show_tab(TAB_DIFF)
        await settle(pilot)
        added = [str(item.render()) for item in app.query(".diff-add").results(Static)]
        removed = [str(item.render()) for item in app.query(".diff-remove").results(Static)]
        assert "+- [x] Looked up E2002 in docs/errors.md (disk quota on /var/lib/widget)" in added
        assert "-1. Continue with log chunk 5" in removed
        headings = [str(item.render()) for item in app.query(".diff-heading").results(Static)]
        assert "## Progress (changed)" in headings


async def test_p_and_space_toggle_a_pin_on_the_audit_item(store: SessionStore) -> None:
    app = TimelineHost(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        detail = app.query_one(CompactionDetail)
        detail.show_tab(TAB_AUDIT)
        await settle(pilot)
        entries = list(app.query(AuditEntry).results(AuditEntry))
        assert [entry.has_class("-missing") for entry in entries] == [False, False, True]
        audit_list = app.query_one("#audit-list", ListView)
        audit_list.focus()
        audit_list.index = 2
        await pilot.press("p")
        await settle(pilot)
        await pilot.press("space")
        await settle(pilot)
        toggles = app.of(CompactionTimeline.PinToggled)
        assert [(item.kind, item.text, item.pinned) for item in toggles] == [
            ("number", "38 bytes", True),
            ("number", "38 bytes", False),
        ]
        assert toggles[0].entry_id == entries[2].row.entry_id
        await pilot.press("p")
        await settle(pilot)
        assert entries[2].has_class("-pinned")


async def test_pin_key_does_nothing_outside_the_audit_tab(store: SessionStore) -> None:
    app = TimelineHost(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.query_one("#audit-list", ListView).index = 0
        app.query_one(CompactionDetail).focus()
        await pilot.press("p")
        await settle(pilot)
        assert app.of(CompactionTimeline.PinToggled) == []


async def test_show_updates_cells_in_place(store: SessionStore, monkeypatch: pytest.MonkeyPatch) -> None:
    app = TimelineHost(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        timeline = app.query_one(CompactionTimeline)
        timeline.select(SECOND)
        await settle(pilot)
        table: DataTable[str] = timeline.table
        added: list[Any] = []
        monkeypatch.setattr(table, "add_row", lambda *cells, **kw: added.append(cells))
        monkeypatch.setattr(table, "clear", lambda *args, **kw: added.append("clear"))
        rows = timeline_rows(store)
        rows[1] = replace(rows[1], branch="", tokens="9,428 → 2,000 (-79%)")
        timeline.show(rows)
        await settle(pilot)
        assert added == []
        assert str(table.get_cell(SECOND, "tokens")) == "9,428 → 2,000 (-79%)"
        assert str(table.get_cell(SECOND, "branch")) == ""
        assert table.cursor_row == 1
        timeline.show(rows[:2])
        await settle(pilot)
        assert timeline.row_ids == [FIRST, SECOND]
        assert table.row_count == 2


async def test_an_empty_timeline_shows_the_hint(tmp_path: Path) -> None:
    app = TimelineHost(SessionStore.in_memory(str(tmp_path)))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("r", "c", "v")
        await settle(pilot)
        assert app.of(CompactionTimeline.RestoreRequested) == []
        assert not isinstance(app.screen, RecompactDialog)
        assert "Select a compaction" in str(app.query_one("#detail-facts", Static).render())


# --- snapshots ------------------------------------------------------------------------------------


async def diff_of_second(pilot: Pilot[Any]) -> None:
    await settle(pilot)
    pilot.app.query_one(CompactionTimeline).select(SECOND)
    await settle(pilot)
    pilot.app.query_one(CompactionDetail).show_tab(TAB_DIFF)
    await settle(pilot)
    pilot.app.screen.set_focus(None)
    await pilot.pause()


@pytest.mark.parametrize("theme", THEMES)
def test_timeline_snapshot(snap_compare: Any, session_file: Path, theme: str) -> None:
    app = TimelineHost(SessionStore.open(session_file))
    app.theme = theme
    assert snap_compare(app, terminal_size=SIZE, run_before=diff_of_second)
