"""The chat screen's commands: one `action_*` each, reachable by slash command, key and palette.

Every action takes the text after its slash command (empty from a key or the palette). Long work
runs in workers; the core does the work, the dialogs only ask.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from textual import on, work
from textual.binding import Binding
from textual.screen import Screen

from pi_tui.ai.messages import THINKING_LEVELS
from pi_tui.config.models import load_registry, resolve_model
from pi_tui.context.compaction.preview import CompactionPreview, rows_text
from pi_tui.session.approval_switch import switch_approval
from pi_tui.session.compaction_ops import PreviewBasis, preview_for_store
from pi_tui.session.compaction_sizes import estimated, preview_size_text, size_text
from pi_tui.session.runtime import AgentSessionRuntime
from pi_tui.session_file.listing import list_sources
from pi_tui.session_file.tree_listing import TreeFilter, TreeLine, set_label, tree_lines
from pi_tui.session_file.usage_totals import usage_totals
from pi_tui.tui.key_help import help_sections
from pi_tui.tui.request_view import request_markdown
from pi_tui.tui.screens.dialogs import ChoiceDialog, InfoDialog, KeysDialog, TextDialog
from pi_tui.tui.screens.session_picker import SessionPicker
from pi_tui.tui.screens.tree_dialog import TreeDialog
from pi_tui.tui.session_info import session_info_markdown
from pi_tui.tui.theming import theme_menu
from pi_tui.tui.widgets.compaction_detail import CompactionDetail
from pi_tui.tui.widgets.compaction_timeline import CompactionTimeline
from pi_tui.tui.widgets.context_inspector import ContextInspector
from pi_tui.tui.widgets.line_view import LineView
from pi_tui.tui.widgets.prompt_area import PromptArea
from pi_tui.tui.widgets.tool_output_viewer import ToolOutputViewer

if TYPE_CHECKING:
    from pi_tui.session.agent_session import AgentSession
    from pi_tui.tui.screens.rewind_flow import RewindFlow

NO_SUMMARY, SUMMARISE, SUMMARISE_WITH_PROMPT = "none", "summarise", "custom"
FILES_ONLY = "files-only"


class ChatCommands(Screen[None]):
    """Mixed into `ChatScreen`, which supplies `runtime`, `session`, `refresh_footer`, `show_error` and
    `context_tokens`."""

    runtime: AgentSessionRuntime

    if TYPE_CHECKING:

        @property
        def context_tokens(self) -> int | None: ...

        @property
        def context_estimated(self) -> bool: ...

        def refresh_footer(self) -> None: ...

        def screen_bindings(self) -> list[Binding]: ...

        async def show_error(self, text: str) -> None: ...

    @property
    def session(self) -> AgentSession:
        return self.runtime.session

    def _start(self, work: Awaitable[None]) -> None:
        """Run a command's long part in a worker so the screen stays responsive."""
        self.run_worker(work, group="command", exit_on_error=False)

    def _later(self, handler: Callable[[str | None], Awaitable[None]]) -> Callable[[str | None], None]:
        """A dialog callback that hands the answer to `handler` in a worker."""
        return lambda answer: self._start(handler(answer))

    @property
    def rewind_flow(self) -> RewindFlow:
        """The rewind's dialogs (docs/rewind.md), made on first use."""
        from pi_tui.tui.screens.rewind_flow import RewindFlow

        return RewindFlow(self.app, lambda: self.session, self._start, self._editor_text, self.notify)

    async def action_rewind(self, args: str = "") -> None:
        self._start(self.rewind_flow.choose_point())

    def _editor_text(self, text: str) -> None:
        editor = self.query_one(PromptArea)
        if not editor.text.strip():
            editor.text = text
            editor.move_cursor(editor.document.end)

    # --- compaction -------------------------------------------------------------------------------

    async def action_compact(self, args: str = "") -> None:
        if "--preview" in args.split():
            session = self.session
            basis = PreviewBasis.of_session(session)
            preview = await asyncio.to_thread(preview_for_store, session.store, basis)
            text = preview if isinstance(preview, str) else _preview_markdown(preview)
            self.app.push_screen(InfoDialog("Next compaction (preview, no model call)", text))
            return
        self._compact(args.strip() or None)

    @work(group="command", exit_on_error=False)
    async def _compact(self, instructions: str | None) -> None:
        outcome = await self.session.compact(instructions)
        if outcome.error and not outcome.cancelled:
            await self.show_error(outcome.error)
        elif outcome.entry_id:
            self.notify(f"Compacted {size_text(estimated(outcome.size))} tokens (whole request)")

    # --- sessions ---------------------------------------------------------------------------------

    async def action_new_session(self, args: str = "") -> None:
        await self.runtime.new_session()

    async def action_clone(self, args: str = "") -> None:
        try:
            await self.runtime.clone()
        except Exception as error:
            await self.show_error(str(error))

    async def action_fork(self, args: str = "") -> None:
        candidates = self.runtime.fork_candidates()
        if not candidates:
            await self.show_error("Nothing to fork from yet: no user messages.")
            return
        options = [(entry_id, " ".join(text.split())[:100]) for entry_id, text in reversed(candidates)]
        self.app.push_screen(
            ChoiceDialog("Fork from before which message?", options), callback=self._later(self._fork_chosen)
        )

    async def _fork_chosen(self, entry_id: str | None) -> None:
        if entry_id is None:
            return
        text = await self.runtime.fork(entry_id)
        self._editor_text(text)

    async def action_resume(self, args: str = "") -> None:
        """The session picker: this directory's sessions (pi's too); Tab lists every directory."""
        picker = SessionPicker(str(self.session.resources.cwd), list_sources, current=self.session.store.path)
        self.app.push_screen(picker, callback=self._later(self._resume_chosen))

    async def _resume_chosen(self, path: str | None) -> None:
        if path is None:
            return
        from pathlib import Path

        try:
            await self.runtime.switch_session(Path(path))
        except Exception as error:
            await self.show_error(str(error))

    # --- tree -------------------------------------------------------------------------------------

    async def action_tree(self, args: str = "") -> None:
        store = self.session.store
        if not store.entries:
            self.notify("The session has no entries yet.")
            return

        def save_label(entry_id: str, text: str) -> str | None:
            return set_label(self.session.store, entry_id, text)

        def load_lines(filter_mode: TreeFilter) -> list[TreeLine]:
            # Points the checkpoint cap broke say so: moving there cannot bring the files along.
            from pi_tui.session.rewind import mark_tree_lines

            session = self.session
            return mark_tree_lines(session.store, session.checkpoints, tree_lines(session.store, filter_mode))

        mode = self.session.resources.settings.tree_filter_mode
        self.app.push_screen(
            TreeDialog(load_lines, save_label, mode),
            callback=self._tree_target_chosen,
        )

    def _tree_target_chosen(self, entry_id: str | None) -> None:
        if entry_id is None:
            return
        if entry_id == self.session.store.leaf_id:
            self.notify("Already at this point.")
            return
        if self.session.resources.settings.branch_summary.skip_prompt:
            self._start(self._navigate(entry_id, NO_SUMMARY, None))
            return
        choices = [
            (NO_SUMMARY, "No summary"),
            (SUMMARISE, "Summarise"),
            (SUMMARISE_WITH_PROMPT, "Summarise with custom prompt"),
            (FILES_ONLY, "Restore files only (the conversation stays here)"),
        ]

        def with_instructions(text: str | None) -> None:
            if text is not None:
                self._start(self._navigate(entry_id, SUMMARISE, text))

        def chosen(answer: str | None) -> None:
            if answer == SUMMARISE_WITH_PROMPT:
                self.app.push_screen(
                    TextDialog("Instructions for the branch summary"), callback=with_instructions
                )
            elif answer == FILES_ONLY:
                self._start(self.rewind_flow.restore_files_of(entry_id))
            elif answer is not None:
                self._start(self._navigate(entry_id, answer, None))

        self.app.push_screen(ChoiceDialog("Summarise branch?", choices, filterable=False), callback=chosen)

    async def _navigate(self, entry_id: str, mode: str, instructions: str | None) -> None:
        try:
            result = await self.runtime.navigate_tree(
                entry_id, summarize=mode == SUMMARISE, custom_instructions=instructions
            )
        except Exception as error:
            await self.show_error(str(error))
            return
        if result.editor_text:
            self._editor_text(result.editor_text)
        if result.new_leaf_id != result.old_leaf_id:
            await self.rewind_flow.offer_files_at_leaf(
                result.old_leaf_id, "Bring the files along to this point?"
            )

    # --- model, thinking, settings ------------------------------------------------------------------

    async def action_choose_model(self, args: str = "") -> None:
        registry = await asyncio.to_thread(load_registry)
        current = self.session.model.ref if self.session.model else ""
        options = [
            (
                model.ref,
                f"{'● ' if model.ref == current else '  '}{model.ref}  ({model.context_window:,} tokens)",
            )
            for model in registry.models
        ]
        if not options:
            self.notify("No models in models.json; pass --model to use another one.", severity="warning")
            return
        self.app.push_screen(ChoiceDialog("Model", options), callback=self._later(self._model_chosen))

    async def _model_chosen(self, ref: str | None) -> None:
        if ref is None:
            return
        resolution = await asyncio.to_thread(resolve_model, ref)
        if resolution.model is None:
            await self.show_error("; ".join(str(d) for d in resolution.diagnostics) or f"unknown model {ref}")
            return
        before = self.session.thinking_level
        await self.session.set_model(resolution.model, resolution.api_key)
        self.refresh_footer()
        after = self.session.thinking_level
        if after != before:
            why = "has no thinking levels" if after == "off" else f"has no {before} level"
            self.notify(f"Thinking {before} → {after}: {resolution.model.id} {why}.", markup=False)

    async def action_cycle_thinking(self, args: str = "") -> None:
        level = await self.session.cycle_thinking_level()
        self.notify(f"Thinking: {level}" if level else "This model has no thinking levels.")

    async def action_approval(self, args: str = "") -> None:
        session = self.session
        switched = switch_approval(session.approval, args, session.resources.cwd)
        if isinstance(switched, str):
            await self.show_error(switched)
            return
        self.refresh_footer()
        self.notify(switched.message(), markup=False)

    async def action_settings(self, args: str = "") -> None:
        themes = theme_menu(self.app.available_themes)
        options = [
            (f"theme:{name}", f"Theme  {'● ' if name == self.app.theme else '  '}{name}") for name in themes
        ]
        if self.session.model is not None and self.session.model.reasoning:
            options += [
                (
                    f"thinking:{level}",
                    f"Thinking  {'● ' if level == self.session.thinking_level else '  '}{level}",
                )
                for level in THINKING_LEVELS
            ]
        self.app.push_screen(ChoiceDialog("Settings", options), callback=self._later(self._setting_chosen))

    async def _setting_chosen(self, choice: str | None) -> None:
        if choice is None:
            return
        key, _, value = choice.partition(":")
        if key == "theme" and value in self.app.available_themes:
            # Live: Textual restyles every widget from the new theme's variables; the app saves it.
            self.app.theme = value
        elif key == "thinking":
            for level in THINKING_LEVELS:
                if level == value:
                    await self.session.set_thinking_level(level)
            self.refresh_footer()

    # --- small commands -----------------------------------------------------------------------------

    async def action_name_session(self, args: str = "") -> None:
        await self.session.set_session_name(args.strip() or None)
        self.refresh_footer()

    async def action_copy_answer(self, args: str = "") -> None:
        text = self.session.last_assistant_text()
        if not text:
            self.notify("No answer to copy yet.")
            return
        self.app.copy_to_clipboard(text)
        self.notify("Copied the last answer.")

    async def action_reload_resources(self, args: str = "") -> None:
        before = self.session.resources.settings
        prompt_changed = await self.session.reload()
        # A settings change applies even when the prompt stays the same: say so rather than "nothing".
        changes = [
            *(["the system prompt changed"] if prompt_changed else []),
            *(["settings changed"] if self.session.resources.settings != before else []),
        ]
        self.notify(f"Reloaded: {' and '.join(changes) if changes else 'nothing changed'}.")
        # What was left out (a skill whose frontmatter does not parse) is said again, as at start.
        for problem in self.session.resources.problems():
            self.notify(problem, severity="warning", timeout=8, markup=False)

    async def action_session_info(self, args: str = "") -> None:
        session = self.session
        markdown = session_info_markdown(
            session.session_stats(),
            usage_totals(session.store.entries),
            self.context_tokens,
            estimated=self.context_estimated,
            cache_line=session.cache_settings_line(),
        )
        self.app.push_screen(InfoDialog("Session", markdown))

    @on(ContextInspector.RequestWanted)
    async def _show_next_request(self, event: ContextInspector.RequestWanted) -> None:
        await self.action_show_request()

    async def action_show_request(self, args: str = "") -> None:
        """`/request [text]` (and `r` in the Context pane): the next request as it would go out."""
        from pi_tui.session.next_request import next_request

        draft = args.strip() or self.query_one(PromptArea).text.strip() or None
        preview = next_request(self.session, draft)
        if preview is None:
            self.notify("No model configured: there is no request to show.", severity="warning")
            return
        model = self.session.model
        assert model is not None
        self.app.push_screen(InfoDialog("Next request", request_markdown(model.base_url, preview)))

    async def action_export_session(self, args: str = "") -> None:
        """`/export [--full-output] [path]`: write the page (or .jsonl) in a thread, then say where. Without
        a path the page goes to the sessions' export folder: the project is the user's, not ours."""
        from pathlib import Path

        from pi_tui.config.paths import ensure_private_dir
        from pi_tui.export.exporter import ExportError, ExportResult, default_output, export_session
        from pi_tui.export.html_export import HtmlOptions
        from pi_tui.session.session_setup import export_dir_for

        words = args.split()
        full_output = "--full-output" in words
        target = " ".join(word for word in words if word != "--full-output")
        session = self.session
        cwd = Path(session.resources.cwd)
        options = HtmlOptions(
            model=session.model,
            settings=session.resources.settings,
            full_output=full_output,
            api_keys=(session.api_key,) if session.api_key else (),
        )

        def export() -> ExportResult:
            if target:
                return export_session(session.store, cwd / Path(target).expanduser(), options)
            try:
                # Private like the sessions beside it: a page holds the whole conversation.
                folder = ensure_private_dir(export_dir_for(session.store))
            except OSError as error:
                raise ExportError(f"cannot create {error.filename}: {error.strerror or error}") from error
            return export_session(session.store, default_output(session.store, folder), options)

        try:
            result = await asyncio.to_thread(export)
        except ExportError as error:
            await self.show_error(str(error))
            return
        self.notify(
            f"Exported {result.format.upper()} ({result.bytes:,} bytes) to {result.path}", markup=False
        )

    async def action_hotkeys(self, args: str = "") -> None:
        screen_keys = [*self.screen_bindings(), *self.app.BINDINGS]
        acting = [b for b in screen_keys if isinstance(b, Binding) and self.app.check_action(b.action, ())]
        panes = [
            ("Context pane", ContextInspector.BINDINGS),
            ("Tools pane", [*ToolOutputViewer.BINDINGS, *LineView.BINDINGS]),
            ("Compactions pane", [*CompactionTimeline.BINDINGS, *CompactionDetail.BINDINGS]),
        ]
        self.app.push_screen(KeysDialog(help_sections(acting, panes)))

    async def action_quit_app(self, args: str = "") -> None:
        self.app.exit()


def _preview_markdown(preview: CompactionPreview) -> str:
    split = (
        "yes (the cut falls inside a turn; its start is summarised separately)"
        if preview.is_split_turn
        else "no"
    )
    lines = [
        f"- tokens (whole request): **{preview_size_text(preview)}**",
        f"- first kept entry: `{preview.first_kept_entry_id}`; split turn: {split}",
        f"- summarised: {rows_text(preview.summarised_rows)}",
        f"- kept: {rows_text(preview.kept)}",
        f"- files read: {len(preview.read_files)}, modified: {len(preview.modified_files)}",
    ]
    return "\n".join(lines)
