"""A restore sticks: automatic compaction waits until the user has spoken and the next request would
overflow, across a restart; the cost of a restore is known before it is made."""

from __future__ import annotations

from pathlib import Path

from pi_tui.ai.messages import AssistantMessage, TextContent, Usage, UserMessage
from pi_tui.config.model_config import ModelConfig
from pi_tui.config.models import resolve_model
from pi_tui.config.settings import CompactionSettings, RetrySettings, Settings
from pi_tui.context.compaction.triggers import RestoreHoldState, check_compaction, typical_turn_tokens
from pi_tui.context.resources import load_resources
from pi_tui.session.agent_session import AgentSession, SessionConfig
from pi_tui.session.restore_hold import restore_cost, restore_hold
from pi_tui.session_file.entries import CompactionEntry
from pi_tui.session_file.store import SessionStore
from tests.session.test_agent_session_retry import write_models
from tests.support.openai_server import OpenAIServer, StreamReply, chunk, usage

WINDOW = 10_000
SETTINGS = Settings(
    compaction=CompactionSettings(reserve_tokens=2_000, keep_recent_tokens=150, strategy="serialize"),
    retry=RetrySettings(enabled=False),
)


def reply(text: str, prompt_tokens: int) -> StreamReply:
    return StreamReply(
        [
            chunk(content=text),
            chunk(finish_reason="stop"),
            chunk(no_choices=True, usage=usage(prompt_tokens, 10)),
        ]
    )


def open_session(tmp_path: Path, store: SessionStore) -> AgentSession:
    resolution = resolve_model("local/primary")
    assert resolution.model is not None
    model = resolution.model.model_copy(update={"context_window": WINDOW})
    return AgentSession(
        SessionConfig(
            store=store,
            resources=load_resources(tmp_path, settings=SETTINGS, home=tmp_path),
            model=model,
            api_key=resolution.api_key,
        )
    )


def compactions(store: SessionStore) -> list[CompactionEntry]:
    return [entry for entry in store.entries if isinstance(entry, CompactionEntry)]


async def test_after_a_restore_compaction_waits_until_the_next_request_would_overflow(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    write_models(openai_server, "primary")
    openai_server.enqueue(
        reply("first answer " * 20, 3_000),
        reply("second answer " * 20, 8_500),  # above the threshold (8,000): compacts after this run
        reply("## Goal\nSummary.", 500),
    )
    session = open_session(tmp_path, SessionStore.create(str(tmp_path), tmp_path / "sessions"))
    await session.prompt("first question " * 30)
    await session.prompt("second question " * 30)
    [compaction] = compactions(session.store)
    restored = await session.restore_compaction(compaction.id)
    assert restored.error is None
    hold = restore_hold(session.store)
    assert hold is not None and hold.compaction_id == compaction.id and not hold.user_spoke

    # The restored context is above the threshold; the next prompt and its reply do not compact again.
    openai_server.enqueue(reply("third answer", 8_700))
    await session.prompt("third question")
    assert len(compactions(session.store)) == 1 and len(openai_server.requests) == 4
    hold = restore_hold(session.store)
    assert hold is not None and hold.user_spoke

    # A restart keeps the pause (it is read from the file); a reply whose next request would overflow
    # the window ends it.
    assert session.store.path is not None
    reopened = open_session(tmp_path, SessionStore.open(session.store.path))
    openai_server.enqueue(reply("fourth answer", 9_950), reply("## Goal\nSummary again.", 500))
    await reopened.prompt("fourth question")
    assert len(compactions(reopened.store)) == 2
    assert restore_hold(reopened.store) is None


def message_pair(text: str, tokens: int, at: int) -> list[AssistantMessage | UserMessage]:
    return [
        UserMessage(content=[TextContent(text=text)], timestamp=at),
        AssistantMessage(
            content=[TextContent(text=text)], usage=Usage(total_tokens=tokens), provider="p", model="m",
            timestamp=at + 1,
        ),
    ]  # fmt: skip


def test_the_trigger_holds_over_the_threshold_until_the_user_spoke_and_overflow_is_forecast() -> None:
    model = ModelConfig(id="m", provider="p", context_window=WINDOW)
    settings = SETTINGS.compaction
    messages = message_pair("x" * 400, 8_500, 1)  # a turn of about 200 tokens
    assert typical_turn_tokens(messages) == 200

    def kind(tokens: int, hold: RestoreHoldState | None) -> str:
        last = messages[-1]
        assert isinstance(last, AssistantMessage)
        reply = last.model_copy(update={"usage": Usage(total_tokens=tokens)})
        return check_compaction(reply, [*messages[:-1], reply], model=model, settings=settings,
                                latest_compaction_ms=None, hold=hold).kind  # fmt: skip

    assert kind(8_500, None) == "threshold"
    assert kind(8_500, RestoreHoldState(user_spoke=False)) == "held"
    assert kind(9_900, RestoreHoldState(user_spoke=False)) == "held"
    assert kind(9_800, RestoreHoldState(user_spoke=True)) == "held"  # 9,800 + 200 is not above 10,000
    assert kind(9_801, RestoreHoldState(user_spoke=True)) == "threshold"
    assert kind(7_000, RestoreHoldState(user_spoke=True)) == "none"


async def test_the_cost_of_a_restore_is_said_before_it_is_made(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    write_models(openai_server, "primary")
    openai_server.enqueue(
        reply("first answer " * 20, 3_000),
        reply("second answer " * 20, 8_500),
        reply("## Goal\nSummary.", 500),
    )
    session = open_session(tmp_path, SessionStore.create(str(tmp_path), tmp_path / "sessions"))
    await session.prompt("first question " * 30)
    await session.prompt("second question " * 30)
    [compaction] = compactions(session.store)
    cost = restore_cost(session.store, compaction.id, session.model, SETTINGS.compaction)
    assert cost is not None
    assert cost.context_tokens >= 8_500 and cost.above_threshold
    assert (
        cost.messages_back
        == len([m for m in session.store.build_context().messages if m.role != "compactionSummary"])
        or cost.messages_back >= 1
    )
    text = cost.describe()
    assert text.startswith(f"Brings back the {cost.messages_back} message")
    assert f"about {cost.context_tokens:,} of 10,000 tokens" in text
    assert "automatic compaction pauses until you have sent a message" in text
    assert restore_cost(session.store, "nope", session.model, SETTINGS.compaction) is None
