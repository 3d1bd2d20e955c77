"""Slash commands, user shell commands and dialogs on the chat screen, driven with Pilot."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from textual.command import CommandList
from textual.widgets import DataTable, Input, Label, OptionList, Static

from pi_tui.ai.scripted import ScriptedReply
from pi_tui.config.settings import CompactionSettings, Settings
from pi_tui.session.inspector import build_inspector_data
from pi_tui.session_file.entries import CompactionEntry
from pi_tui.tui.screens.chat import ChatScreen
from pi_tui.tui.screens.dialogs import ChoiceDialog, InfoDialog, KeysDialog, TextDialog
from pi_tui.tui.screens.tree_dialog import TreeDialog
from pi_tui.tui.slash_commands import SLASH_COMMANDS, completions, parse_slash_command
from pi_tui.tui.widgets.context_inspector import ContextInspector
from pi_tui.tui.widgets.conversation import ConversationView
from pi_tui.tui.widgets.message_blocks import AssistantBlock, UserBlock
from pi_tui.tui.widgets.prompt_area import PromptArea
from pi_tui.tui.widgets.tool_call_block import ToolCallBlock
from tests.support.waiting import until

from .chat_fixtures import make_chat_app
from .pilot_helpers import settle, submit

SIZE = (120, 40)


def palette_highlight(app: Any) -> str:
    """The command palette's highlighted entry ('' while it is still searching)."""
    commands = app.screen.query(CommandList)
    if not commands or commands.first().highlighted is None:
        return ""
    command_list = commands.first()
    return str(command_list.get_option_at_index(command_list.highlighted).prompt)


def has_compaction(session: Any) -> bool:
    return any(isinstance(entry, CompactionEntry) for entry in session.store.entries)


def chat(app: Any) -> ChatScreen:
    screen = (
        app.screen_stack[1] if isinstance(app.screen, ChoiceDialog | InfoDialog | KeysDialog) else app.screen
    )
    assert isinstance(screen, ChatScreen)
    return screen


def test_parse_and_complete() -> None:
    command = parse_slash_command("/compact keep the API notes")
    assert command is not None and command[0].name == "compact" and command[1] == "keep the API notes"
    assert parse_slash_command("/skill:review the diff") is None
    assert parse_slash_command("plain text") is None
    assert completions("/co") == ["/compact", "/copy"]


async def test_name_and_new_session(tmp_path: Path) -> None:
    app, session, _ = make_chat_app(tmp_path, [ScriptedReply(text="hello")])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await submit(pilot, "hi")
        await submit(pilot, "/name parser work")
        assert session.store.get_session_name() == "parser work"
        first_id = session.store.session_id

        await submit(pilot, "/new")
        await settle(pilot)
        assert app.runtime.session.store.session_id != first_id  # type: ignore[attr-defined]
        assert list(chat(app).query_one(ConversationView).children) == []


async def test_user_shell_command_is_shown_and_recorded(tmp_path: Path) -> None:
    app, session, provider = make_chat_app(tmp_path, [ScriptedReply(text="seen")])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press(*"!echo from-the-shell", "enter")
        await until(lambda: not session.is_bash_running and session.store.entries)
        await settle(pilot)
        block = chat(app).query_one(ToolCallBlock)
        assert block.tool_name == "!" and "echo from-the-shell" in block.summary
        assert any(entry.type == "message" for entry in session.store.entries)
        await submit(pilot, "what did it print?")
        assert "from-the-shell" in str(provider.contexts[0].messages[0].to_json_obj())


async def two_turns_then_compact(pilot: Any, session: Any) -> None:
    """Two long turns, then `/compact`, until its entry is written."""
    await submit(pilot, "first " * 300)
    await submit(pilot, "second " * 300)
    await submit(pilot, "/compact")
    await until(lambda: not session.is_compacting and has_compaction(session))
    await settle(pilot)


