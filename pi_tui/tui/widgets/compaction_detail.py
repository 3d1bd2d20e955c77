"""One compaction in detail: its summary, the diff to the previous summary, the loss audit with pin
toggles, and the preview of the next compaction.

Renders `CompactionDetailData` handed down by the screen; a pin toggle is posted as
`CompactionDetail.PinToggled` and shown at once (the screen writes the pin and may hand fresh data
down later).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widget import Widget
from textual.widgets import ListItem, ListView, Markdown, Static, TabbedContent, TabPane

from pi_tui.tui.timeline_view import AuditRow, CompactionDetailData, NextCompaction
from pi_tui.tui.widgets.markdown_view import MarkdownView

PIN_MARK = "◆"
NO_SELECTION = "Select a compaction to see its summary, diff and loss audit."

TAB_SUMMARY = "tab-summary"
TAB_DIFF = "tab-diff"
TAB_AUDIT = "tab-audit"
TAB_NEXT = "tab-next"


def audit_label(row: AuditRow) -> str:
    state = "kept   " if row.survives else "MISSING"
    pin = PIN_MARK if row.pinned else " "
    return f"{pin} {state}  {row.kind:<7}  {row.text}  ({row.count}×)"


class AuditEntry(ListItem):
    """One loss-audit item; `-missing` and `-pinned` classes carry its state to the stylesheet."""

    def __init__(self, row: AuditRow) -> None:
        super().__init__(classes="audit-entry")
        self.row = row
        self._label = Static(audit_label(row), markup=False)
        self.set_class(not row.survives, "-missing")
        self.set_class(row.pinned, "-pinned")

    def compose(self) -> ComposeResult:
        yield self._label

    def set_pinned(self, pinned: bool) -> None:
        self.row = replace(self.row, pinned=pinned)
        self._label.update(audit_label(self.row))
        self.set_class(pinned, "-pinned")


class CompactionDetail(Vertical):
    """Facts line, then tabs: Summary (Markdown), Diff, Audit, Next (the preview)."""

    DEFAULT_CSS = """
    CompactionDetail { height: 1fr; }
    CompactionDetail #detail-facts { color: $text-muted; padding: 0 1; height: auto; }
    CompactionDetail #detail-tabs { height: 1fr; }
    CompactionDetail TabPane { padding: 0; }
    CompactionDetail .detail-scroll { height: 1fr; }
    CompactionDetail .diff-heading { text-style: bold; margin-top: 1; color: $primary; }
    CompactionDetail .diff-heading.-added { color: $success; }
    CompactionDetail .diff-heading.-removed { color: $error; }
    CompactionDetail .diff-line { text-wrap: nowrap; text-overflow: ellipsis; }
    CompactionDetail .diff-add { color: $success; background: $success 10%; }
    CompactionDetail .diff-remove { color: $error; background: $error 10%; }
    CompactionDetail .diff-hunk { color: $secondary; }
    CompactionDetail .diff-context { color: $text-muted; }
    CompactionDetail .muted { color: $text-muted; }
    CompactionDetail #audit-note { padding: 0 1; height: auto; }
    CompactionDetail #audit-list { height: 1fr; }
    CompactionDetail .audit-entry Static { text-wrap: nowrap; text-overflow: ellipsis; }
    CompactionDetail .audit-entry.-missing Static { color: $error; text-style: bold; }
    CompactionDetail .audit-entry.-pinned Static { color: $warning; }
    CompactionDetail .preview-fact { padding: 0 1; }
    CompactionDetail .preview-paused { padding: 0 1 1 1; color: $warning; }
    CompactionDetail .preview-row { text-wrap: nowrap; padding: 0 1; }
    CompactionDetail .preview-summarised, CompactionDetail .preview-prefix { color: $text-muted; }
    CompactionDetail .preview-kept { color: $text; }
    """

    BINDINGS = [
        Binding("p", "toggle_pin", "Pin", tooltip="Pin or unpin the audit item"),
        Binding("space", "toggle_pin", "Pin item", show=False),
    ]

    @dataclass
    class PinToggled(Message):
        """The user pinned (`pinned`) or unpinned an audit item of the shown compaction."""

        kind: str
        text: str
        entry_id: str
        pinned: bool

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.data: CompactionDetailData | None = None
        """What is shown (None: nothing selected)."""

    def compose(self) -> ComposeResult:
        yield Static(NO_SELECTION, id="detail-facts", markup=False)
        with TabbedContent(id="detail-tabs", initial=TAB_SUMMARY):
            with TabPane("Summary", id=TAB_SUMMARY), VerticalScroll(classes="detail-scroll"):
                yield MarkdownView("", id="summary-markdown")
            with TabPane("Diff", id=TAB_DIFF):
                yield VerticalScroll(id="diff-lines", classes="detail-scroll")
            with TabPane("Audit", id=TAB_AUDIT):
                yield Static("", id="audit-note", markup=False)
                yield ListView(id="audit-list")
            with TabPane("Next", id=TAB_NEXT):
                yield VerticalScroll(id="preview-lines", classes="detail-scroll")

    def show(self, data: CompactionDetailData | None) -> None:
        """Render one compaction (None: the no-selection hint and an empty detail)."""
        self.data = data
        facts = self.query_one("#detail-facts", Static)
        if data is None:
            facts.update(NO_SELECTION)
            self.query_one("#summary-markdown", Markdown).update("")
            self.query_one("#diff-lines", VerticalScroll).remove_children()
            self.query_one("#audit-note", Static).update("")
            self.query_one("#audit-list", ListView).clear()
            return
        facts.update("  ".join(f"{name}: {value}" for name, value in data.facts))
        self.query_one("#summary-markdown", Markdown).update(data.summary)
        self._show_diff(data)
        self._show_audit(data)
        self.show_preview(data.preview)

    def _show_diff(self, data: CompactionDetailData) -> None:
        widgets: list[Widget] = []
        if not data.diff:
            widgets.append(Static("No differences to the previous summary.", classes="muted"))
        for section in data.diff:
            widgets.append(
                Static(
                    f"{section.heading} ({section.status})",
                    classes=f"diff-heading -{section.status}",
                    markup=False,
                )
            )
            widgets += [
                Static(line.text, classes=f"diff-line diff-{line.kind}", markup=False)
                for line in section.lines
            ]
        if data.unchanged:
            widgets.append(
                Static(
                    "Unchanged: " + ", ".join(data.unchanged), classes="muted diff-unchanged", markup=False
                )
            )
        container = self.query_one("#diff-lines", VerticalScroll)
        container.remove_children()
        container.mount_all(widgets)

    def _show_audit(self, data: CompactionDetailData) -> None:
        self.query_one("#audit-note", Static).update(
            data.audit_note if data.audit else "Nothing extracted from the summarised span."
        )
        audit_list = self.query_one("#audit-list", ListView)
        audit_list.clear()
        audit_list.extend(AuditEntry(row) for row in data.audit)

    def show_preview(self, preview: NextCompaction) -> None:
        """Render the next compaction's preview (also refreshed alone, on request)."""
        widgets: list[Widget] = []
        if preview.paused is not None:
            widgets.append(Static(preview.paused, classes="preview-paused", markup=False))
        if preview.unavailable is not None:
            widgets.append(
                Static(f"No compaction possible: {preview.unavailable}", classes="muted", markup=False)
            )
        widgets += [
            Static(f"{name}: {value}", classes="preview-fact", markup=False) for name, value in preview.facts
        ]
        widgets += [
            Static(
                f"{row.kind:<10}  {row.entry_id}  {row.role:<17} {row.tokens:>7,}",
                classes=f"preview-row preview-{row.kind}",
                markup=False,
            )
            for row in preview.rows
        ]
        if preview.more_rows:
            widgets.append(Static(f"… {preview.more_rows} more", classes="muted"))
        container = self.query_one("#preview-lines", VerticalScroll)
        container.remove_children()
        container.mount_all(widgets)

    def show_tab(self, tab_id: str) -> None:
        self.query_one("#detail-tabs", TabbedContent).active = tab_id

    def action_toggle_pin(self) -> None:
        """Flip the pin of the highlighted audit item (only while the Audit tab is shown)."""
        if self.query_one("#detail-tabs", TabbedContent).active != TAB_AUDIT:
            return
        entry = self.query_one("#audit-list", ListView).highlighted_child
        if not isinstance(entry, AuditEntry):
            return
        pinned = not entry.row.pinned
        entry.set_pinned(pinned)
        self.post_message(self.PinToggled(entry.row.kind, entry.row.text, entry.row.entry_id, pinned))
