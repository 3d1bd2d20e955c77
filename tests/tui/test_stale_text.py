"""No stale text: a retry's line ends as its outcome, in place (against the real openai client and the
loopback server's 503s); `!`/`!!` blocks look the same after a move in the tree as when they ran."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widget import Widget

from pi_tui.ai.scripted import ScriptedReply
from pi_tui.config.model_config import ModelConfig
from pi_tui.config.settings import RetrySettings, Settings
from pi_tui.context.resources import load_resources
from pi_tui.session.runtime import AgentSessionRuntime, RuntimeOptions
from pi_tui.session.services import AgentSessionServices
from pi_tui.session_file.store import SessionStore
from pi_tui.tui.app import PiTuiApp
from pi_tui.tui.screens.dialogs import ChoiceDialog
from pi_tui.tui.screens.tree_dialog import TreeDialog
from pi_tui.tui.widgets.conversation import ConversationView
from pi_tui.tui.widgets.message_blocks import AssistantBlock, NoticeBlock, UserBlock
from pi_tui.tui.widgets.prompt_area import PromptArea
from pi_tui.tui.widgets.tool_call_block import ToolCallBlock
from pi_tui.tui.widgets.user_shell import NOT_SENT, USER_SHELL_CLASS
from tests.support import faults
from tests.support.openai_server import OpenAIServer, text_reply
from tests.support.waiting import until

from .chat_fixtures import make_chat_app
from .pilot_helpers import settle, submit

SIZE = (160, 48)
ERROR_503 = f"503 {faults.SERVER_ERROR_TEXTS[503]}"


def loopback_app(server: OpenAIServer, tmp_path: Path, retry: RetrySettings) -> PiTuiApp:
    project = tmp_path / "project"
    project.mkdir()
    settings = Settings(retry=retry)

    def services(cwd: Path) -> AgentSessionServices:
        resources = load_resources(cwd, settings=settings, home=tmp_path, include_builtin=False)
        return AgentSessionServices(cwd=cwd, resources=resources)

    model = ModelConfig(id="m", provider="local", base_url=server.base_url, context_window=32_000)
    runtime = AgentSessionRuntime(
        SessionStore.create(str(project), tmp_path / "sessions"),
        RuntimeOptions(model=model, api_key="loopback-key", services_factory=services),
    )
    return PiTuiApp(
        cwd=project,
        session_root=tmp_path / "sessions",
        pi_session_root=tmp_path / "pi",
        setup_notice="",
        runtime=runtime,
    )


def shown(app: Any) -> list[Widget]:
    return list(app.screen.query_one(ConversationView).children)


def notices(app: Any) -> list[str]:
    return [str(child.render()) for child in shown(app) if isinstance(child, NoticeBlock)]


async def test_a_retry_that_succeeds_leaves_one_line_with_the_retry(
    keep_alive_server: OpenAIServer, tmp_path: Path
) -> None:
    keep_alive_server.enqueue(faults.server_error(503), faults.server_error(503), text_reply("fine now"))
    app = loopback_app(
        keep_alive_server, tmp_path, RetrySettings(base_delay_ms=5, max_delay_ms=50, max_retries=3)
    )
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await submit(pilot, "hello")
        await until(lambda: "Retry 2 succeeded." in notices(app), pilot=pilot, what="the retry's outcome")
        assert keep_alive_server.faults_served == ["503", "503"]
        assert notices(app) == [f"Retry 1 failed: {ERROR_503}", "Retry 2 succeeded."]
        kinds = [type(child).__name__ for child in shown(app)]
        # Each failed reply, then the line of the retry that followed it; the good reply last.
        assert kinds == [
            "UserBlock",
            "AssistantBlock",
            "NoticeBlock",
            "AssistantBlock",
            "NoticeBlock",
            "AssistantBlock",
        ]
        outcome = shown(app)[4]
        assert outcome.has_class("-info") and not outcome.has_class("-warning")


async def test_a_cancelled_countdown_ends_as_cancelled_in_place(
    keep_alive_server: OpenAIServer, tmp_path: Path
) -> None:
    keep_alive_server.enqueue(faults.server_error(503))
    app = loopback_app(keep_alive_server, tmp_path, RetrySettings(base_delay_ms=60_000, max_delay_ms=60_000))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.screen.query_one(PromptArea).text = "hello"
        await pilot.press("enter")
        await until(
            lambda: any(text.startswith("Retrying (1/3) in ") for text in notices(app)),
            pilot=pilot,
            what="the countdown",
        )
        await pilot.press("escape")
        await until(lambda: "Retry cancelled" in " ".join(notices(app)), pilot=pilot, what="the cancellation")
        await settle(pilot)
        assert notices(app) == ["Retry failed after 1 attempts: Retry cancelled"]
        assert isinstance(shown(app)[-1], NoticeBlock) and shown(app)[-1].has_class("-error")


def user_shell_blocks(app: Any) -> list[tuple[str, bool, bool]]:
    """Each user command's head, whether it has the user-shell look, whether it shows an error."""
    return [
        (
            str(block.query_one(".tool-head").render()),
            block.has_class(USER_SHELL_CLASS),
            block.has_class("-error"),
        )
        for block in app.screen.query_one(ConversationView).query_children(ToolCallBlock)
    ]


async def test_user_commands_keep_their_look_and_mark_after_a_move_in_the_tree(tmp_path: Path) -> None:
    app, session, _ = make_chat_app(tmp_path, [ScriptedReply(text="one"), ScriptedReply(text="two")])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await submit(pilot, "first question")
        await submit(pilot, "!echo shown")
        await until(
            lambda: len(user_shell_blocks(app)) == 1 and "exit" in user_shell_blocks(app)[0][0], pilot=pilot
        )
        await submit(pilot, "!!echo private")
        await until(
            lambda: len(user_shell_blocks(app)) == 2 and "exit" in user_shell_blocks(app)[1][0], pilot=pilot
        )
        await submit(pilot, "second question")
        live = user_shell_blocks(app)
        assert live == [
            ("!  echo shown   [exit 0]", True, False),
            (f"!!  echo private   [exit 0, {NOT_SENT}]", True, False),
        ]

        await submit(pilot, "/tree")
        dialog = app.screen
        assert isinstance(dialog, TreeDialog)
        await pilot.press(*"second")
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ChoiceDialog)
        await pilot.press("enter")  # No summary
        await until(lambda: app.screen.query_one(PromptArea).text == "second question", pilot=pilot)
        await settle(pilot)
        kinds = [type(child) for child in app.screen.query_one(ConversationView).children]
        assert kinds == [UserBlock, AssistantBlock, ToolCallBlock, ToolCallBlock]
        assert user_shell_blocks(app) == live
        outputs = [str(block.query_one(".tool-tail").render()) for block in app.screen.query(ToolCallBlock)]
        assert outputs == ["shown", "private"]
        assert session.store.leaf_id is not None
