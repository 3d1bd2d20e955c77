"""Drift blame for the provider's dialect, end to end: real sessions in pi's recorded dialects against the
loopback server (with its prompt-cache emulator where it matters), the request records they write, and the
inspector and `pi-tui context` reading them back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_tui.ai.messages import AssistantMessage
from pi_tui.config.models import resolve_model
from pi_tui.config.paths import models_path
from pi_tui.config.settings import Settings
from pi_tui.context.resources import load_resources
from pi_tui.modes.context_command import run_context_command
from pi_tui.session.agent_session import AgentSession, SessionConfig
from pi_tui.session.inspector import build_inspector_data
from pi_tui.session_file.store import SessionStore
from pi_tui.tui.inspector_view import drift_alerts
from tests.support.anthropic_stream import anthropic_reply
from tests.support.cache_emulator import PromptCache
from tests.support.openai_server import OpenAIServer, StreamReply, chunk, text_reply, tool_call_delta, usage
from tests.support.pi_dialects import install_models


def session_on(store: SessionStore, ref: str, tmp_path: Path) -> AgentSession:
    resolution = resolve_model(ref)
    assert resolution.model is not None
    return AgentSession(
        SessionConfig(
            store=store,
            resources=load_resources(tmp_path, settings=Settings(), home=tmp_path),
            model=resolution.model,
            api_key=resolution.api_key,
        )
    )


def reads(*paths: str, text: str = "", first: int = 1) -> StreamReply:
    """A reply calling `read` once per path (after `text`, if any)."""
    calls = [
        tool_call_delta(n, call_id=f"call_{first + n}", name="read", arguments=json.dumps({"path": path}))
        for n, path in enumerate(paths)
    ]
    chunks = [chunk(content=text)] if text else []
    chunks += [chunk(tool_calls=[call]) for call in calls]
    chunks += [chunk(finish_reason="tool_calls"), chunk(no_choices=True, usage=usage(100, 10))]
    return StreamReply(chunks)


def drift_kinds(session: AgentSession) -> list[str | None]:
    data = build_inspector_data(session.store, Settings(), session.model)
    return [view.drift.kind if view.drift is not None else None for view in data.records]


def marked_messages(body: dict[str, object]) -> list[int]:
    """Indexes of the messages that carry a cache marker."""
    messages = body["messages"]
    assert isinstance(messages, list)
    return [
        index
        for index, message in enumerate(messages)
        if isinstance(message["content"], list)
        and any("cache_control" in part for part in message["content"])
    ]


@pytest.fixture
def anthropic(openai_server: OpenAIServer, tmp_path: Path) -> AgentSession:
    """A session on OpenRouter's Anthropic dialect, against a marker cache that writes every prefix."""
    ref = install_models("openrouter-anthropic", openai_server)
    openai_server.cache = PromptCache("marker", min_tokens=0)
    for name in ("app.py", *(f"f{n}.py" for n in range(11))):
        (tmp_path / name).write_text(f"# {name}\n", encoding="utf-8")
    return session_on(SessionStore.create(str(tmp_path), tmp_path / "sessions"), ref, tmp_path)


async def test_a_conversation_on_the_marker_dialect_has_no_drift_while_its_marker_moves(
    anthropic: AgentSession, openai_server: OpenAIServer
) -> None:
    openai_server.enqueue(
        text_reply("Hello."),
        reads("app.py", text="Let me look."),
        text_reply("It prints its name."),
        text_reply("You are welcome."),
    )
    for prompt in ("Hi.", "What does app.py do?", "Thanks."):
        await anthropic.prompt(prompt)

    bodies = [request.body for request in openai_server.requests]
    assert len(bodies) == 4
    newest = [marked_messages(body)[-1] for body in bodies]
    assert newest == sorted(set(newest)), "the newest-message marker moves with every request"
    assert drift_kinds(anthropic) == [None, "none", "none", "none"]
    # Each record kept where that request's markers were, in the provider's blocks.
    records = [
        view.record for view in build_inspector_data(anthropic.store, Settings(), anthropic.model).records
    ]
    blocks = PromptCache("marker").blocks
    sent = [[n + 1 for n, block in enumerate(blocks(body)) if block.marker] for body in bodies]
    assert [[end for _, end in record.wire.markers] for record in records if record.wire] == sent
    # The emulated provider read every previous request whole: nothing was lost to the moving marker.
    assert [result.reused_share_of_previous for result in openai_server.cache_results[1:]] == [1.0] * 3


