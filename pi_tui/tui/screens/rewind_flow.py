"""The rewind's questions in the app, one collaborator for every door to it: `/rewind` (a point on any
branch, then files, conversation or both), a tree move or a compaction restore ("bring the files
along?"), and the Tools pane's "restore this file to before". The session plans and applies; this only
asks, in the order: what, then the list and diff, then whether to overwrite conflicts."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from textual.app import App

from pi_tui.session.rewind import RewindMode, RewindPlan, RewindPoint
from pi_tui.session_file.tree_listing import FILES_GONE_NOTE
from pi_tui.tui.screens.dialogs import ChoiceDialog
from pi_tui.tui.screens.rewind_dialog import RewindDialog

if TYPE_CHECKING:
    from pi_tui.session.agent_session import AgentSession

MODE_CHOICES: list[tuple[str, str]] = [
    ("both", "Restore files and conversation"),
    ("conversation", "Restore conversation only"),
    ("files", "Restore files only (the conversation stays here)"),
]

UNDO_ID = "undo-last-rewind"
UNDO_LABEL = "↶ Undo the last rewind (its files as they were before it)"

MODES: dict[str, RewindMode] = {"both": "both", "conversation": "conversation", "files": "files"}


def point_label(point: RewindPoint) -> str:
    flat = " ".join(point.text.split())
    text = flat if len(flat) <= 70 else flat[:69] + "…"
    where = "• " if point.on_current_branch else "  "
    gone = f"  {FILES_GONE_NOTE}" if not point.restorable else ""
    return f"{where}{text}{gone}"


class RewindFlow:
    """Asks through `app`'s dialogs; `start` runs the session calls in the screen's worker group."""

    def __init__(
        self,
        app: App[object],
        session: Callable[[], AgentSession],
        start: Callable[[Awaitable[None]], None],
        editor_text: Callable[[str], None],
        notify: Callable[[str], None],
    ) -> None:
        self.app = app
        self.session = session
        self.start = start
        self.editor_text = editor_text
        self.notify = notify

    async def choose_point(self) -> None:
        points = await self.session().rewind_points()
        undo = await self.session().plan_undo_rewind()
        if not points:
            self.notify("No user message to rewind to yet.")
            return
        options = [(point.entry_id, point_label(point)) for point in reversed(points)]
        if undo is not None and undo.files:
            # First: what a user who just rewound by mistake wants (hand edits it overwrote included).
            options.insert(0, (UNDO_ID, UNDO_LABEL))
        hint = "• on the current branch. The state before the message is restored."
        self.app.push_screen(
            ChoiceDialog("Rewind to before…", options, hint=hint), callback=self._point_chosen
        )

    def _point_chosen(self, entry_id: str | None) -> None:
        if entry_id is None:
            return
        if entry_id == UNDO_ID:
            self.start(self.undo_last_rewind())
            return

        def mode_chosen(answer: str | None) -> None:
            mode = MODES.get(answer or "")
            if mode is not None:
                self.start(self._rewind(entry_id, mode))

        self.app.push_screen(ChoiceDialog("Rewind", MODE_CHOICES, filterable=False), callback=mode_chosen)

    async def _rewind(self, entry_id: str, mode: RewindMode) -> None:
        session = self.session()
        if mode == "conversation":
            result = await session.rewind(entry_id, "conversation")
            if result.editor_text:
                self.editor_text(result.editor_text)
            return
        plan = await session.plan_rewind(entry_id)

        async def apply(overwrite: frozenset[str]) -> None:
            result = await session.rewind(entry_id, mode, plan=plan, chosen_conflicts=set(overwrite))
            if result.editor_text:
                self.editor_text(result.editor_text)
            if result.outcome is not None:
                self._report(
                    result.outcome.restored, [i.path for i in result.outcome.left], result.outcome.failed
                )

        if not plan.files and mode == "both":
            await apply(frozenset())
            return
        self._ask(plan, "Rewind: these files change", apply)

    async def undo_last_rewind(self) -> None:
        """The last rewind's files back as they were before it; the conversation stays where it is."""
        plan = await self.session().plan_undo_rewind()
        if plan is None:
            self.notify("No rewind on this branch to undo.")
            return

        async def apply(overwrite: frozenset[str]) -> None:
            outcome = await self.session().restore_files(plan, chosen_conflicts=set(overwrite))
            self._report(outcome.restored, [i.path for i in outcome.left], outcome.failed)

        self._ask(plan, "Undo the last rewind", apply)

    async def restore_files_of(self, entry_id: str) -> None:
        """From the tree: the files as at `entry_id`, the conversation staying where it is."""
        await self._rewind(entry_id, "files")

    async def offer_files_at_leaf(self, previous_leaf: str | None, title: str) -> None:
        """After a tree move or a compaction restore: bring the files to the new point?"""
        plan = await self.session().plan_files_at_leaf(previous_leaf)
        if not plan.files:
            return

        async def apply(overwrite: frozenset[str]) -> None:
            outcome = await self.session().restore_files(plan, chosen_conflicts=set(overwrite))
            self._report(outcome.restored, [i.path for i in outcome.left], outcome.failed)

        self._ask(plan, title, apply)

    async def restore_before(self, tool_call_id: str) -> None:
        """The Tools pane's action: the files of one call as they were before it."""
        plan = await self.session().plan_restore_before(tool_call_id)
        if plan is None:
            self.notify("This call kept no file checkpoint.")
            return
        if not plan.files:
            self.notify("The files are already as they were before this call.")
            return

        async def apply(overwrite: frozenset[str]) -> None:
            outcome = await self.session().restore_files(plan, chosen_conflicts=set(overwrite))
            self._report(outcome.restored, [i.path for i in outcome.left], outcome.failed)

        self._ask(plan, "Restore to before this call", apply)

    def _ask(
        self,
        plan: RewindPlan,
        title: str,
        apply: Callable[[frozenset[str]], Awaitable[None]],
    ) -> None:
        if not plan.files:
            self.notify("The files are already as they were at that point.")
            return

        def answered(answer: frozenset[str] | None) -> None:
            if answer is not None:
                self.start(apply(answer))

        self.app.push_screen(RewindDialog(title, plan), callback=answered)

    def _report(self, restored: list[str], left: list[str], failed: list[tuple[str, str]]) -> None:
        parts = [f"Restored {len(restored)} file(s)."]
        if left:
            parts.append(f"Left as they are: {', '.join(left)}.")
        if failed:
            parts.append("Not restored: " + "; ".join(f"{path} ({why})" for path, why in failed) + ".")
        self.notify(" ".join(parts))