TWO_TURNS_AND_THEIR_SUMMARY = [
    ScriptedReply(text="answer " * 400),
    ScriptedReply(text="answer two " * 300),
    ScriptedReply(text="## Goal\nShip it."),
    ScriptedReply(text="## Original Request\nx"),
]
"""Replies for `two_turns_then_compact`: the two turns, then what the summary calls get back."""
KEEP_ONE_TURN = Settings(compaction=CompactionSettings(keep_recent_tokens=1_000))
"""The second turn kept, the first summarised (under the window's default, all of it would be kept and
there would be nothing to summarise)."""


async def test_compact_command_summarises(tmp_path: Path) -> None:
    app, session, _ = make_chat_app(tmp_path, TWO_TURNS_AND_THEIR_SUMMARY, settings=KEEP_ONE_TURN)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await two_turns_then_compact(pilot, session)
        assert any(isinstance(entry, CompactionEntry) for entry in session.store.entries)
        texts = [str(widget.render()) for widget in chat(app).query_one(ConversationView).children]
        assert any(text.startswith("Compacted ") and "→" in text for text in texts)


async def test_after_a_compaction_the_footer_shows_the_context_panes_estimate(tmp_path: Path) -> None:
    """pi shows `?` from a compaction until a reply reports usage; the estimate is known meanwhile."""
    app, session, _ = make_chat_app(tmp_path, TWO_TURNS_AND_THEIR_SUMMARY, settings=KEEP_ONE_TURN)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await two_turns_then_compact(pilot, session)
        screen = chat(app)
        await until(lambda: screen.context_estimated, pilot=pilot, what="the footer's estimate")
        data = build_inspector_data(session.store, session.resources.settings, session.model)
        assert data.usage is not None and data.usage.tokens is None  # pi's figure: unknown
        assert screen.context_tokens == data.geometry.used_tokens
        shown = str(screen.query_one("#footer-context", Static).render())
        assert shown.startswith("~") and "?" not in shown
        await submit(pilot, "/session")
        assert (
            isinstance(app.screen, InfoDialog) and f"~{data.geometry.used_tokens:,} of" in app.screen.markdown
        )


async def two_questions_then_tree(pilot: Any) -> TreeDialog:
    await settle(pilot)
    await submit(pilot, "first question")
    await submit(pilot, "second question")
    await submit(pilot, "/tree")
    dialog = pilot.app.screen
    assert isinstance(dialog, TreeDialog)
    return dialog


async def test_tree_moves_back_to_an_earlier_message(tmp_path: Path) -> None:
    app, _session, _ = make_chat_app(tmp_path, [ScriptedReply(text="one"), ScriptedReply(text="two")])
    async with app.run_test(size=SIZE) as pilot:
        dialog = await two_questions_then_tree(pilot)
        here = next(
            line for line in dialog.lines if line.is_leaf
        )  # the last reply: request records are hidden
        assert dialog.highlighted_id == here.entry_id and here.text == "assistant: two"
        await pilot.press(*"second")
        assert dialog.highlighted_id is not None
        assert "second question" in str(dialog.query_one(OptionList).get_option(dialog.highlighted_id).prompt)
        await pilot.press("enter")
        await settle(pilot)
        summary_dialog = app.screen
        assert isinstance(summary_dialog, ChoiceDialog)
        await pilot.press("enter")  # No summary
        await settle(pilot)
        await until(lambda: chat(app).query_one(PromptArea).text == "second question")
        await settle(pilot)
        screen = chat(app)
        kinds = [type(child) for child in screen.query_one(ConversationView).children]
        assert kinds == [UserBlock, AssistantBlock]


