"""Context accounting on a long session: cold inspector build, and the update after one new message.

Builds a synthetic in-memory session of `--messages` messages (user question, assistant tool call, tool
result, assistant answer, repeated), with a `pi-tui.request` record for each of the last `--recorded`
turns as the agent session would write them (delta-stored). Then it times:
  cold     `build_inspector_data` with a fresh cache (tiktoken counts every message once)
  update   one appended message, then `build_inspector_data` with the warm cache (median of --updates)
  record   `build_request_record` for the next request with a warm measure cache (median)

Usage: python bench/accounting.py [--messages 10000] [--updates 200] [--recorded 20]
Targets (issue 7): update < 5 ms median, cold < 2 s.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from pi_tui.ai import tokens  # noqa: E402
from pi_tui.ai.messages import (  # noqa: E402
    AgentMessage,
    AssistantMessage,
    TextContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from pi_tui.ai.stream import ToolSpec  # noqa: E402
from pi_tui.config.model_config import ModelConfig  # noqa: E402
from pi_tui.config.settings import Settings  # noqa: E402
from pi_tui.context.accounting.measure import MeasureCache  # noqa: E402
from pi_tui.context.accounting.record import (  # noqa: E402
    REQUEST_CUSTOM_TYPE,
    RequestRecord,
    build_request_record,
    record_entry_data,
)
from pi_tui.session.inspector import InspectorCache, build_inspector_data  # noqa: E402
from pi_tui.session_file.store import SessionStore  # noqa: E402

MODEL = ModelConfig(id="bench-model", provider="bench", context_window=2_000_000)
SYSTEM = "You are a coding assistant.\nCurrent date: 2026-11-30\nCurrent working directory: /work"
TOOLS = [ToolSpec("read", "Read a file.", {"type": "object", "properties": {"path": {"type": "string"}}})]
WORDS = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho".split()  # noqa: SIM905


def text(seed: int, words: int) -> str:
    return " ".join(WORDS[(seed * 7 + i * 3) % len(WORDS)] + str((seed + i) % 97) for i in range(words))


def turn_messages(turn: int) -> list[AgentMessage]:
    call_id = f"call-{turn}"
    usage = Usage(input=1000 + turn, output=50, total_tokens=1050 + turn)
    return [
        UserMessage(content=f"Question {turn}: {text(turn, 20)}", timestamp=turn),
        AssistantMessage(
            content=[ToolCall(id=call_id, name="read", arguments={"path": f"src/module_{turn}.py"})],
            provider=MODEL.provider,
            model=MODEL.id,
            usage=usage,
            stop_reason="toolUse",
        ),
        ToolResultMessage(
            tool_call_id=call_id, tool_name="read", content=[TextContent(text=text(turn + 1, 120))]
        ),
        AssistantMessage(
            content=[TextContent(text=f"Answer {turn}: {text(turn + 2, 40)}")],
            provider=MODEL.provider,
            model=MODEL.id,
            usage=usage,
        ),
    ]


def record_turn(
    store: SessionStore, last: tuple[str, RequestRecord] | None, cache: MeasureCache
) -> tuple[str, RequestRecord]:
    context = store.build_context()
    built = build_request_record(
        model=MODEL,
        system_prompt=SYSTEM,
        tools=TOOLS,
        messages=context.messages,
        entry_ids=context.entry_ids,
        previous=last[1] if last else None,
        cache=cache,
    )
    entry = store.append_custom(REQUEST_CUSTOM_TYPE, record_entry_data(built, last))
    return entry.id, built


def synthetic_session(messages: int, recorded: int) -> SessionStore:
    store = SessionStore.in_memory("/work")
    turns = messages // 4
    cache = MeasureCache()
    last: tuple[str, RequestRecord] | None = None
    for turn in range(turns):
        for message in turn_messages(turn):
            store.append_message(message)
        if turn >= turns - recorded:
            last = record_turn(store, last, cache)
    return store


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--updates", type=int, default=200)
    parser.add_argument("--recorded", type=int, default=20)
    options = parser.parse_args()
    tokens.get_encoding()
    store = synthetic_session(options.messages, options.recorded)
    settings = Settings()
    tokens.clear_cache()

    cache = InspectorCache()
    started = time.perf_counter()
    data = build_inspector_data(store, settings, MODEL, cache=cache)
    cold = time.perf_counter() - started

    updates: list[float] = []
    for index in range(options.updates):
        store.append_message(UserMessage(content=f"follow-up {index}: {text(index, 15)}", timestamp=index))
        started = time.perf_counter()
        data = build_inspector_data(store, settings, MODEL, cache=cache)
        updates.append(time.perf_counter() - started)

    measure = MeasureCache()
    context = store.build_context()
    previous = build_request_record(
        model=MODEL,
        system_prompt=SYSTEM,
        tools=TOOLS,
        messages=context.messages,
        entry_ids=context.entry_ids,
        cache=measure,
    )
    records: list[float] = []
    for index in range(20):
        store.append_message(UserMessage(content=f"one more {index}", timestamp=index))
        context = store.build_context()
        started = time.perf_counter()
        previous = build_request_record(
            model=MODEL,
            system_prompt=SYSTEM,
            tools=TOOLS,
            messages=context.messages,
            entry_ids=context.entry_ids,
            previous=previous,
            cache=measure,
        )
        records.append(time.perf_counter() - started)

    update_ms = statistics.median(updates) * 1000
    shown = len(data.records)
    print(f"session: {options.messages} messages, {len(store.entries)} entries, {shown} records shown")
    print(f"context: {data.context_tokens:,} tokens in {data.message_count} messages; source {data.source}")
    print(f"cold build:   {cold * 1000:8.1f} ms   (target < 2000 ms)  {'ok' if cold < 2 else 'MISSED'}")
    print(
        f"update:       {update_ms:8.2f} ms median,"
        f" p90 {statistics.quantiles(updates, n=10)[-1] * 1000:.2f} ms"
        f" over {len(updates)}   (target < 5 ms)  {'ok' if update_ms < 5 else 'MISSED'}"
    )
    print(
        f"record build: {statistics.median(records) * 1000:8.2f} ms median"
        f" (warm measure cache, {len(context.messages)} messages)"
    )


if __name__ == "__main__":
    main()
