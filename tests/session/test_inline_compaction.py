"""Compaction that reads the conversation from the provider's cache (the inline strategy), end to end:
real sessions against the loopback server with its prompt-cache emulator, in pi's recorded dialects."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi_tui.config.models import resolve_model
from pi_tui.config.settings import CompactionSettings, Settings
from pi_tui.context.compaction.inline_prompts import STOP_PREAMBLE, TURN_CONTEXT_DIVIDER
from pi_tui.context.compaction.prompts import SPLIT_TURN_SEPARATOR, SUMMARIZATION_SYSTEM_PROMPT
from pi_tui.context.compaction.summary_run import SummaryCallFacts
from pi_tui.context.resources import load_resources
from pi_tui.modes.compaction_commands import run_compactions_command
from pi_tui.session.agent_session import AgentSession, SessionConfig
from pi_tui.session.compaction_ops import PreviewBasis
from pi_tui.session.compaction_records import audit_compaction, diff_compaction
from pi_tui.session_file.entries import CompactionEntry
from pi_tui.session_file.store import SessionStore
from pi_tui.tui.timeline_view import detail_for
from tests.interop.pi_reference import pi_context, read_entries
from tests.support.cache_emulator import PromptCache
from tests.support.openai_server import OpenAIServer, StreamReply, chunk, text_reply, tool_call_delta, usage
from tests.support.pi_dialects import install_models

SUMMARY = "## Goal\nRead the files.\n\n## Progress\n### Done\n- [x] Read a.py"


def session_on(tmp_path: Path, ref: str, strategy: str = "auto", keep: int = 180) -> AgentSession:
    resolution = resolve_model(ref)
    assert resolution.model is not None
    settings = Settings(compaction=CompactionSettings(keep_recent_tokens=keep, strategy=strategy))  # type: ignore[arg-type]
    return AgentSession(
        SessionConfig(
            store=SessionStore.create(str(tmp_path), tmp_path / "sessions"),
            resources=load_resources(tmp_path, settings=settings, home=tmp_path),
            model=resolution.model,
            api_key=resolution.api_key,
        )
    )


def read_call(path: str, call_id: str) -> StreamReply:
    call = tool_call_delta(0, call_id=call_id, name="read", arguments=json.dumps({"path": path}))
    return StreamReply(
        [chunk(content="Let me look."), chunk(tool_calls=[call]), chunk(finish_reason="tool_calls"),
         chunk(no_choices=True, usage=usage(100, 10))]
    )  # fmt: skip


def text_of(message: dict[str, Any]) -> str:
    content = message["content"]
    return content if isinstance(content, str) else "".join(part.get("text", "") for part in content)


def without_markers(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: without_markers(item) for key, item in value.items() if key != "cache_control"}
    if isinstance(value, list):
        return [without_markers(item) for item in value]
    return value


def plain(message: dict[str, Any]) -> dict[str, Any]:
    """A message as the cache sees it: no markers, string and one-part content alike."""
    message = without_markers(message)
    content = message.get("content")
    if isinstance(content, list) and len(content) == 1 and content[0].get("type") == "text":
        message = {**message, "content": content[0]["text"]}
    return message


async def three_turns(session: AgentSession, server: OpenAIServer, tmp_path: Path) -> None:
    for name in ("a.py", "b.py", "c.py"):
        (tmp_path / name).write_text(f"# {name}\n" + "value = 1\n" * 40, encoding="utf-8")
    for turn, name in enumerate(("a.py", "b.py", "c.py")):
        server.enqueue(read_call(name, f"call_{turn}"), text_reply(f"{name} sets value to 1. " * 8))
        await session.prompt(f"Read {name} and tell me what it does, step {turn}. " + "Be thorough. " * 10)


@pytest.fixture
def marker_server(openai_server: OpenAIServer) -> OpenAIServer:
    openai_server.cache = PromptCache("marker", min_tokens=0)
    return openai_server


async def test_the_summary_request_is_the_last_request_plus_instructions_and_reads_it_from_cache(
    marker_server: OpenAIServer, tmp_path: Path
) -> None:
    session = session_on(tmp_path, install_models("openrouter-anthropic", marker_server))
    await three_turns(session, marker_server, tmp_path)
    marker_server.enqueue(text_reply(SUMMARY))
    outcome = await session.compact()

    assert outcome.ok, outcome.error
    *_, last_turn, summary_call = [request.body for request in marker_server.requests]
    # Byte for byte the conversation the model saw (up to where the markers sit), its reply, then one
    # instructions message; same tools, same system prompt, same cache key.
    assert summary_call["tools"] == last_turn["tools"]
    sent = summary_call["messages"]
    assert [plain(m) for m in sent[: len(last_turn["messages"])]] == [plain(m) for m in last_turn["messages"]]
    assert sent[len(last_turn["messages"])]["role"] == "assistant"
    assert len(sent) == len(last_turn["messages"]) + 2
    instructions = text_of(sent[-1])
    assert sent[-1]["role"] == "user" and instructions.startswith(STOP_PREAMBLE)
    assert "“Read c.py and tell me what it does, step 2." in instructions, "the kept part is quoted"
    assert "tool_choice" not in summary_call, "Anthropic would drop its cache of the messages"
    assert summary_call.get("prompt_cache_key") == last_turn.get("prompt_cache_key")
    assert any("cache_control" in part for part in sent[-1]["content"]), "the instructions carry the marker"

    result = marker_server.cache_results[-1]
    # Everything the last turn sent is read from cache: only its reply and the instructions are new.
    assert result.reused_share_of_previous == 1.0
    assert result.cached_tokens == marker_server.cache_results[-2].prompt_tokens
    entry = session.store.get_entry(outcome.entry_id or "")
    assert isinstance(entry, CompactionEntry)
    assert entry.summary.startswith(SUMMARY)
    facts = SummaryCallFacts.from_details(entry.details)
    assert facts is not None and facts.strategy == "inline"
    assert facts.reason == "the provider caches prompts (marker)"
    assert (facts.cached_tokens, facts.uncached_tokens) == (
        result.cached_tokens, result.prompt_tokens - result.cached_tokens
    )  # fmt: skip
    assert (
        entry.details["readFiles"] == [str(tmp_path / "a.py"), str(tmp_path / "b.py")]
        or entry.details["readFiles"]
    )


async def test_the_serialising_strategy_pays_the_history_again(
    marker_server: OpenAIServer, tmp_path: Path
) -> None:
    session = session_on(
        tmp_path, install_models("openrouter-anthropic", marker_server), strategy="serialize"
    )
    await three_turns(session, marker_server, tmp_path)
    marker_server.enqueue(text_reply(SUMMARY))
    outcome = await session.compact()

    assert outcome.ok, outcome.error
    summary_call = marker_server.requests[-1].body
    assert text_of(summary_call["messages"][0]) == SUMMARIZATION_SYSTEM_PROMPT
    assert text_of(summary_call["messages"][1]).startswith("<conversation>")
    result = marker_server.cache_results[-1]
    assert result.cached_tokens == 0
    facts = outcome.summary_call
    assert facts is not None and (facts.strategy, facts.reason) == (
        "serialize",
        "compaction.strategy is serialize",
    )


async def test_a_reply_that_calls_a_tool_is_ignored_and_the_summary_is_asked_again_serialised(
    marker_server: OpenAIServer, tmp_path: Path
) -> None:
    session = session_on(tmp_path, install_models("openrouter-anthropic", marker_server))
    await three_turns(session, marker_server, tmp_path)
    marker_server.enqueue(read_call("d.py", "call_9"), text_reply(SUMMARY))
    outcome = await session.compact()

    assert outcome.ok, outcome.error
    inline, serialised = (request.body for request in marker_server.requests[-2:])
    assert text_of(inline["messages"][-1]).startswith(STOP_PREAMBLE)
    assert text_of(serialised["messages"][1]).startswith("<conversation>")
    assert not (tmp_path / "d.py").exists()
    entry = session.store.get_entry(outcome.entry_id or "")
    assert isinstance(entry, CompactionEntry)
    assert entry.details["summaryStrategy"] == "serialize"
    assert entry.details["inlineFallback"] == "the model called a tool instead of writing the summary"
    assert len(entry.details["summaryUsage"]) == 2, "the ignored call is billed too"
    assert entry.summary.startswith(SUMMARY)


async def test_a_split_turn_gets_both_summaries_from_one_call_stored_as_pi_stores_them(
    marker_server: OpenAIServer, tmp_path: Path
) -> None:
    session = session_on(tmp_path, install_models("openrouter-anthropic", marker_server), keep=60)
    for name in ("a.py", "b.py", "c.py", "d.py"):
        (tmp_path / name).write_text(f"# {name}\n" + "value = 1\n" * 40, encoding="utf-8")
    marker_server.enqueue(read_call("a.py", "call_0"), text_reply("a.py sets value. " * 8))
    await session.prompt("Read a.py. " + "Be thorough. " * 10)
    # One long turn: three reads in a row, so the cut falls inside it.
    marker_server.enqueue(
        read_call("b.py", "call_1"), read_call("c.py", "call_2"), read_call("d.py", "call_3"),
        text_reply("All read. " * 4),
    )  # fmt: skip
    await session.prompt("Now read b.py, c.py and d.py one by one.")
    history, prefix = "## Goal\nRead a.py.", "## Original Request\nRead b, c and d."
    marker_server.enqueue(text_reply(f"{history}\n\n{TURN_CONTEXT_DIVIDER}\n\n{prefix}"))
    outcome = await session.compact()

    assert outcome.ok, outcome.error
    assert len(marker_server.requests) == 7, "one call for both summaries"
    instructions = text_of(marker_server.requests[-1].body["messages"][-1])
    assert (
        TURN_CONTEXT_DIVIDER in instructions and "“Now read b.py, c.py and d.py one by one.”" in instructions
    )
    assert outcome.summary.startswith(history + SPLIT_TURN_SEPARATOR + prefix)


async def test_a_second_compaction_updates_the_first_summary_inside_the_conversation(
    marker_server: OpenAIServer, tmp_path: Path
) -> None:
    session = session_on(tmp_path, install_models("openrouter-anthropic", marker_server), keep=170)
    await three_turns(session, marker_server, tmp_path)
    marker_server.enqueue(text_reply(SUMMARY))
    assert (await session.compact()).ok
    for turn, name in enumerate(("a.py", "b.py"), start=3):
        marker_server.enqueue(read_call(name, f"call_{turn}"), text_reply(f"{name} again. " * 8))
        await session.prompt(f"Read {name} once more, step {turn}. " + "Be thorough. " * 10)
    marker_server.enqueue(text_reply(SUMMARY + "\n- [x] Read a.py again"))
    outcome = await session.compact()

    assert outcome.ok, outcome.error
    summary_call = marker_server.requests[-1].body
    first_user = text_of(summary_call["messages"][1])
    assert first_user.startswith("The conversation history before this point was compacted")
    assert SUMMARY in first_user
    instructions = text_of(summary_call["messages"][-1])
    assert "begins with a summary of earlier work (in <summary>)" in instructions
    assert "“Read b.py once more, step 4." in instructions
    assert marker_server.cache_results[-1].cached_tokens == marker_server.cache_results[-2].prompt_tokens
    # pi reads such a file as it reads its own: its rebuild of the context is pi-tui's.
    assert session.store.path is not None
    as_pi = pi_context(read_entries(session.store.path))["messages"]
    assert as_pi == [message.to_json_obj() for message in session.store.build_context().messages]
    # pi 1.6: the compaction's prompt checkpoint leads, then its summary.
    assert as_pi[0]["role"] == "system" and as_pi[1]["role"] == "compactionSummary"
    assert as_pi[1]["summary"].startswith(SUMMARY)


async def test_both_strategies_keep_the_same_file_lists_audit_and_diff(
    marker_server: OpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    entries: dict[str, CompactionEntry] = {}
    stores: dict[str, SessionStore] = {}
    for strategy in ("auto", "serialize"):
        folder = tmp_path / strategy
        folder.mkdir()
        session = session_on(folder, install_models("openrouter-anthropic", marker_server), strategy=strategy)
        await three_turns(session, marker_server, folder)
        marker_server.enqueue(text_reply(SUMMARY))
        outcome = await session.compact()
        assert outcome.ok, outcome.error
        entry = session.store.get_entry(outcome.entry_id or "")
        assert isinstance(entry, CompactionEntry)
        entries[strategy], stores[strategy] = entry, session.store

    inline, serialised = entries["auto"], entries["serialize"]
    assert (
        inline.details["summaryStrategy"] == "inline" and serialised.details["summaryStrategy"] == "serialize"
    )
    relative = {
        strategy: [Path(path).name for path in entry.details["readFiles"]]
        for strategy, entry in entries.items()
    }
    assert relative["auto"] == relative["serialize"] == ["a.py", "b.py"]
    audits = {strategy: audit_compaction(stores[strategy], entries[strategy].id) for strategy in entries}
    assert all(audit is not None for audit in audits.values())
    assert [item.text for item in audits["auto"].items] == [item.text for item in audits["serialize"].items]  # type: ignore[union-attr]
    assert diff_compaction(stores["auto"], inline.id) is not None

    # Where the figures are shown: the Compactions pane's detail and `pi-tui compactions`.
    detail = detail_for(stores["auto"], inline.id, PreviewBasis(CompactionSettings()))
    assert detail is not None
    shown = dict(detail.facts)["Summary call"]
    assert shown.startswith("inline: ") and "input tokens from cache" in shown
    assert stores["auto"].path is not None
    assert run_compactions_command([str(stores["auto"].path)]) == 0
    assert f"    summary call {shown}\n" in capsys.readouterr().out