async def test_tree_filters_and_labels_like_pi(tmp_path: Path) -> None:
    from pi_tui.session_file.store import SessionStore

    app, session, _ = make_chat_app(tmp_path, [ScriptedReply(text="one"), ScriptedReply(text="two")])
    async with app.run_test(size=SIZE) as pilot:
        dialog = await two_questions_then_tree(pilot)

        def shown() -> list[str]:
            return [str(option.prompt).strip() for option in dialog.query_one(OptionList).options]

        assert shown()[0] == "• system: prompt and tools read, bash, edit, write"  # pi 1.6 lists it too
        assert len(shown()) == 5
        await pilot.press("ctrl+o", "ctrl+o")  # default → no-tools → user-only
        assert dialog.mode == "user-only"
        assert shown() == ["• user: first question", "• user: second question"]
        assert "filter: user-only" in str(dialog.query_one("#dialog-title", Label).render())
        first = next(line.entry_id for line in dialog.lines if "first" in line.text)
        dialog.query_one(OptionList).highlighted = 0
        await pilot.press("ctrl+l")
        await settle(pilot)
        assert isinstance(app.screen, TextDialog)
        await pilot.press(*"checkpoint", "enter")
        await settle(pilot)
        assert app.screen is dialog and session.store.get_label(first) == "checkpoint"
        assert shown()[0] == "• user: first question  [checkpoint]"
        options = dialog.query_one(OptionList)
        drawn = [options.render_line(y).text for y in range(options.size.height)]
        assert any("first question  [checkpoint]" in row for row in drawn)  # text, not a markup tag
        await pilot.press("ctrl+o")  # labeled-only
        assert shown() == ["• user: first question  [checkpoint]"]
        assert session.store.path is not None
        assert SessionStore.open(session.store.path).get_label(first) == "checkpoint"  # on disk
        await pilot.press("ctrl+shift+o", "ctrl+shift+o", "ctrl+shift+o")  # back to default
        assert dialog.mode == "default" and dialog.highlighted_id == first  # the cursor stayed
        await pilot.press("ctrl+l")
        await settle(pilot)
        assert app.screen.query_one(Input).value == "checkpoint"
        app.screen.query_one(Input).value = ""
        await pilot.press("enter")  # empty: the label goes
        await settle(pilot)
        assert session.store.get_label(first) is None
        await pilot.press("escape")
        await settle(pilot)
    assert SessionStore.open(session.store.path).get_label(first) is None


async def test_session_and_hotkeys_dialogs(tmp_path: Path) -> None:
    from pi_tui.ai.scripted import ScriptedUsage

    app, _, _ = make_chat_app(
        tmp_path, [ScriptedReply(text="hello", usage=ScriptedUsage(input=1234, output=56))]
    )
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await submit(pilot, "hi")
        screen = chat(app)
        await until(lambda: screen.context_tokens is not None, pilot=pilot)
        await submit(pilot, "/session")
        markdown = app.screen.markdown if isinstance(app.screen, InfoDialog) else ""
        assert "userMessages" not in markdown and "{" not in markdown, "labels, not raw keys or dicts"
        assert (
            "- **Messages in the context**: 2: 1 from you, 1 reply, 0 tool results (0 tool calls)" in markdown
        )
        assert (
            "- **Whole session (every branch, as in the footer)**: input 1,234 · output 56 · total 1,290 · $0"
            in markdown
        )
        assert f"- **Context**: {screen.context_tokens:,} of 32,000 tokens (" in markdown, (
            "the footer's figure"
        )
        assert "- **Prompt cache**: warming idle · miss notices off" in markdown
        await pilot.press("escape")
        await pilot.press("f1")
        await settle(pilot)
        assert isinstance(app.screen, KeysDialog) and "/compact" in app.screen.text
        assert "  pageup / pagedown  Scroll the conversation a page" in app.screen.text
        assert "Demo" not in app.screen.text and "All directories" not in app.screen.text


async def test_command_palette_lists_slash_commands(tmp_path: Path) -> None:
    app, _, _ = make_chat_app(tmp_path, [])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await settle(pilot)
        await pilot.press(*"/hotkeys")
        await until(lambda: "/hotkeys" in palette_highlight(app), what="/hotkeys highlighted in the palette")
        await settle(pilot)
        await pilot.press("enter")
        await until(lambda: isinstance(app.screen, KeysDialog))
        assert isinstance(app.screen, KeysDialog) and "/compact" in app.screen.text


