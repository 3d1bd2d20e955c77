"""`pi-tui context` on pi's own files and on a session with request records."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pi_tui.ai import tokens
from pi_tui.ai.messages import AssistantMessage, TextContent, Usage, UserMessage
from pi_tui.config.model_config import ModelConfig
from pi_tui.config.models import resolve_model
from pi_tui.config.paths import cwd_folder_name
from pi_tui.context.accounting.record import REQUEST_CUSTOM_TYPE, build_request_record, record_entry_data
from pi_tui.context.resources import load_resources
from pi_tui.modes.context_command import run_context_command
from pi_tui.session.agent_session import AgentSession, SessionConfig
from pi_tui.session_file.store import SessionStore
from tests.support.big_session import write_one_big_result
from tests.support.cli_process import write_local_models
from tests.support.encode_spy import EncodeSpy
from tests.support.openai_server import OpenAIServer, text_reply

FIXTURES = ("a-plain", "b-tools", "c-auto-compaction", "f-tree")


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, object]:
    assert run_context_command([*args, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert isinstance(data, dict)
    return data


@pytest.mark.parametrize("name", FIXTURES)
def test_pi_fixtures_are_reported_as_estimates(
    pi_fixtures: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = pi_fixtures / "pi-sessions" / f"{name}.jsonl"
    data = run_json(capsys, str(path))
    assert data["source"] == "estimate" and data["records"] == []
    assert data["model"] == "fake/fake-model"
    assert any("window assumed" in note for note in data["notes"])  # type: ignore[union-attr]
    geometry = data["geometry"]
    assert isinstance(geometry, dict)
    assert geometry["contextWindow"] == 128_000
    split = geometry["split"]
    assert sum(split.values()) == 128_000
    last_line = path.read_text().splitlines()[-1]
    assert data["leafId"] == json.loads(last_line)["id"]
    assert run_context_command([str(path)]) == 0
    text = capsys.readouterr().out
    assert "ESTIMATE" in text and "Budget [" in text and "Forecast: next request" in text
    assert "Cache: warming idle · miss notices off · cache lifetime not declared" in text
    # pi's fake model on OpenAI's address: an automatic cache without a published lifetime, so no
    # clock and no refresh (docs/compaction.md "Cache warming").
    assert "Cache clock: no cache clock · no refresh: cache lifetime unavailable" in text
    assert data["cacheSettings"] == {
        "cacheWarming": "idle",
        "warmingSent": False,
        "showCacheMissNotices": False,
        "promptCache": None,
        "effectivePromptCache": {},
        "lifetimeSource": "automatic cache, lifetime not published",
    }
    assert data["cacheClock"]["ttlSeconds"] is None and data["cacheClock"]["nextRefreshAt"] is None


def test_compacted_fixture_shows_all_parts_of_the_split(
    pi_fixtures: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = run_json(capsys, str(pi_fixtures / "pi-sessions" / "c-auto-compaction.jsonl"))
    split = data["geometry"]["split"]  # type: ignore[index]
    assert split["summary"] > 0 and split["kept"] > 0 and split["newTail"] > 0
    assert data["usage"]["source"] == "usage"  # type: ignore[index]
    assert data["geometry"]["boundary"] is not None  # type: ignore[index]


def test_leaf_option_and_unknown_leaf(pi_fixtures: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = pi_fixtures / "pi-sessions" / "f-tree.jsonl"
    first = json.loads(path.read_text().splitlines()[1])["id"]
    data = run_json(capsys, str(path), "--leaf", first)
    assert data["leafId"] == first
    assert run_context_command([str(path), "--leaf", "nope"]) == 1
    assert "not found" in capsys.readouterr().err


def test_missing_session_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_context_command([str(tmp_path / "none.jsonl")]) == 1
    assert "no session file" in capsys.readouterr().err


def write_recorded_session(folder: Path) -> Path:
    model = ModelConfig(id="m1", provider="p")
    store = SessionStore.create("/home/user/project", folder)
    last = None
    for turn in range(3):
        store.append_message(UserMessage(content=f"private question {turn}", timestamp=turn))
        context = store.build_context()
        reply = AssistantMessage(
            content=[TextContent(text=f"private answer {turn}")],
            provider="p",
            model="m1",
            usage=Usage(input=50, output=5, cache_read=40 * turn, total_tokens=55 + 40 * turn),
        )
        built = build_request_record(
            model=model,
            system_prompt="You help.",
            tools=[],
            messages=context.messages,
            entry_ids=context.entry_ids,
            response=reply,
            previous=last[1] if last else None,
        )
        store.append_message(reply)
        entry = store.append_custom(REQUEST_CUSTOM_TYPE, record_entry_data(built, last))
        last = (entry.id, built)
    assert store.path is not None
    return store.path


def test_recorded_session_shows_requests_and_drift(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_recorded_session(tmp_path)
    data = run_json(capsys, str(path), "--records", "2")
    assert data["source"] == "records"
    records = data["records"]
    assert isinstance(records, list) and len(records) == 2
    assert [item["drift"]["kind"] for item in records] == ["none", "none"]
    assert records[-1]["record"]["usage"]["cacheRead"] == 80
    assert "private" not in json.dumps(records)
    assert run_context_command([str(path)]) == 0
    text = capsys.readouterr().out
    assert "from request records" in text and "no drift" in text and "Requests (last 3)" in text


def test_session_id_prefix_resolves_in_a_subprocess(pi_fixtures: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    folder = Path(os.environ["PI_CODING_AGENT_DIR"]) / "sessions" / cwd_folder_name(str(project))
    folder.mkdir(parents=True)
    source = pi_fixtures / "pi-sessions" / "a-plain.jsonl"
    shutil.copy(source, folder / source.name)
    session_id = json.loads(source.read_text().splitlines()[0])["id"]
    code = (
        "import sys; from pi_tui.modes.context_command import run_context_command as r; "
        "sys.exit(r(sys.argv[1:]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, session_id[:13], "--json"],
        capture_output=True,
        text=True,
        cwd=project,
        env=dict(os.environ),
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["sessionId"] == session_id


async def test_base_url_asks_the_server_for_the_window_it_serves(
    pi_fixtures: Path, capsys: pytest.CaptureFixture[str], openai_server: OpenAIServer
) -> None:
    openai_server.get_routes["/v1/models"] = {"data": [{"id": "fake-model", "max_model_len": 32768}]}
    path = pi_fixtures / "pi-sessions" / "a-plain.jsonl"
    args = [str(path), "--base-url", openai_server.base_url, "--json"]
    assert await asyncio.to_thread(run_context_command, args) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["geometry"]["contextWindow"] == 32768
    assert data["notes"] == [
        "fake/fake-model is not in models.json: window 32,768 tokens from server /v1/models max_model_len"
    ]


def test_one_huge_line_is_counted_in_bounded_pieces(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A tool result of one line without whitespace (issue 17: 200 MB of it took 9.6 GB): the
    tokenizer never sees more than a piece at a time, and the report counts all of it."""
    bound = tokens.COUNT_PIECE_CHARS + tokens.CUT_SEARCH_CHARS
    huge = ("QUJDREVGR0hJSktMTU5PUFF0123456789+/" * bound)[: 3 * bound]
    path = tmp_path / "huge.jsonl"
    write_one_big_result(path, huge, cwd=str(tmp_path))
    tokens.clear_cache()
    spy = EncodeSpy()
    monkeypatch.setattr(tokens, "_encoding", spy)
    data = run_json(capsys, str(path))
    assert max(spy.lengths) <= bound
    assert data["contextTokens"] > tokens.count(huge)


