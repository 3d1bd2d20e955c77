"""What compaction costs on a caching provider, per summary strategy: the runs behind the cost row of
bench/compaction.py and the whole-session figure of bench/cache.py.

pi-tui's command line runs in-process against the loopback server with Anthropic's marker cache emulated
(OpenRouter's dialect, or with `Plan.dialect` Anthropic's own Messages API; pi's recorded models.json with
a small context window so the session compacts on its own). Each turn is a bash call printing
`seq 1 <lines>` and an answer; every summary request is answered by tests/support/summary_replies.py,
whichever strategy sent it.

Bills count input tokens only, a cached token at `CACHED_PRICE` of an uncached one (cache writes are
billed as plain input, so a perfect run costs exactly its ideal). The ideal bill reads, for every
request, the longest prefix that any earlier request already sent; a summary call reads the history it
summarises from cache and pays only its instructions (for a serialised call: the system prompt and the
text after `</conversation>`, a character-share estimate).
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.cache import (
    DIALECTS,
    _cli,
    _private_environment,
    as_pi_073_marked,
    install_models,
    prompt_for,
)
from pi_tui.config.paths import settings_path
from tests.support.anthropic_stream import Thinking, ToolUse, anthropic_reply
from tests.support.cache_emulator import CacheResult, PromptCache
from tests.support.openai_server import (
    OpenAIServer,
    Reply,
    StreamReply,
    chunk,
    tool_call_delta,
    usage,
)
from tests.support.summary_replies import answer_summaries, summary_kind, summary_text

CACHED_PRICE = 0.1
DIALECT = "openrouter-anthropic"
SONNET_INPUT, SONNET_CACHE_READ, SONNET_CACHE_WRITE = 3.00, 0.30, 3.75
"""Claude Sonnet 4.5's $ per million input tokens: uncached, read from cache, written to cache."""


@dataclass(frozen=True)
class BilledRequest:
    kind: str
    """`turn`, `inline` or `serialize`."""
    prompt: int
    cached: int
    written: int
    ideal_cached: int

    def bill(self, cached: int | None = None) -> float:
        read = self.cached if cached is None else cached
        return self.prompt - read + CACHED_PRICE * read

    @property
    def ideal(self) -> float:
        return self.bill(self.ideal_cached)

    @property
    def sonnet_dollars(self) -> float:
        uncached = self.prompt - self.cached - self.written
        return (
            uncached * SONNET_INPUT + self.cached * SONNET_CACHE_READ + self.written * SONNET_CACHE_WRITE
        ) / 1e6


@dataclass
class SessionBill:
    label: str
    requests: list[BilledRequest] = field(default_factory=list)

    @property
    def bill(self) -> float:
        return sum(request.bill() for request in self.requests)

    @property
    def ideal(self) -> float:
        return sum(request.ideal for request in self.requests)

    @property
    def ratio(self) -> float:
        return self.bill / self.ideal

    @property
    def summary_calls(self) -> list[BilledRequest]:
        return [request for request in self.requests if request.kind != "turn"]


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content or [] if isinstance(part, dict))


def _serialised_history_share(body: dict[str, Any]) -> float:
    """How much of a serialised summary request is the history it summarises (by characters)."""
    blocks = body.get("system")  # the Messages API's system blocks, else the first message
    system = "".join(part.get("text", "") for part in blocks) if isinstance(blocks, list) else None
    system = _text(body["messages"][0]) if system is None else system
    request = _text(body["messages"][-1])
    history = request.split("</conversation>", 1)[0]
    return len(history) / (len(system) + len(request))


def bill_requests(label: str, bodies: list[dict[str, Any]], results: list[CacheResult]) -> SessionBill:
    ideal_cache = PromptCache("automatic", min_tokens=0, round_to=None)
    bill = SessionBill(label)
    for body, result in zip(bodies, results, strict=True):
        kind = summary_kind(body) or "turn"
        shared = ideal_cache.serve(body).cached_tokens
        if kind == "serialize":
            shared = max(shared, round(result.prompt_tokens * _serialised_history_share(body)))
        bill.requests.append(
            BilledRequest(kind, result.prompt_tokens, result.cached_tokens, result.cache_write_tokens, shared)
        )
    return bill