def palette_entries(app: Any) -> list[str]:
    """The command palette's entries as listed (each prompt's first line: its name)."""
    commands = app.screen.query(CommandList)
    if not commands:
        return []
    command_list = commands.first()
    return [
        str(command_list.get_option_at_index(index).prompt).splitlines()[0]
        for index in range(command_list.option_count)
    ]


async def test_command_palette_lists_only_pi_tuis_commands(tmp_path: Path) -> None:
    app, _, _ = make_chat_app(tmp_path, [])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await until(lambda: "/quit" in palette_entries(app), pilot=pilot, what="the palette's full list")
        await settle(pilot)
        entries = palette_entries(app)
        assert entries == [f"/{command.name}" for command in SLASH_COMMANDS]
        # Searched, too: Textual's generic entries would match these words.
        for word in ["theme", "keys", "maximize", "screenshot"]:
            app.screen.query_one(Input).value = word
            await settle(pilot)
            assert all(entry.startswith("/") for entry in palette_entries(app)), word


async def test_confirm_compaction_dialog_counts_down_or_is_declined(tmp_path: Path) -> None:
    from pi_tui.ai.scripted import ScriptedUsage
    from pi_tui.config.settings import CompactionSettings, Settings
    from pi_tui.tui.screens.confirm_compaction import ConfirmCompactionDialog

    big = ScriptedUsage(input=31_500, output=100)  # over the threshold (31,000), inside the window (32,000)
    # Replies longer than keepRecentTokens: the kept part starts at the reply, so there is something older.
    replies = [ScriptedReply(text="first " * 20, usage=big), ScriptedReply(text="second " * 20, usage=big)]
    replies += [ScriptedReply(text="## Goal\nx"), ScriptedReply(text="## Original Request\ny")]
    settings = Settings(
        compaction=CompactionSettings(reserve_tokens=1000, keep_recent_tokens=10, confirm=True)
    )
    app, session, _ = make_chat_app(tmp_path, replies, settings=settings)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        # Long enough that a loaded machine cannot run it out before Esc; the countdown is tested second.
        chat(app).confirm_seconds = 60
        chat(app).query_one(PromptArea).text = "one"
        await pilot.press("enter")
        await until(lambda: isinstance(app.screen, ConfirmCompactionDialog))
        await pilot.press("escape")
        await session.wait_for_idle()
        await settle(pilot)
        assert not any(isinstance(entry, CompactionEntry) for entry in session.store.entries)

        chat(app).confirm_seconds = 0.3
        chat(app).query_one(PromptArea).text = "two"
        await pilot.press("enter")
        await until(lambda: has_compaction(session))


async def test_f11_maximises_the_conversation_and_restores(tmp_path: Path) -> None:
    app, _, _ = make_chat_app(tmp_path, [])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f11")
        await settle(pilot)
        assert isinstance(chat(app).maximized, ConversationView)
        await pilot.press("f11")
        await settle(pilot)
        assert chat(app).maximized is None


async def test_calls_a_compaction_summarised_away_stay_in_the_tools_pane(tmp_path: Path) -> None:
    from pi_tui.ai.scripted import ScriptedToolCall
    from pi_tui.config.settings import CompactionSettings, Settings
    from pi_tui.tui.widgets.tool_list import ToolList
    from pi_tui.tui.widgets.tool_output_viewer import ToolOutputViewer

    call = ScriptedToolCall(name="bash", arguments={"command": "echo compacted-away"}, id="early")
    replies = [ScriptedReply(tool_calls=[call]), ScriptedReply(text="answer " * 400)]
    replies += [ScriptedReply(text="answer two " * 300)]
    replies += [ScriptedReply(text="## Goal\nShip it."), ScriptedReply(text="## Original Request\nx")]
    # pi's two summary calls are scripted (the cut splits the first turn).
    settings = Settings(compaction=CompactionSettings(keep_recent_tokens=10, strategy="serialize"))
    app, session, _ = make_chat_app(tmp_path, replies, settings=settings)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await two_turns_then_compact(pilot, session)
        context_ids = {c.id for m in session.agent.state.messages for c in getattr(m, "tool_calls", [])}
        assert "early" not in context_ids  # summarised away
        viewer = chat(app).query_one(ToolOutputViewer)
        (row,) = [key.value for key in chat(app).query_one(ToolList).rows]
        assert row is not None and ":early:" in row
        viewer.select(row)
        await settle(pilot)
        assert viewer.selected == row and viewer.line_view.line_count >= 1
        title = str(viewer.query_one("#tool-output-title").render())
        assert title.startswith("bash echo compacted-away — what the model got [done]")


