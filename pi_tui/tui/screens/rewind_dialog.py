"""The rewind's last question: the files it would change, each with its diff, conflicts marked, then
restore (conflicts left as they are), restore overwriting the conflicts, or Esc to keep everything."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from pi_tui.session.rewind import RewindPlan
from pi_tui.tui.screens.dialog import Dialog

RESTORE, OVERWRITE = "restore", "overwrite"
ACTION_WORDS = {
    "restore": "restore",
    "delete": "delete",
    "conflict": "CONFLICT (changed outside pi-tui since)",
    "unavailable": "cannot restore",
}


def plan_lines(plan: RewindPlan) -> list[str]:
    """The plan as the dialog and `pi-tui rewind` show it: one line per file, then its diff."""
    lines: list[str] = []
    for item in plan.files:
        reason = f" ({item.reason})" if item.reason else ""
        lines.append(f"{ACTION_WORDS[item.action]}  {item.path}{reason}")
        lines.extend(f"    {line}" for line in item.diff)
    lines.extend(f"note: {warning}" for warning in plan.warnings)
    return lines


class RewindDialog(Dialog[str | None]):
    """Answers `RESTORE`, `OVERWRITE` (conflicts too) or None (Esc: nothing written)."""

    DEFAULT_CSS = """
    RewindDialog #rewind-plan { height: auto; max-height: 100%; margin: 0 0 1 0; }
    RewindDialog #rewind-choices { dock: bottom; height: auto; margin: 0 0 1 0; }
    """

    def __init__(self, title: str, plan: RewindPlan) -> None:
        super().__init__(title)
        self.plan = plan

    def compose_body(self) -> ComposeResult:
        changes, conflicts = len(self.plan.changes), len(self.plan.conflicts)
        options = [
            Option(
                Content(f"Restore {changes} file(s)" + (", leave the conflicts" if conflicts else "")),
                id=RESTORE,
            )
        ]
        if conflicts:
            options.append(
                Option(Content(f"Restore and overwrite {conflicts} conflict(s) too"), id=OVERWRITE)
            )
        yield Label("Esc keeps every file as it is.", classes="dialog-hint")
        yield OptionList(*options, id="rewind-choices")
        with VerticalScroll(id="rewind-plan"):
            yield Static("\n".join(plan_lines(self.plan)) or "No file to change.", markup=False)

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.focus()
        options.highlighted = 0

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)
