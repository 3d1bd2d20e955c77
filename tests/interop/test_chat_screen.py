"""A pi session opened in the chat screen shows pi's conversation, and a reply continues it in pi's format."""

from __future__ import annotations

from pathlib import Path

from pi_tui.ai.messages import AssistantMessage, CompactionSummaryMessage, UserMessage, user_text
from pi_tui.ai.scripted import ScriptedProvider, ScriptedReply
from pi_tui.config.model_config import ModelConfig
from pi_tui.config.settings import Settings
from pi_tui.context.resources import load_resources
from pi_tui.session.runtime import AgentSessionRuntime, RuntimeOptions
from pi_tui.session.services import AgentSessionServices
from pi_tui.session_file.store import SessionStore
from pi_tui.tui.app import PiTuiApp
from pi_tui.tui.screens.chat import ChatScreen
from pi_tui.tui.widgets.conversation import ConversationView
from pi_tui.tui.widgets.message_blocks import AssistantBlock, EarlierMessages, NoticeBlock, UserBlock
from pi_tui.tui.widgets.parked_markdown import markdown_source
from tests.interop.pi_schema import check_appended
from tests.tui.pilot_helpers import settle

MODEL = ModelConfig(id="scripted-model", provider="scripted", context_window=128_000)


async def test_chat_screen_shows_a_pi_session_and_continues_it(
    pi_folder: Path, project: Path, tmp_path: Path
) -> None:
    path = pi_folder / "c-auto-compaction.jsonl"
    context = SessionStore.open(path).build_context().messages
    provider = ScriptedProvider([ScriptedReply(text="Continued from the browser of sessions.")])

    def services(cwd: Path) -> AgentSessionServices:
        resources = load_resources(cwd, settings=Settings(), home=tmp_path, include_builtin=False)
        return AgentSessionServices(cwd=cwd, resources=resources)

    runtime = AgentSessionRuntime(
        SessionStore.open(path, cwd=str(project)),
        RuntimeOptions(model=MODEL, api_key="unused", stream_fn=provider, services_factory=services),
    )
    opened = path.read_bytes()  # opening with another model records a model_change (pi-tui's choice)
    app = PiTuiApp(
        cwd=project,
        session_root=tmp_path / "sessions",
        pi_session_root=pi_folder.parent,
        setup_notice="",
        runtime=runtime,
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ChatScreen)
        blocks = list(app.screen.query_one(ConversationView).children)

        assert [type(message) for message in context] == [CompactionSummaryMessage] + [
            UserMessage,
            AssistantMessage,
        ] * 4
        # The branch as it happened, as the live conversation showed it: the history before the latest
        # compaction stays above its note (older pages behind the "earlier messages" line).
        assert isinstance(blocks[0], EarlierMessages)
        assert [type(block) for block in blocks[-9:]] == [UserBlock, AssistantBlock] * 3 + [
            NoticeBlock,
            UserBlock,
            AssistantBlock,
        ]
        summary = context[0]
        assert isinstance(summary, CompactionSummaryMessage)
        assert str(blocks[-3].render()) == f"Compacted {summary.tokens_before:,} → ? tokens (whole request)"
        kept = [block for block in blocks[-9:] if not isinstance(block, NoticeBlock)]
        for block, message in zip(kept, context[1:], strict=True):
            if isinstance(message, UserMessage):
                assert isinstance(block, UserBlock) and str(block.render()) == user_text(message)
            else:
                assert isinstance(message, AssistantMessage)
                assert markdown_source(block) == message.text

        await pilot.press(*"and now?", "enter")
        await runtime.session.wait_for_idle()
        await settle(pilot)
        assert [type(block) for block in app.screen.query_one(ConversationView).children][-2:] == [
            UserBlock,
            AssistantBlock,
        ]

    new = check_appended(opened, path.read_bytes())
    roles = [entry["message"]["role"] for entry in new if entry["type"] == "message"]
    assert roles == ["system", "user", "assistant"]  # pi 1.6: the prompt and tools come first
