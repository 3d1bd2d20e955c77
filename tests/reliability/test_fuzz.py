"""Fuzzing the input boundaries with hypothesis: no input raises past the boundary.

Targets: the session loader and everything an open does with its result; the bash output pipeline
(chunked feeding gives the same text as one chunk); the Chat Completions chunk assembler, alone and
through the real provider; tool-call arguments; `settings.json` and `models.json`. Runs are
derandomised (same examples every run, no example database) so CI is reproducible; the quick default
is ~60 examples per target, `RELIABILITY_FULL=1` runs 2000.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pi_tui.ai.convert import convert_to_llm
from pi_tui.ai.messages import AssistantMessage, ModelPrices, ToolCall, UserMessage
from pi_tui.ai.openai_chunks import ReplyAssembler
from pi_tui.ai.openai_provider import stream_openai
from pi_tui.ai.stream import LlmContext, StreamOptions
from pi_tui.ai.tool_arguments import invalid_arguments, make_tool_call, parse_arguments
from pi_tui.config.model_config import ModelConfig
from pi_tui.config.models import load_registry, resolve_model
from pi_tui.config.settings import Settings
from pi_tui.config.settings_files import load_settings, project_settings_path, read_settings_file
from pi_tui.session_file.loader import read_session_file
from pi_tui.session_file.store import SessionStore
from pi_tui.tools.output_pipeline import OutputPipeline
from tests.support.fuzz_strategies import (
    chunk_dicts,
    chunked_output,
    dumps,
    fragments,
    models_documents,
    session_files,
    settings_documents,
    sse_items,
)
from tests.support.openai_server import OpenAIServer, StreamReply

FULL = os.environ.get("RELIABILITY_FULL") == "1"
EXAMPLES = 2000 if FULL else 60
FUZZ = settings(
    max_examples=EXAMPLES,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)
PROVIDER_FUZZ = settings(FUZZ, max_examples=400 if FULL else 15)


@contextlib.contextmanager
def scratch() -> Iterator[Path]:
    """A fresh folder per example (function-scoped fixtures are shared by all examples)."""
    with tempfile.TemporaryDirectory() as folder:
        yield Path(folder)


@FUZZ
@given(session_files())
def test_session_loader_and_open_never_raise(data: bytes) -> None:
    with scratch() as folder:
        path = folder / "session.jsonl"
        path.write_bytes(data)
        loaded = read_session_file(path)
        assert loaded.header is not None or not loaded.writable
        assert all(diagnostic.path == path for diagnostic in loaded.diagnostics)
        # Everything an open does: migrate (may rewrite the file), rebuild the context, build the tree.
        store = SessionStore.open(path, cwd=str(folder))
        context = store.build_context()
        convert_to_llm(context.messages)
        store.get_tree()
        store.get_session_name()
        if store.writable:
            entry = store.append_custom("fuzz", {"ok": True})
            assert read_session_file(path).entries[-1].id == entry.id


@FUZZ
@given(st.binary(max_size=400))
def test_session_loader_takes_random_bytes(data: bytes) -> None:
    with scratch() as folder:
        path = folder / "session.jsonl"
        path.write_bytes(data)
        read_session_file(path)
        SessionStore.open(path, cwd=str(folder), migrate=False).build_context()


# --- the output pipeline --------------------------------------------------------------------------------


def pipeline_text(chunks: list[bytes], looks: list[bool]) -> str:
    """Feed `chunks` (a snapshot after chunk i when `looks[i]`: that is when text gets cleaned)."""
    pipeline = OutputPipeline(max_lines=1_000_000, max_bytes=1_000_000)
    for chunk, look in zip(chunks, looks, strict=True):
        pipeline.feed(chunk)
        if look:
            pipeline.snapshot(persist_if_truncated=False)
    pipeline.finish()
    snapshot = pipeline.snapshot(persist_if_truncated=False)
    pipeline.close()
    assert not snapshot.truncation.truncated
    return snapshot.content


@FUZZ
@given(chunked_output())
def test_output_pipeline_chunking_does_not_change_the_sanitised_text(
    case: tuple[bytes, list[bytes], list[bool]],
) -> None:
    data, chunks, looks = case
    whole = pipeline_text([data], [False])
    assert pipeline_text(chunks, looks) == whole
    assert "\x1b" not in whole and "\r" not in whole


# --- the Chat Completions chunk assembler and the provider --------------------------------------------


def check_tool_calls(message: AssistantMessage) -> None:
    """Every call ended either with parsed arguments or with its raw text reported as invalid."""
    for block in message.content:
        if isinstance(block, ToolCall):
            assert isinstance(block.arguments, dict)
            raw = invalid_arguments(block)
            if raw is not None:
                assert block.arguments == {} and parse_arguments(raw)[1] is not None


@FUZZ
@given(st.lists(chunk_dicts, max_size=8))
def test_chunk_assembler_never_raises(chunks: list[dict[str, Any]]) -> None:
    assembler = ReplyAssembler(AssistantMessage(model="test-model"), ModelPrices())
    for chunk in chunks:
        for event in assembler.feed(chunk):
            assert event.content_index is None or 0 <= event.content_index < len(assembler.partial.content)
    assembler.close()
    check_tool_calls(assembler.partial)
    AssistantMessage.model_validate(assembler.partial.to_json_obj())


@FUZZ
@given(st.one_of(fragments.map(lambda value: value if isinstance(value, str) else dumps(value)), st.text()))
def test_tool_arguments_parse_or_are_reported_invalid(raw: str) -> None:
    arguments, error = parse_arguments(raw)
    assert isinstance(arguments, dict) and (error is None or arguments == {})
    call = make_tool_call("c1", "read", raw)
    assert (invalid_arguments(call) is None) == (error is None)


async def _stream_through_provider(chunks: list[dict[str, Any] | str]) -> AssistantMessage:
    server = OpenAIServer()
    await server.start()
    try:
        server.enqueue(StreamReply(chunks))
        model = ModelConfig(id="test-model", provider="local", base_url=server.base_url)
        context = LlmContext("system", [UserMessage(content="hi", timestamp=1)], [])
        options = StreamOptions(api_key="sk-fuzz", max_retries=0, timeout_s=5.0)
        events = [event async for event in stream_openai(model, context, options)]
    finally:
        await server.stop()
    assert events[-1].type in ("done", "error") and events[-1].message is not None
    return events[-1].message


@PROVIDER_FUZZ
@given(st.lists(sse_items, max_size=6))
def test_the_provider_turns_any_stream_into_a_reply(chunks: list[dict[str, Any] | str]) -> None:
    message = asyncio.run(_stream_through_provider(chunks))
    check_tool_calls(message)
    assert message.stop_reason in ("stop", "length", "toolUse", "error")


# --- settings.json and models.json -----------------------------------------------------------------------


@FUZZ
@given(settings_documents, settings_documents)
def test_settings_files_never_raise(global_text: str, project_text: str) -> None:
    with scratch() as folder:
        global_path = folder / "home" / "settings.json"
        global_path.parent.mkdir()
        global_path.write_text(global_text, encoding="utf-8", errors="surrogatepass")
        project = project_settings_path(folder)
        project.parent.mkdir(parents=True)
        project.write_text(project_text, encoding="utf-8", errors="surrogatepass")
        read = read_settings_file(global_path, "global")
        loaded = load_settings(folder, global_path)
        # A file with problems contributes nothing; the effective settings are always valid.
        assert read.ok or read.raw == {}
        assert all(file.ok or file.raw == {} for file in loaded.files)
        assert Settings.model_validate(loaded.merged) == loaded.settings
        for diagnostic in loaded.diagnostics:
            assert str(diagnostic).startswith(str(diagnostic.path))


@FUZZ
@given(models_documents(), st.sampled_from([None, "m", "p/m", "read", ""]))
def test_models_json_never_raises(text: str, ref: str | None) -> None:
    with scratch() as folder:
        path = folder / "models.json"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        registry = load_registry(path)
        for diagnostic in registry.diagnostics:
            str(diagnostic)
        resolution = resolve_model(ref, registry=registry, env={"KEY_ENV": "sk-env"})
        repr(resolution)