def _write_settings(compaction: dict[str, Any]) -> None:
    path = settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"compaction": compaction}), encoding="utf-8")


def _shrink_window(home: Path, window: int) -> None:
    path = home / "models.json"
    models = json.loads(path.read_text(encoding="utf-8"))
    for provider in models["providers"].values():
        for model in provider["models"]:
            model["contextWindow"] = window
    path.write_text(json.dumps(models), encoding="utf-8")


def enqueue_messages_turn(server: OpenAIServer, turn: int, lines: int) -> None:
    """`enqueue_turn` on Anthropic's Messages API: signed thinking and a bash call, then the answer."""
    command = json.dumps({"command": f"echo step {turn} && seq 1 {lines}"})
    server.enqueue(
        anthropic_reply(
            thinking=[Thinking(f"Step {turn} needs the command run.", f"sig-{turn}")],
            calls=[ToolUse("bash", command, call_id=f"toolu_{turn}")],
            message_id=f"msg_{turn}_a",
        ),
        anthropic_reply(
            text=f"Step {turn} printed its name and the numbers 1 to {lines}.", message_id=f"msg_{turn}_b"
        ),
    )


def answer_messages_summaries(body: Any) -> Reply | None:
    """`answer_summaries` in the Messages API's events."""
    text = summary_text(body)
    return anthropic_reply(text=text, message_id="msg_summary") if text is not None else None


def enqueue_turn(server: OpenAIServer, turn: int, lines: int) -> None:
    """Reasoning and a bash call printing `lines` numbers, then the answer (usage: the emulator's)."""
    command = f"echo step {turn} && seq 1 {lines}"
    call = tool_call_delta(0, call_id=f"call_{turn}", name="bash", arguments=json.dumps({"command": command}))
    server.enqueue(
        StreamReply(
            [chunk(reasoning_content=f"Step {turn} needs the command run."), chunk(tool_calls=[call]),
             chunk(finish_reason="tool_calls"), chunk(no_choices=True, usage=usage(1, 1))]
        ),
        StreamReply(
            [chunk(content=f"Step {turn} printed its name and the numbers 1 to {lines}."),
             chunk(finish_reason="stop"), chunk(no_choices=True, usage=usage(1, 1))]
        ),
    )  # fmt: skip


THRESHOLD_MARGIN = 200
"""Tokens between the last request of a long session and the threshold set for its final turn."""


@dataclass(frozen=True)
class Plan:
    """`turns` turns in one `-p` run with `compaction`; then, if `final` is set, one more turn in a
    `-c -p` run with those settings instead and the window shrunk so that the threshold is just above the
    last prompt: that turn ends above it (a compaction at the threshold after a long session)."""

    turns: int
    window: int
    compaction: dict[str, Any]
    final: dict[str, Any] | None = None
    lines: int = 1000
    """Each turn's command prints this many numbers (about two tokens each)."""
    dialect: str = DIALECT
    """`openrouter-anthropic` (Chat Completions with markers) or `anthropic-messages`."""


async def _drive(server: OpenAIServer, home: Path, plan: Plan) -> None:
    main_ref, _ = install_models(DIALECTS[plan.dialect], server, home)
    enqueue = enqueue_messages_turn if DIALECTS[plan.dialect].messages_api else enqueue_turn
    _shrink_window(home, plan.window)
    _write_settings(plan.compaction)
    for turn in range(1, plan.turns + 1):
        enqueue(server, turn, plan.lines)
    thinking = ["--thinking", "high", "--model", main_ref]
    prompts = [prompt_for(turn) for turn in range(1, plan.turns + 1)]
    await asyncio.to_thread(_cli, ["-p", *thinking, *prompts])
    if plan.final is not None:
        _write_settings(plan.final)
        # The last reply stays just under the threshold (no compaction before the prompt); the new turn,
        # a command printing some hundred tokens, crosses it.
        threshold = server.cache_results[-1].prompt_tokens + THRESHOLD_MARGIN
        _shrink_window(home, threshold + int(plan.final["reserveTokens"]))
        enqueue(server, plan.turns + 1, plan.lines)
        await asyncio.to_thread(_cli, ["-c", "-p", *thinking, prompt_for(plan.turns + 1)])


