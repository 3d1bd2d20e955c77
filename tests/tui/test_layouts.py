"""Readable at 80x24 and 120x36: table columns keep their content, the footer fits, F1 is one line per key
and the README lists the keys."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from textual.binding import Binding
from textual.widgets import DataTable, Footer
from textual.widgets._footer import FooterKey

from pi_tui.tui.screens.dialogs import KeysDialog
from pi_tui.tui.widgets.budget_bar import BudgetBar
from pi_tui.tui.widgets.fitted_table import FittedTable, fitted_widths
from tests.support.waiting import until

from .chat_fixtures import chat_on_pi_session
from .pilot_helpers import settle
from .screen_capture import screen_rows

SIZES = [(80, 24), (120, 36)]
SESSION = "c-auto-compaction.jsonl"
"""A pi session with three compactions and ten tool calls, some with long arguments."""
TABLES = {"f2": "#inspector-table", "f3": "#tool-list", "f4": "#timeline-table"}
SHRINKABLE = {"#inspector-table": {"preview", "name"}, "#tool-list": {"args"}, "#timeline-table": {"model"}}


@pytest.fixture
def pi_chat(tmp_path: Path, pi_fixtures: Path) -> Any:
    return chat_on_pi_session(tmp_path, pi_fixtures, SESSION)


def test_fitted_widths_cut_the_least_important_column_first() -> None:
    natural: dict[str | None, int] = {"tool": 4, "args": 40, "status": 7, "model": 15}
    assert fitted_widths(natural, [("model", 8), ("args", 12)], 100) == natural  # room enough
    assert fitted_widths(natural, [("model", 8), ("args", 12)], 60) == {**natural, "model": 9}
    # Below its minimum a column is emptied, not left as two letters and an ellipsis; the next one gives.
    assert fitted_widths(natural, [("model", 8), ("args", 12)], 50) == {**natural, "model": 0, "args": 39}
    assert fitted_widths(natural, [("model", 8), ("args", 12)], 20) == {**natural, "model": 0, "args": 0}


@pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
async def test_every_pane_table_keeps_its_columns_content_without_scrolling_sideways(
    pi_chat: Any, size: tuple[int, int]
) -> None:
    async with pi_chat.run_test(size=size) as pilot:
        await settle(pilot)
        for key, selector in TABLES.items():
            await pilot.press(key)
            await settle(pilot)
            table = pi_chat.screen.query_one(selector, FittedTable)
            await until(lambda t=table: t.row_count > 0, pilot=pilot, what=f"rows in {selector}")
            await settle(pilot)
            assert table.virtual_size.width <= table.scrollable_content_region.width, selector
            for column_key, column in table.columns.items():
                if column_key.value in SHRINKABLE[selector]:
                    continue
                assert table.column_width(str(column_key.value)) >= column.content_width, (
                    selector,
                    column_key,
                )


async def test_long_arguments_end_in_an_ellipsis_and_the_sizes_stay(pi_chat: Any) -> None:
    async with pi_chat.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("f3")
        await settle(pilot)
        table: DataTable[Any] = pi_chat.screen.query_one("#tool-list", FittedTable)
        drawn = [table.render_line(y).text for y in range(table.size.height)]
        assert drawn[0].split() == ["tool", "status", "lines", "bytes", "cut", "args"]
        assert any("docs/errors.md" in row for row in drawn)


@pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
async def test_the_footer_fits_wherever_the_focus_is(pi_chat: Any, size: tuple[int, int]) -> None:
    async with pi_chat.run_test(size=size) as pilot:
        await settle(pilot)
        for keys in [(), ("f2",), ("f3",), ("f3", "tab"), ("f4",), ("f6",)]:
            await pilot.press(*keys)
            await settle(pilot)
            await pilot.pause()
            footer = pi_chat.screen.query_one(Footer)
            # Hints with no room are hidden whole (tested below); the shown ones are drawn whole.
            footer_keys = [key for key in footer.query(FooterKey) if key.display and key.parent.display]
            palette = [key for key in footer_keys if "-command-palette" in key.classes]
            others = [key for key in footer_keys if key not in palette]
            # The palette's key only where there is room for it (ctrl+p works everywhere).
            assert len(palette) == (size[0] >= 120) and others, keys
            right = palette[0].region.x if palette else footer.region.right
            # Each key is drawn whole, left of the palette key (Textual clips what does not fit).
            for key in others:
                assert key.region.width == key.get_content_width(key.size, key.size), (keys, key.key)
                assert key.region.right <= right, (keys, key.key)


def whole_hints(app: Any) -> set[str]:
    """Every hint the screen's bindings give the footer, each a key (or a group's keys) and its label."""
    firsts: dict[str, Binding] = {}
    for _, binding, _, _ in app.screen.active_bindings.values():
        if binding.show:
            firsts.setdefault(binding.action, binding)
    hints = {f"{app.get_key_display(b)} {b.description}" for b in firsts.values() if b.group is None}
    groups = {b.group for b in firsts.values() if b.group is not None}
    for group in groups:
        keys = [app.get_key_display(b) for b in firsts.values() if b.group == group]
        hints.add(" ".join([*keys, group.description]))
    return hints


def unlabelled_part(row: str, hints: set[str]) -> str:
    """What is left of the footer's row once it is read as whole hints from the left ('' if all was)."""
    rest = " ".join(row.split())
    while rest:
        found = [hint for hint in hints if rest == hint or rest.startswith(hint + " ")]
        if not found:
            return rest
        rest = rest[len(max(found, key=len)) :].lstrip()
    return ""


