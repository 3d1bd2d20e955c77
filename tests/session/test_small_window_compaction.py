"""Automatic compaction on small windows (local models: 4k-32k), headless through the real OpenAI client
and the loopback server: with no budget set, the kept tail and the reserve scale with the window, so the
threshold is crossed with something older than the kept tail and a summary is written by itself, and an
overflow the provider reports is compacted and retried. pi 1.6's `compaction.modelOverrides` wins over the
ordinary settings for its model. When compaction truly cannot run, the session, the Context pane's data
and the footer's test give one reason (`compaction_blocker`), and the conversation is told once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_tui.ai.scripted import ScriptedProvider, ScriptedReply, ScriptedUsage
from pi_tui.config.compaction_budget import resolved_compaction
from pi_tui.config.model_config import ModelConfig
from pi_tui.config.models import resolve_model
from pi_tui.config.settings import CompactionSettings, RetrySettings, Settings
from pi_tui.context.compaction.blocker import blocked_at, compaction_blocker
from pi_tui.context.resources import load_resources
from pi_tui.session.agent_session import AgentSession, SessionConfig
from pi_tui.session.compaction_ops import PreviewBasis, preview_for_store
from pi_tui.session.inspector import build_inspector_data
from pi_tui.session.restore_hold import restore_cost
from pi_tui.session.session_events import AnyEvent, CompactionEndEvent, CompactionStartEvent
from pi_tui.session_file.entries import CompactionEntry
from pi_tui.session_file.store import SessionStore
from tests.context.compaction.session_support import long_session, user
from tests.support import faults
from tests.support.cli_process import write_local_models
from tests.support.conversation import roles
from tests.support.openai_server import OpenAIServer, text_reply

WINDOWS = [4_096, 8_192, 16_384, 32_768]
MAX_PROMPTS = 12


def make_session(server: OpenAIServer, tmp_path: Path, window: int, settings: Settings) -> AgentSession:
    write_local_models(server, {"id": "small", "contextWindow": window, "maxTokens": 512})
    resolution = resolve_model("local/small")
    assert resolution.model is not None
    return AgentSession(
        SessionConfig(
            store=SessionStore.create(str(tmp_path), tmp_path / "sessions"),
            resources=load_resources(tmp_path, settings=settings, home=tmp_path, include_builtin=False),
            model=resolution.model,
            api_key=resolution.api_key,
        )
    )


def compactions(session: AgentSession) -> list[CompactionEntry]:
    return [entry for entry in session.store.entries if isinstance(entry, CompactionEntry)]


@pytest.mark.parametrize("window", WINDOWS)
async def test_automatic_compaction_fires_on_a_small_window_with_default_budgets(
    openai_server: OpenAIServer, tmp_path: Path, window: int
) -> None:
    # pi's usage figure: the request's bytes / 4, as the pi 1.6 fixtures' server reports it.
    openai_server.count_prompt = lambda body: len(json.dumps(body)) // 4
    session = make_session(openai_server, tmp_path, window, Settings(retry=RetrySettings(enabled=False)))
    settings = resolved_compaction(session.resources.settings.compaction, session.model)
    assert settings.keep_recent_tokens == min(20_000, window // 4)
    assert settings.reserve_tokens == min(16_384, window // 4)
    events: list[AnyEvent] = []
    session.subscribe(events.append)
    words = "word " * (window // 12)  # about a tenth of the window per prompt, with its reply
    for turn in range(MAX_PROMPTS):
        openai_server.enqueue(
            text_reply(f"reply {turn} " + "ok " * (window // 80)), text_reply("## Goal\nSmall.")
        )
        await session.prompt(f"turn {turn}: {words}")
        await session.wait_for_idle()
        if compactions(session):
            break
    [entry, *_] = compactions(session)
    assert entry.details is not None and entry.details["reason"] == "threshold"
    assert entry.summary  # the summary call was served the next scripted reply
    kept = session.store.build_context()
    # Older turns were summarised away (the compaction's prompt checkpoint is not a turn).
    assert len(roles(kept.messages)) < 2 * (turn + 1)
    before = len(openai_server.requests)
    assert before == turn + 2  # every prompt's request, and one summary call
    # Nothing ever said compaction could not run: the blocker answered None when the trigger asked.
    assert not [event for event in events if isinstance(event, CompactionEndEvent) and event.error_message]


@pytest.mark.parametrize("window", WINDOWS)
async def test_an_overflow_on_a_small_window_is_compacted_and_retried(
    openai_server: OpenAIServer, tmp_path: Path, window: int
) -> None:
    """Default budgets; the server reports small prompts (no threshold compaction), then refuses one as
    too long: the session summarises the older turns and sends the request again, once."""
    openai_server.count_prompt = lambda body: 10
    session = make_session(openai_server, tmp_path, window, Settings(retry=RetrySettings(enabled=False)))
    events: list[AnyEvent] = []
    session.subscribe(events.append)
    words = "word " * (window // 12)
    for turn in range(4):
        openai_server.enqueue(text_reply(f"reply {turn}"))
        await session.prompt(f"turn {turn}: {words}")
        await session.wait_for_idle()
    assert not compactions(session)
    openai_server.enqueue(faults.context_overflow(), text_reply("## Goal\nSmall."), text_reply("recovered"))

    await session.prompt(f"turn 4: {words}")
    await session.wait_for_idle()

    assert openai_server.faults_served == ["overflow"]
    [entry] = compactions(session)
    assert entry.details is not None and entry.details["reason"] == "overflow"
    ends = [event for event in events if isinstance(event, CompactionEndEvent)]
    assert [(end.reason, end.will_retry, end.result is not None) for end in ends] == [
        ("overflow", True, True)
    ]
    assert session.last_assistant_text() == "recovered"


BLOCKED_WINDOW = 8_192
"""With `keepRecentTokens` 10,000 set, above this window's threshold (8,192 − 2,048 = 6,144)."""