async def test_a_run_of_tool_calls_beyond_the_lookback_is_blamed_on_the_moved_marker(
    anthropic: AgentSession, openai_server: OpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    openai_server.enqueue(
        reads("app.py", text="Let me look."),
        reads(*(f"f{n}.py" for n in range(11)), first=2),
        text_reply("Read them all."),
        text_reply("You are welcome."),
    )
    await anthropic.prompt("Read app.py, then every f*.py.")
    await anthropic.prompt("Thanks.")

    assert drift_kinds(anthropic) == [None, "none", "cache_marker", "none"]
    # The emulator agrees: the third request could not read all the second one wrote; the fourth could.
    shares = [result.reused_share_of_previous for result in openai_server.cache_results]
    assert shares[2] is not None and shares[2] < 1.0 and shares[3] == 1.0

    store = anthropic.store
    data = build_inspector_data(store, Settings(), anthropic.model)
    event = data.records[2].drift
    assert event is not None and event.marker_gap == 22
    first_result = next(
        entry.id
        for entry in store.entries
        if entry.type == "message" and getattr(entry.message, "role", "") == "toolResult"
    )
    assert event.segment == first_result
    assert store.path is not None
    assert run_context_command([str(store.path)]) == 0
    report = capsys.readouterr().out
    assert (
        f"cache_marker: a cache marker moved: the prefix the last request cached (up to message"
        f" {event.message_number}) ends 22 blocks before the next marker; the provider looks back 20:"
        f" {event.reprocessed_tokens:,} tokens had to be re-read"
    ) in report


async def test_a_cloned_session_blames_its_new_cache_key(
    openai_server: OpenAIServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("PI_CACHE_RETENTION", "long")  # the key goes to any server that keeps caches a day
    ref = install_models("openai-plain", openai_server)
    openai_server.enqueue(text_reply("Hello."), text_reply("Still here."))
    original = session_on(SessionStore.create(str(tmp_path), tmp_path / "sessions"), ref, tmp_path)
    await original.prompt("Hi.")
    assert original.store.leaf_id is not None
    clone = session_on(original.store.create_branched_session(original.store.leaf_id), ref, tmp_path)
    await clone.prompt("Are you there?")

    old, new = original.store.session_id, clone.store.session_id
    assert [request.body["prompt_cache_key"] for request in openai_server.requests] == [old, new]
    assert drift_kinds(clone) == [None, "cache_key"]
    assert clone.store.path is not None
    assert run_context_command([str(clone.store.path), "--json"]) == 0
    drift = json.loads(capsys.readouterr().out)["records"][-1]["drift"]
    assert (drift["kind"], drift["was"], drift["now"]) == ("cache_key", old, new)
    cost = f"{drift['reprocessedTokens']:,}"
    assert drift["cause"] == f"the cache key changed ({old} → {new})"
    assert run_context_command([str(clone.store.path)]) == 0
    assert f"cache_key: the cache key changed ({old} → {new}): {cost} tokens had to be re-read" in (
        capsys.readouterr().out
    )


async def test_anthropic_says_why_its_cache_missed_beside_pi_tuis_blame(
    openai_server: OpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With `compat.sendCacheMissDiagnostics` each request names the previous reply; the server answers
    with Anthropic's `cache_miss_reason` (emulated from the requests it saw), the reply keeps it, and the
    Context pane and `pi-tui context` show it beside pi-tui's own blame: none after an append-only turn,
    `tools_changed` with the tokens it could not read when the tool set changed."""
    models = {
        "providers": {
            "anth": {
                "baseUrl": openai_server.anthropic_base_url,
                "api": "anthropic-messages",
                "apiKey": "sk-ant-test-key",
                "models": [
                    {"id": "claude-plain-4", "maxTokens": 8000, "compat": {"sendCacheMissDiagnostics": True}}
                ],
            }
        }
    }
    models_path().parent.mkdir(parents=True, exist_ok=True)
    models_path().write_text(json.dumps(models), encoding="utf-8")
    openai_server.cache = PromptCache("marker", min_tokens=0)
    openai_server.enqueue(
        *(
            anthropic_reply(text=text, message_id=f"msg_{n}")
            for n, text in enumerate(("One.", "Two.", "Three."))
        )
    )
    session = session_on(
        SessionStore.create(str(tmp_path), tmp_path / "sessions"), "anth/claude-plain-4", tmp_path
    )
    await session.prompt("First.")
    await session.prompt("Second.")
    await session.set_active_tools(["read", "bash"])
    await session.prompt("Third.")

    assert [request.body["diagnostics"] for request in openai_server.requests] == [
        {"previous_message_id": None},
        {"previous_message_id": "msg_0"},
        {"previous_message_id": "msg_1"},
    ]
    replies = [message for message in session.agent.state.messages if isinstance(message, AssistantMessage)]
    missed = openai_server.cache_results[1].prompt_tokens - openai_server.cache_results[2].cached_tokens
    assert missed > 0
    assert replies[-1].diagnostics == [
        {"type": "anthropic_cache_miss", "details": {"reason": "tools_changed", "missedTokens": missed}}
    ]
    assert not replies[1].diagnostics  # append-only: Anthropic found nothing to say
    data = build_inspector_data(session.store, Settings(), session.model)
    alerts = [alert.text for alert in drift_alerts(data)]
    said = f"Anthropic says: the tools changed ({missed:,} tokens not read from cache)"
    assert alerts[0].startswith("Drift: the system prompt changed (its tools part): ")
    assert alerts[0].endswith(f" tokens had to be re-read · {said}")

    assert session.store.path is not None
    assert run_context_command([str(session.store.path), "--json"]) == 0
    records = json.loads(capsys.readouterr().out)["records"]
    assert [record["drift"] and record["drift"]["providerCause"] for record in records] == [None, None, said]
    assert records[-1]["record"]["providerMiss"] == {"reason": "tools_changed", "missedTokens": missed}
    assert run_context_command([str(session.store.path)]) == 0
    assert f"; {said}" in capsys.readouterr().out
