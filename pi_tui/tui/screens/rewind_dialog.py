"""The rewind's last question: the files it would change, each with its diff, conflicts marked, then
restore (conflicts left as they are, or only the ones ticked), restore overwriting every conflict, or
Esc to keep everything."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Label, OptionList, SelectionList, Static
from textual.widgets.option_list import Option

from pi_tui.session.rewind import RewindPlan, plan_lines
from pi_tui.tui.screens.dialog import Dialog

RESTORE, OVERWRITE = "restore", "overwrite"


class RewindDialog(Dialog[frozenset[str] | None]):
    """Answers the conflicts to overwrite (empty: none, every conflict left as it is) or None (Esc:
    nothing written). A conflict is overwritten only when the user ticks it or picks "all"."""

    # One docked block under the diff (docked siblings would overlap): the choices, then the
    # conflicts to tick, then the Esc hint. Choices first, so Tab goes from them to the conflicts.
    DEFAULT_CSS = """
    RewindDialog #rewind-plan { height: auto; max-height: 100%; margin: 0 0 1 0; }
    RewindDialog #rewind-bottom { dock: bottom; height: auto; }
    RewindDialog #rewind-bottom .dialog-hint { dock: none; }
    RewindDialog #rewind-conflicts { height: auto; max-height: 6; border: none; padding: 0; }
    RewindDialog #rewind-conflicts-hint { color: $text-muted; }
    """

    def __init__(self, title: str, plan: RewindPlan) -> None:
        super().__init__(title)
        self.plan = plan

    def compose_body(self) -> ComposeResult:
        conflicts = [item.path for item in self.plan.conflicts]
        options = [Option(Content(self._restore_label(0)), id=RESTORE)]
        if conflicts:
            options.append(
                Option(Content(f"Restore and overwrite all {len(conflicts)} conflict(s)"), id=OVERWRITE)
            )
        with Vertical(id="rewind-bottom"):
            yield OptionList(*options, id="rewind-choices")
            if conflicts:
                yield Label("Or tick conflicts to overwrite (Tab, then Space):", id="rewind-conflicts-hint")
                yield SelectionList[str](*[(path, path) for path in conflicts], id="rewind-conflicts")
            yield Label("Esc keeps every file as it is.", classes="dialog-hint")
        with VerticalScroll(id="rewind-plan"):
            yield Static("\n".join(plan_lines(self.plan)) or "No file to change.", markup=False)

    def _restore_label(self, ticked: int) -> str:
        changes, conflicts = len(self.plan.changes), len(self.plan.conflicts)
        text = f"Restore {changes} file(s)"
        if ticked:
            return f"{text} and overwrite the {ticked} ticked conflict(s)"
        return text + (", leave the conflicts" if conflicts else "")

    @property
    def ticked(self) -> frozenset[str]:
        found = self.query(SelectionList)
        return frozenset(found.first().selected) if found else frozenset()

    def on_mount(self) -> None:
        options = self.query_one("#rewind-choices", OptionList)
        options.focus()
        options.highlighted = 0

    @on(SelectionList.SelectedChanged)
    def _ticked_changed(self) -> None:
        choices = self.query_one("#rewind-choices", OptionList)
        choices.replace_option_prompt(RESTORE, Content(self._restore_label(len(self.ticked))))

    @on(OptionList.OptionSelected, "#rewind-choices")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        if event.option.id == OVERWRITE:
            self.dismiss(frozenset(item.path for item in self.plan.conflicts))
        else:
            self.dismiss(self.ticked)