def test_settings_out_of_bounds_are_reported_and_the_reserve_held_to_half_the_window(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "s.jsonl"
    write_one_big_result(path, "a short result", cwd=str(tmp_path))
    settings = tmp_path / ".pi-tui" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"compaction": {"reserveTokens": 100000}, "tools": {"maxBytes": 0}}')

    assert run_context_command([str(path), "--json"]) == 0
    printed = capsys.readouterr()

    data = json.loads(printed.out)
    assert (data["geometry"]["reserveTokens"], data["geometry"]["threshold"]) == (64_000, 64_000)
    note = (
        "compaction.reserveTokens 100,000 is more than half of the window (128,000 tokens):"
        " 64,000 is reserved"
    )
    assert note in data["notes"]
    assert printed.err.splitlines() == [
        f"pi-tui: {settings}:1:65: tools.maxBytes: 0 is below the smallest value allowed, 1: 1 is used"
    ]
    assert run_context_command([str(path)]) == 0
    report = capsys.readouterr().out
    assert f"Note: {note}\n" in report
    assert "threshold 64,000 (window − reserve 64,000" in report


async def test_the_report_says_why_automatic_compaction_is_blocked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], openai_server: OpenAIServer
) -> None:
    """An 8,192 window with `keepRecentTokens` 10,000 set: over the threshold nothing is older than the
    kept tail; the report names the setting and what to change, as the Context pane does."""
    home = write_local_models(openai_server, {"id": "small", "contextWindow": 8_192, "maxTokens": 256})
    (home / "settings.json").write_text(json.dumps({"compaction": {"keepRecentTokens": 10_000}}))
    openai_server.count_prompt = lambda body: 7_000
    openai_server.enqueue(text_reply("an answer"))
    resolution = resolve_model("local/small")
    assert resolution.model is not None
    session = AgentSession(
        SessionConfig(
            store=SessionStore.create(str(tmp_path), tmp_path / "sessions"),
            resources=load_resources(tmp_path, home=tmp_path, include_builtin=False),
            model=resolution.model,
            api_key=resolution.api_key,
        )
    )
    await session.prompt("a question")
    assert session.store.path is not None

    args = [str(session.store.path)]
    assert await asyncio.to_thread(run_context_command, args) == 0
    text = capsys.readouterr().out
    assert (
        "  Auto-compaction blocked: nothing older than the kept 10,000 recent tokens"
        " (compaction.keepRecentTokens) · to let it run: set compaction.keepRecentTokens below the"
        " threshold (6,144)\n"
    ) in text
    assert await asyncio.to_thread(run_context_command, [*args, "--json"]) == 0
    blocked = json.loads(capsys.readouterr().out)["autoCompactionBlocked"]
    assert blocked["kind"] == "nothing_older"
    assert blocked["setting"] == "compaction.keepRecentTokens"
