"""Automatic compaction on small windows (local models: 4k-32k), headless through the real OpenAI client
and the loopback server: with no budget set, the kept tail and the reserve scale with the window, so the
threshold is crossed with something older than the kept tail and a summary is written by itself. pi 1.6's
`compaction.modelOverrides` wins over the ordinary settings for its model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_tui.config.compaction_budget import resolved_compaction
from pi_tui.config.model_config import ModelConfig
from pi_tui.config.models import resolve_model
from pi_tui.config.settings import CompactionSettings, RetrySettings, Settings
from pi_tui.context.resources import load_resources
from pi_tui.session.agent_session import AgentSession, SessionConfig
from pi_tui.session.compaction_ops import PreviewBasis, preview_for_store
from pi_tui.session.restore_hold import restore_cost
from pi_tui.session_file.entries import CompactionEntry
from pi_tui.session_file.store import SessionStore
from tests.context.compaction.session_support import long_session, user
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
