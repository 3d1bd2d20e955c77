"""Editor completion: slash commands (built-ins, skills, templates) and `@` paths, driven with Pilot."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from pi_tui.ai.scripted import ScriptedReply
from pi_tui.config.settings import Settings
from pi_tui.context import resources as resources_module
from pi_tui.context.prompt_templates import PromptTemplate
from pi_tui.context.resources import Resources
from pi_tui.context.skills import Skill
from pi_tui.session.agent_session import AgentSession
from pi_tui.tui.completion_tokens import Token, path_text, slash_items, token_at
from pi_tui.tui.screens.chat import ChatScreen
from pi_tui.tui.screens.dialogs import InfoDialog
from pi_tui.tui.widgets.completion_popup import CompletionPopup
from pi_tui.tui.widgets.prompt_area import PromptArea

from .chat_fixtures import make_chat_app
from .pilot_helpers import settle

SIZE = (120, 40)
THEMES = ["pi-dark", "pi-light"]  # as tests/tui/test_snapshots.py


def resources_with(tmp_path: Path, *, skill_commands: bool = True) -> Resources:
    skill = Skill("lint", "Run the linters", tmp_path / "SKILL.md", tmp_path, "project")
    template = PromptTemplate("review", "Review the staged diff", "Review $@", tmp_path / "review.md")
    return Resources(
        cwd=tmp_path,
        settings=Settings.model_validate({"enableSkillCommands": skill_commands}),
        custom_prompt=None,
        append_prompt=None,
        context_files=(),
        skills=(skill,),
        templates=(template,),
        diagnostics=(),
    )


def test_the_token_at_the_cursor() -> None:
    assert token_at("/co", 3, 0) == Token("slash", 0, "/co")
    assert token_at("/compact now", 12, 0) is None  # arguments are not completed
    assert token_at("/co", 3, 1) is None  # a command is only the editor's first word
    assert token_at("read /etc", 9, 0) is None
    assert token_at("read @src/ma and", 12, 0) == Token("file", 5, "@src/ma")
    assert token_at("read @src/ma", 12, 0).query == "src/ma"  # type: ignore[union-attr]
    assert token_at("mail me@host", 12, 0) is None
    assert path_text("src/a.py") == "@src/a.py"
    assert path_text("my notes.md") == '@"my notes.md"'


def test_slash_items_include_skills_and_templates(tmp_path: Path) -> None:
    values = [item.value for item in slash_items("/", resources_with(tmp_path))]
    assert values[0] == "/compact" and values[-2:] == ["/skill:lint", "/review"]
    assert [item.value for item in slash_items("/RE", resources_with(tmp_path))] == [
        "/rewind",
        "/resume",
        "/request",
        "/reload",
        "/review",
    ]
    assert [item.description for item in slash_items("/skill:", resources_with(tmp_path))] == [
        "Run the linters"
    ]
    assert slash_items("/skill:", resources_with(tmp_path, skill_commands=False)) == []


def write_resources(project: Path) -> None:
    prompts = project / ".pi-tui" / "prompts"
    prompts.mkdir(parents=True)
    (prompts / "review.md").write_text("---\ndescription: Review the staged diff\n---\nReview $@\n")
    skill = project / ".pi-tui" / "skills" / "lint"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: lint\ndescription: Run the linters\n---\nRun ruff.\n")


def sent(session: AgentSession) -> list[str]:
    """Entries a submission would have written (a message, a compaction)."""
    return [entry.type for entry in session.store.entries if entry.type in ("message", "compaction")]


def popup(pilot: Pilot[Any]) -> CompletionPopup:
    return pilot.app.screen.query_one(CompletionPopup)


def editor(pilot: Pilot[Any]) -> PromptArea:
    return pilot.app.screen.query_one(PromptArea)


def shown(pilot: Pilot[Any]) -> list[str]:
    return [item.value for item in popup(pilot).items]


async def test_slash_popup_lists_commands_skills_and_templates_and_tab_accepts(tmp_path: Path) -> None:
    write_resources(tmp_path / "project")
    app, _, _ = make_chat_app(tmp_path, [])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("/")
        assert popup(pilot).is_open
        assert {"/compact", "/resume", "/skill:lint", "/review"} <= set(shown(pilot))
        assert popup(pilot).region.bottom <= editor(pilot).region.y  # drawn above the editor

        await pilot.press("c", "o")
        assert shown(pilot) == ["/compact", "/copy"]
        await pilot.press("down", "tab")
        assert editor(pilot).text == "/copy "
        assert not popup(pilot).is_open

        editor(pilot).clear()
        await pilot.press("/", "r", "e", "v", "tab")
        assert editor(pilot).text == "/review "

        editor(pilot).clear()
        await pilot.press("/", "c")
        assert shown(pilot)[:2] == ["/compact", "/clone"]
        await pilot.click(CompletionPopup, offset=(3, 2))  # the second row (under the border)
        assert editor(pilot).text == "/clone " and editor(pilot).has_focus


async def test_enter_accepts_without_sending_and_esc_only_closes(tmp_path: Path) -> None:
    app, session, _ = make_chat_app(tmp_path, [ScriptedReply(text="never")])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("/", "c", "o", "m", "enter")
        await settle(pilot)
        assert editor(pilot).text == "/compact "
        assert sent(session) == [] and isinstance(app.screen, ChatScreen)

        editor(pilot).clear()
        await pilot.press("/", "r", "e")
        assert popup(pilot).is_open
        await pilot.press("escape")
        assert not popup(pilot).is_open and editor(pilot).text == "/re"
        await pilot.press("escape")  # with the list closed, Esc is the screen's again
        assert isinstance(app.screen, ChatScreen)

        # A command typed in full: Enter runs it.
        editor(pilot).clear()
        await pilot.press(*"/session")
        assert shown(pilot) == ["/session"]
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, InfoDialog)


async def test_at_lists_project_files_and_accepting_inserts_the_path(tmp_path: Path) -> None:
    project = tmp_path / "project"
    for name in ["src/main.py", "src/util.py", "my notes.md", "build/out.js"]:
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text("x\n")
    (project / ".gitignore").write_text("build/\n")
    app, session, _ = make_chat_app(tmp_path, [])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press(*"read @")
        await settle(pilot)
        assert shown(pilot)[:3] == ["@src/", "@.gitignore", '@"my notes.md"']
        assert not any("build" in value for value in shown(pilot))

        await pilot.press("m", "a", "i")
        await settle(pilot)
        assert shown(pilot)[0] == "@src/main.py"
        await pilot.press("enter")
        await settle(pilot)
        assert editor(pilot).text == "read @src/main.py "
        assert sent(session) == []

        # A folder keeps the list open on its contents; a path with a space is quoted.
        await pilot.press(*"and @sr", "tab")
        await settle(pilot)
        assert editor(pilot).text.endswith("and @src/")
        assert shown(pilot) == ["@src/main.py", "@src/util.py"]
        await pilot.press("down", "tab")
        assert editor(pilot).text == "read @src/main.py and @src/util.py "
        await pilot.press(*"@not")
        await settle(pilot)
        await pilot.press("tab")
        assert editor(pilot).text.endswith('@src/util.py @"my notes.md" ')


async def test_up_and_down_move_in_the_list_and_walk_the_history_without_it(tmp_path: Path) -> None:
    app, _, _ = make_chat_app(tmp_path, [ScriptedReply(text="one"), ScriptedReply(text="two")])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for text in ("/session", "hello"):
            editor(pilot).text = text
            await pilot.press("enter")
            await settle(pilot)
            if not isinstance(app.screen, ChatScreen):
                await pilot.press("escape")
            await app.runtime.session.wait_for_idle()  # type: ignore[union-attr]
            await settle(pilot)

        await pilot.press("/", "c", "o")
        await pilot.press("down")
        assert popup(pilot).highlighted == 1 and editor(pilot).text == "/co"
        await pilot.press("up")
        assert popup(pilot).highlighted == 0
        await pilot.press("escape")

        editor(pilot).clear()
        await pilot.press("up")
        assert editor(pilot).text == "hello"
        await pilot.press("up")
        # A recalled command does not open the list, so Up keeps walking the history.
        assert editor(pilot).text == "/session" and not popup(pilot).is_open
        await pilot.press("down")
        assert editor(pilot).text == "hello"


@pytest.mark.parametrize("theme", THEMES)
def test_popup_snapshot(
    snap_compare: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, theme: str
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setattr(resources_module, "package_readme_path", lambda: Path("/opt/pi-tui/README.md"))
    app, _, _ = make_chat_app(tmp_path, [])
    app.theme = theme

    async def open_popup(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await pilot.press("ctrl+b", "/", "c")
        await settle(pilot)
        editor(pilot).cursor_blink = False  # a snapshot may catch either phase of a blink
        # TextArea keys its line cache as if blinking: lines drawn in the "off" phase are dropped.
        editor(pilot).notify_style_update()
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=open_popup)