def blocked_session(tmp_path: Path, replies: list[ScriptedReply]) -> tuple[AgentSession, ScriptedProvider]:
    provider = ScriptedProvider(replies)
    settings = Settings(
        compaction=CompactionSettings(keep_recent_tokens=10_000), retry=RetrySettings(enabled=False)
    )
    session = AgentSession(
        SessionConfig(
            store=SessionStore.create(str(tmp_path), tmp_path / "sessions"),
            resources=load_resources(tmp_path, settings=settings, home=tmp_path, include_builtin=False),
            model=ModelConfig(id="m", provider="scripted", context_window=BLOCKED_WINDOW),
            api_key="unused",
            stream_fn=provider,
        )
    )
    return session, provider


def over_threshold(text: str) -> ScriptedReply:
    return ScriptedReply(text=text, usage=ScriptedUsage(input=7_000, output=50))


async def test_a_kept_tail_above_the_threshold_blocks_compaction_and_says_which_setting(
    tmp_path: Path,
) -> None:
    session, provider = blocked_session(
        tmp_path, [over_threshold("one"), over_threshold("two"), ScriptedReply(text="## Goal\nnever")]
    )
    events: list[AnyEvent] = []
    session.subscribe(events.append)

    await session.prompt("first")
    await session.prompt("second")

    assert provider.calls == 2  # no summary call
    assert not [event for event in events if isinstance(event, CompactionStartEvent)]
    settings = session.resources.settings.compaction
    block = compaction_blocker(session.store.get_branch(), settings, session.model)
    assert block is not None and block.kind == "nothing_older"
    assert block.setting == "compaction.keepRecentTokens"
    assert block.text == "nothing older than the kept 10,000 recent tokens (compaction.keepRecentTokens)"
    assert block.change == "set compaction.keepRecentTokens below the threshold (6,144)"
    # Told once in the conversation, though both replies were over the threshold.
    [end] = [event for event in events if isinstance(event, CompactionEndEvent)]
    assert end.reason == "threshold" and end.result is None
    assert end.error_message == (
        "Auto-compaction cannot run: nothing older than the kept 10,000 recent tokens"
        " (compaction.keepRecentTokens). To let it run: set compaction.keepRecentTokens below the"
        " threshold (6,144)."
    )
    # The Context pane's data and the footer's test give the same answer.
    data = build_inspector_data(session.store, session.resources.settings, session.model)
    assert data.geometry.used_tokens > data.geometry.threshold
    assert data.blocked == block
    assert blocked_at(data.geometry.used_tokens, session.store.get_branch(), settings, session.model) == block
    assert blocked_at(data.geometry.threshold, session.store.get_branch(), settings, session.model) is None