async def test_the_next_request_from_a_slash_command_and_from_the_context_pane(tmp_path: Path) -> None:
    app, _session, _ = make_chat_app(tmp_path, [ScriptedReply(text="first answer")])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await submit(pilot, "first question")
        await submit(pilot, "/request and a follow-up")
        dialog = app.screen
        assert isinstance(dialog, InfoDialog) and dialog.title_text == "Next request"
        assert dialog.markdown.startswith("`POST ") and "Cache: " in dialog.markdown
        body = json.loads(dialog.markdown.split("```json\n", 1)[1].rsplit("\n```", 1)[0])
        assert [m["role"] for m in body["messages"]] == ["developer", "user", "assistant", "user"]
        assert body["messages"][-1]["content"] == [{"type": "text", "text": "and a follow-up"}]
        assert "authorization: Bearer [redacted]" in dialog.markdown and "unused" not in dialog.markdown
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("f2")
        await settle(pilot)
        chat(app).query_one(ContextInspector).query_one(DataTable).focus()
        await pilot.press("r")
        await until(
            lambda: isinstance(app.screen, InfoDialog), what="the request dialog from the Context pane"
        )
        assert app.screen.markdown.count('"role": "user"') == 1  # the editor is empty: no next message yet


async def test_reload_names_a_skill_that_was_left_out(tmp_path: Path) -> None:
    """A skill added while the chat runs whose frontmatter does not parse: `/reload` says which one."""
    app, _, _ = make_chat_app(tmp_path, [])
    warnings: list[str] = []
    show = app.notify

    def recording_notify(message: str, **options: Any) -> None:
        if options.get("severity") == "warning":
            warnings.append(message)
        show(message, **options)

    app.notify = recording_notify  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        skill = tmp_path / "project" / ".pi-tui" / "skills" / "tidy-imports" / "SKILL.md"
        skill.parent.mkdir(parents=True)
        skill.write_text("---\ndescription: Tidy imports\nmetadata:\n  owner: tooling\n tier: 2\n---\n")

        await submit(pilot, "/reload")

        await until(lambda: warnings, pilot=pilot, what="a warning after /reload")
        [warning] = warnings
        assert warning.startswith(f"{skill}:5: error: invalid frontmatter")
        assert warning.endswith('skill "tidy-imports" not loaded')


async def test_reload_says_settings_changed_when_only_the_settings_did(tmp_path: Path) -> None:
    """The prompt stays the same, the new settings apply: `/reload` said "nothing changed"."""
    from pi_tui.context.resources import load_resources

    app, session, _ = make_chat_app(tmp_path, [])
    said: list[str] = []
    show = app.notify

    def recording_notify(message: str, **options: Any) -> None:
        said.append(message)
        show(message, **options)

    app.notify = recording_notify  # type: ignore[method-assign]
    project = tmp_path / "project"
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        session._reload_resources = lambda: load_resources(  # type: ignore[method-assign]
            project, home=tmp_path, context_ceiling=project, include_builtin=False
        )
        await submit(pilot, "/reload")  # the settings files give what the chat started with
        await until(lambda: said, pilot=pilot, what="the first reload's notice")
        (project / ".pi-tui").mkdir(exist_ok=True)
        (project / ".pi-tui" / "settings.json").write_text('{"tools": {"maxLines": 3}}')
        said.clear()
        await submit(pilot, "/reload")
        await until(lambda: said, pilot=pilot, what="the second reload's notice")
        assert said[0] == "Reloaded: settings changed."
        assert session.resources.settings.tools.max_lines == 3