async def run_plan(label: str, plan: Plan, root: Path, *, pi_markers: bool = False) -> SessionBill:
    """The plan's bill; `pi_markers`: the same requests as pi 0.73.1 marked them, served by a fresh cache
    (pi 1.6 marks as pi-tui does, so pi 1.6's bill is pi-tui serialising's)."""
    server = OpenAIServer()
    server.cache = PromptCache("marker")
    server.responder = answer_messages_summaries if DIALECTS[plan.dialect].messages_api else answer_summaries
    await server.start()
    try:
        with _private_environment(root) as home:
            await _drive(server, home, plan)
    finally:
        await server.stop()
    bodies = [request.body for request in server.requests]
    results = server.cache_results
    if pi_markers:
        cache = PromptCache("marker")
        results = [cache.serve(as_pi_073_marked(body)) for body in bodies]
    return bill_requests(label, bodies, results)


def measure(plans: dict[str, tuple[Plan, bool]]) -> dict[str, SessionBill]:
    """Each plan (with whether to bill it as pi marks it) against a fresh server, in a throwaway folder."""

    async def run_all() -> dict[str, SessionBill]:
        bills: dict[str, SessionBill] = {}
        with tempfile.TemporaryDirectory(prefix="pi-tui-compaction-bill-") as folder:
            for number, (label, (plan, pi_markers)) in enumerate(plans.items()):
                bills[label] = await run_plan(label, plan, Path(folder) / str(number), pi_markers=pi_markers)
        return bills

    return asyncio.run(run_all())


# --- the two reports --------------------------------------------------------------------------------

RESERVE = 16_384
WHOLE_SESSION_TARGET = 1.1


def whole_session_plans(turns: int) -> dict[str, tuple[Plan, bool]]:
    """A session that compacts every few turns: the threshold at 14,000 tokens, 4,000 kept, turns of
    about 2,000 tokens (a system prompt and tools of about 3,000)."""
    settings = {"reserveTokens": RESERVE, "keepRecentTokens": 4_000}
    window = 14_000 + RESERVE
    return {
        "pi-tui (auto: inline)": (Plan(turns, window, {**settings, "strategy": "auto"}), False),
        "pi-tui, serialising": (Plan(turns, window, {**settings, "strategy": "serialize"}), False),
        "pi 0.73.1 (serialising)": (
            Plan(turns, window, {**settings, "strategy": "serialize"}),
            True,
        ),
        "anthropic-messages (auto: inline)": (
            Plan(turns, window, {**settings, "strategy": "auto"}, dialect="anthropic-messages"),
            False,
        ),
    }


def whole_session_report(turns: int) -> tuple[list[str], bool]:
    bills = measure(whole_session_plans(turns))
    lines = [
        "",
        f"Whole session with compaction: {turns} turns on the marker cache, compacting at 14,000 tokens;",
        "input bill (a cached token at 0.1x) divided by the ideal bill (each request reads all it shares",
        "with earlier ones from cache; a summary call pays only its instructions):",
    ]
    for label, bill in bills.items():
        calls = bill.summary_calls
        lines.append(
            f"  {label:<34} {bill.ratio:.3f}x  ({len(calls)} summary calls, {len(bill.requests)} requests)"
        )
    ratios = [bill.ratio for label, bill in bills.items() if "auto: inline" in label]
    ok = all(ratio <= WHOLE_SESSION_TARGET for ratio in ratios)
    lines.append(
        f"  target <= {WHOLE_SESSION_TARGET}x for pi-tui (both dialects): {'ok' if ok else 'MISSED'}"
    )
    return lines, ok


def threshold_plans(turns: int, reserve: int = RESERVE) -> dict[str, tuple[Plan, bool]]:
    """`turns` turns without compaction, then one more that ends above the threshold and compacts. The
    reserve is at most half the window, so the session must be at least `reserve` tokens long by then."""
    quiet = {"enabled": False, "reserveTokens": reserve}

    def plan(strategy: str) -> Plan:
        # Kept: about the last few turns (chars/4, as pi counts); the rest is summarised.
        final = {"reserveTokens": reserve, "keepRecentTokens": reserve // 4, "strategy": strategy}
        return Plan(turns, 1_000_000, quiet, final=final, lines=200)

    return {"inline": (plan("inline"), False), "serialise": (plan("serialize"), False)}