def test_the_blocker_names_a_model_override_and_compaction_off(tmp_path: Path) -> None:
    store = long_session(tmp_path, 3)
    model = ModelConfig(id="small", provider="local", context_window=BLOCKED_WINDOW)
    overridden = CompactionSettings.model_validate(
        {"modelOverrides": {"local/small": {"keepRecentTokens": 50_000}}}
    )
    block = compaction_blocker(store.get_branch(), overridden, model)
    assert block is not None
    assert block.text == (
        "nothing older than the kept 50,000 recent tokens"
        ' (compaction.modelOverrides["local/small"].keepRecentTokens)'
    )
    off = compaction_blocker(store.get_branch(), CompactionSettings(enabled=False), model)
    assert off is not None and off.text == "compaction is off (compaction.enabled)"
    assert compaction_blocker(store.get_branch(), CompactionSettings(keep_recent_tokens=10), model) is None


def test_model_overrides_win_over_the_ordinary_settings_for_their_model_only() -> None:
    settings = CompactionSettings.model_validate(
        {
            "reserveTokens": 9_000,
            "modelOverrides": {
                "local/small": {"keepRecentTokens": 1_500},
                "local/big": {"reserveTokens": 40_000},
            },
        }
    )
    small = ModelConfig(id="small", provider="local", context_window=8_192)
    big = ModelConfig(id="big", provider="local", context_window=1_000_000)
    other = ModelConfig(id="other", provider="local", context_window=8_192)
    on_small = resolved_compaction(settings, small)
    assert (on_small.reserve_tokens, on_small.keep_recent_tokens) == (9_000, 1_500)  # override, ordinary
    on_big = resolved_compaction(settings, big)
    assert (on_big.reserve_tokens, on_big.keep_recent_tokens) == (40_000, 20_000)
    on_other = resolved_compaction(settings, other)
    assert (on_other.reserve_tokens, on_other.keep_recent_tokens) == (9_000, 2_048)  # unset: scaled
    assert resolved_compaction(settings, big).model_overrides == settings.model_overrides


def test_an_invalid_override_is_an_error_when_read() -> None:
    with pytest.raises(ValueError):
        CompactionSettings.model_validate({"modelOverrides": {"local/small": {"keepRecentTokens": -1}}})
    with pytest.raises(ValueError):
        CompactionSettings.model_validate({"modelOverrides": {"local/small": 5}})


def test_the_restore_dialog_and_the_preview_use_the_windows_budgets(tmp_path: Path) -> None:
    """A 12,000 window: the threshold is 9,000 (not 0, as the dialog said with the unscaled reserve), and
    the summary budget is 0.8 of the 3,000 reserve (not 13,107, more than the window)."""
    store = long_session(tmp_path, 30)
    model = ModelConfig(id="m", provider="local", context_window=12_000)
    entry = store.append_compaction("## Goal\nx", store.get_branch()[-4].id, 9_000, {}, from_hook=False)
    cost = restore_cost(store, entry.id, model, CompactionSettings())
    assert cost is not None and (cost.window, cost.threshold) == (12_000, 9_000)
    store.append_message(user("and more " * 2_000))
    preview = preview_for_store(store, PreviewBasis(CompactionSettings(), model))
    assert not isinstance(preview, str) and preview.summary_budget == 2_400