async def test_at_80_columns_every_hint_shown_has_its_label(pi_chat: Any) -> None:
    async with pi_chat.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        # The completion list adds its keys (tab, esc) to the editor's: the row no longer fits.
        for keys in [(), ("slash",), ("backspace", "f3", "tab"), ("f2",), ("f4",), ("f6",)]:
            await pilot.press(*keys)
            await settle(pilot)
            await pilot.pause()
            row = screen_rows(pi_chat)[-1]
            assert unlabelled_part(row, whole_hints(pi_chat)) == "", (keys, row)
            assert row.rstrip().endswith("f1 Keys"), (keys, row)  # the way to every other key stays
        await pilot.press("f6", "slash")
        await settle(pilot)
        await pilot.pause()
        row = " ".join(screen_rows(pi_chat)[-1].split())
        assert row.startswith("⏎ Send tab Complete esc Close list f2 f3 f4 Panes"), row


LEGEND_PARTS = {
    "█": ["prefix|pre", "summary|sum", "kept", "new"],
    "░": ["free"],
    "▒": ["reserve|res"],
}


@pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
async def test_the_budget_bar_has_a_legend_naming_each_part_with_its_figure(
    pi_chat: Any, size: tuple[int, int]
) -> None:
    async with pi_chat.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("f2")
        await settle(pilot)
        await pilot.pause()
        bar = pi_chat.screen.query_one(BudgetBar)
        rows = screen_rows(pi_chat)
        left, right = bar.region.x, bar.region.right
        legend = [row[left:right] for row in rows[bar.region.y + 2 : bar.region.bottom]]  # under bar, marks
        assert legend, size
        text = " ".join(legend)
        # A figure each ("?" for a prefix not known yet, as the headline says).
        for glyph, names in LEGEND_PARTS.items():
            for name in names:
                assert re.search(rf"{glyph} (?:{name}) (?:~?[\d.,]+[kM]?|\?)(?= |$)", text), (name, legend)
        assert all(len(row.rstrip()) <= bar.region.width for row in legend)


async def test_f1_lists_one_line_per_key_without_rules(pi_chat: Any) -> None:
    async with pi_chat.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("f1")
        await until(lambda: isinstance(pi_chat.screen, KeysDialog), pilot=pilot, what="the keys dialog")
        dialog = pi_chat.screen
        assert "  /export [--full-output] [path.html|path.jsonl]  Export this branch" in dialog.text
        assert "  f6  Next pane: conversation, side panel, editor" in dialog.text
        assert "  t  Model/full" in dialog.text  # the panes' own keys, from their bindings
        drawn = "\n".join(dialog.query_one("#keys-table").render_line(y).text for y in range(30))
        assert "─" not in drawn and "│" not in drawn
        await pilot.press("f1")
        await until(lambda: not isinstance(pi_chat.screen, KeysDialog), pilot=pilot, what="F1 to close it")


def test_the_readme_keys_table_lists_every_key_of_the_chat_screen() -> None:
    from pi_tui.tui.key_help import key_name
    from pi_tui.tui.screens.chat import ChatScreen

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    keys_section = readme.split("\n## Keys\n", 1)[1].split("\n## ", 1)[0].lower()
    listed = set(re.findall(r"`([^`]+)`", keys_section))
    bindings = [b for b in ChatScreen.BINDINGS if isinstance(b, Binding) and b.description]
    missing = [b.key for b in bindings if key_name(b.key) not in listed]
    assert missing == []
