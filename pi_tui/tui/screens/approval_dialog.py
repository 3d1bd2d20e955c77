"""Approval mode's question: may this bash, write or edit call run? y / n / a (always), Esc = no."""

from __future__ import annotations

import difflib
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Label, Static

from pi_tui.session.approval import ApprovalAnswer
from pi_tui.tui.screens.dialog import Dialog

PREVIEW_LINES = 40
"""Lines of a command, a written file or a diff shown in the dialog; the rest is counted, not shown."""


def _clip(lines: list[str]) -> list[str]:
    if len(lines) <= PREVIEW_LINES:
        return lines
    return [*lines[:PREVIEW_LINES], f"… {len(lines) - PREVIEW_LINES} more lines"]


def edit_diff_lines(edits: list[dict[str, Any]]) -> list[str]:
    """Each edit's old → new text as unified-diff lines (no file read: the dialog does no I/O)."""
    lines: list[str] = []
    for number, edit in enumerate(edits, start=1):
        old = str(edit.get("oldText", "")).splitlines()
        new = str(edit.get("newText", "")).splitlines()
        diff = difflib.unified_diff(old, new, lineterm="", n=1)
        body = [line for line in diff if not line.startswith(("---", "+++", "@@"))]
        removed = sum(1 for line in body if line.startswith("-"))
        added = sum(1 for line in body if line.startswith("+"))
        lines += [f"@@ edit {number} of {len(edits)}: -{removed} +{added} lines", *body]
    return lines


def call_details(tool_name: str, args: dict[str, Any]) -> tuple[str, list[str]]:
    """(what is touched, the lines that show how) for the dialog body."""
    if tool_name == "bash":
        timeout = args.get("timeout")
        subject = "command" + (f" (timeout {timeout} s)" if timeout else "")
        return (subject, str(args.get("command", "")).splitlines())
    path = str(args.get("path", ""))
    if tool_name == "write":
        content = str(args.get("content", "")).splitlines()
        return (f"write {path} ({len(content)} lines)", content)
    if tool_name == "edit":
        edits = args.get("edits")
        items = [edit for edit in edits if isinstance(edit, dict)] if isinstance(edits, list) else [args]
        return (f"edit {path}", edit_diff_lines(items))
    return (tool_name, [f"{key}: {value}" for key, value in args.items()])


class ApprovalDialog(Dialog[ApprovalAnswer]):
    """Dismissed with "yes", "no" or "always" (this tool, for the rest of the session)."""

    DEFAULT_CSS = """
    ApprovalDialog .approval-subject { text-style: bold; }
    ApprovalDialog VerticalScroll { background: $panel; }
    ApprovalDialog .dialog-hint { padding: 1 0 0 0; }
    """
    DEFAULT_CLASSES = "-warning"
    BINDINGS = [
        Binding("y", "answer('yes')", "Yes"),
        Binding("n", "answer('no')", "No"),
        Binding("a", "answer('always')", "Always"),
        Binding("escape", "answer('no')", "No", show=False),
    ]

    def __init__(self, tool_name: str, args: dict[str, Any], *, shell: str | None = None) -> None:
        """`shell`: for a command, the shell and prefix it will run with (`describe_shell`)."""
        super().__init__(f"Allow this {tool_name} call?")
        self.tool_name = tool_name
        self.args = args
        self.shell = shell

    def compose_body(self) -> ComposeResult:
        subject, lines = call_details(self.tool_name, self.args)
        yield Static(subject, classes="approval-subject", markup=False)
        if self.shell is not None:
            yield Static(self.shell, id="approval-shell", markup=False)

        with VerticalScroll():
            yield Static("\n".join(_clip(lines)) or "(empty)", id="approval-body", markup=False)
        yield Label(
            f"y: yes · n / Esc: no (the model is told) · a: always allow {self.tool_name} this session",
            classes="dialog-hint",
        )

    def action_answer(self, answer: ApprovalAnswer) -> None:
        self.dismiss(answer)
