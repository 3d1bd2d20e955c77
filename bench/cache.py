"""Prompt-cache reuse of pi-tui's real requests, dialect by dialect, against an emulated provider cache.

pi-tui's command line runs in-process (`-p`, then `-c -p`, as a person would) against the loopback
Chat Completions server (tests/support/openai_server.py) with the prompt-cache emulator of the dialect's
provider (tests/support/cache_emulator.py): Anthropic's marker cache behind OpenRouter and on Anthropic's
own Messages API (`anthropic-messages`, the same server speaking Anthropic's protocol), the automatic
prefix cache of OpenAI, DeepSeek and local servers. The models.json of each dialect is pi's recorded one
(tests/fixtures/pi-requests; tests/fixtures/pi16/anthropic for the Messages API) plus a second model of
the same provider to switch to. Phases:
  session      one `-p` run of `--turns` turns; each turn is a prompt, a reply with reasoning and a bash
               call (odd turns say a sentence before the call, even turns call straight away), the
               command's output (`seq 1 200`) and a text answer: two requests per turn
  resume       `-c -p`: a new run continues the session for one turn
  switch-away  `-c -p --model <other>`: one turn on another model of the same provider (its own cache)
  switch-back  `-c -p --model <first>`: one turn back on the first model, whose cache was kept
For each request: the share of the previous request to the same model that was read from the cache
(the emulator's `reused_share_of_previous`, measured against the same model's request so the switch
does not count as a miss), and the input cost with caching vs without. The automatic cache is emulated
without OpenAI's 128-token reporting increments, so the share shows whether the prefix held; the
session mean with the increments is printed beside it.

pi-tui places the markers as pi 1.6 does (the last one on the last message, a trailing tool result
included). The marker dialect's session mean is also given as pi 0.73.1's markers would have it (the same
requests with the message marker on the newest user or assistant text), which shows what pi 1.6's placement
is worth; on the Messages API pi-tui sends pi's three markers.

Then a whole session with compaction (bench/compaction_bill.py): `--compaction-turns` turns on the marker
cache that compact several times, its input bill divided by the ideal bill, for pi-tui (the summary asked
inside the cached conversation), pi-tui serialising, and pi, on OpenRouter's dialect; and pi-tui on
Anthropic's own Messages API (the session bill row of `anthropic-messages`).

Usage: python bench/cache.py [--turns 6] [--dialect NAME ...] [--compaction-turns 16] [--json]
(exit 1 when a target is missed)
Targets: share >= 0.98 on the marker cache, 1.0 on the automatic cache, in every phase but switch-away;
the whole session with compaction at most 1.1x its ideal bill.
Measured 2026-12-01 (6 turns, 2-core machine, 7-9 s for all four): 1.000 in every targeted phase on all four
dialects; pi 0.73.1's markers 0.921 on this workload (the tool output is never behind a marker); the automatic
caches 0.978-0.980 in OpenAI's 128-token increments (the prompt varies by a token or two with the
temporary folder's name, which the system prompt shows).
Measured 2026-12-02 (`--dialect anthropic-messages`, 7.0 s): 1.000 in every targeted phase, $0.0607 vs $0.2044
input; the whole session with compaction on the Messages API 1.087x its ideal bill (the first of three
compactions inline, 0.965 of it from cache; the two later ones serialised for want of room in the window),
beside 1.004x on OpenRouter's dialect.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from pi_tui.ai.chat_request import CACHE_RETENTION_ENV  # noqa: E402
from pi_tui.cli import main as cli_main  # noqa: E402
from pi_tui.config.paths import HOME_ENV, PI_AGENT_DIR_ENV  # noqa: E402
from tests.support.anthropic_stream import Thinking, ToolUse, anthropic_reply  # noqa: E402
from tests.support.cache_emulator import CacheKind, CacheResult, PromptCache  # noqa: E402
from tests.support.openai_server import (  # noqa: E402
    OpenAIServer,
    StreamReply,
    chunk,
    tool_call_delta,
    usage,
)
from tests.support.pi_anthropic import FIXTURES as ANTHROPIC_FIXTURES  # noqa: E402
from tests.support.pi_dialects import CHAT_DIALECTS, FIXTURES  # noqa: E402

PHASES = ("session", "resume", "switch-away", "switch-back")
TARGETED_PHASES = ("session", "resume", "switch-back")
COMMAND = "echo step {turn} && seq 1 200"


@dataclass(frozen=True)
class Prices:
    """Dollars per million input tokens."""

    label: str
    input: float
    cache_read: float
    cache_write: float
    """What a written token costs; 0 where writing is not billed apart (the automatic caches)."""

    def describe(self) -> str:
        text = f"{self.label}: ${self.input:g}/M input, ${self.cache_read:g}/M cache read"
        if self.cache_write:
            text += f", ${self.cache_write:g}/M cache write"
        return text


PRICES: dict[CacheKind, Prices] = {
    "marker": Prices("Claude Sonnet 4.5", 3.00, 0.30, 3.75),
    "automatic": Prices("GPT-5-mini-like", 0.25, 0.025, 0.0),
}
TARGETS: dict[CacheKind, float] = {"marker": 0.98, "automatic": 1.0}
# A share is a ratio of integers: 1.0 is reached exactly when the whole previous request was read.
TOLERANCE = 1e-9


@dataclass(frozen=True)
class Dialect:
    name: str
    kind: CacheKind
    alternate: str
    """Another model of the same provider, for the switch away and back."""
    models_file: Path | None = None
    """pi's recorded models.json (default: the Chat Completions dialect's of the same name)."""
    thinking: str | None = None

    @property
    def messages_api(self) -> bool:
        return self.name == "anthropic-messages"


DIALECTS: dict[str, Dialect] = {
    dialect.name: dialect
    for dialect in (
        Dialect("openrouter-anthropic", "marker", "anthropic/claude-haiku-4.5"),
        Dialect("openai-reasoning", "automatic", "gpt-5-nano"),
        Dialect("deepseek", "automatic", "deepseek-chat"),
        Dialect("openai-plain", "automatic", "gpt-oss-20b"),
        Dialect(
            "anthropic-messages",
            "marker",
            "claude-haiku-4-5",
            models_file=ANTHROPIC_FIXTURES / "b-thinking.models.json",
            thinking="high",
        ),
    )
}


@dataclass
class Request:
    phase: str
    turn: int
    model: str
    prompt_tokens: int
    cached_tokens: int
    cache_write_tokens: int
    blocks: int
    markers: int
    share: float | None
    """Tokens read over the prompt tokens of the previous request to the same model (None: first)."""
    cost_cached: float
    cost_uncached: float
    miss: str | None = None
    """Where the prefix broke, when the share missed the target."""


@dataclass
class DialectRun:
    dialect: str
    kind: CacheKind
    model: str
    alternate: str
    turns: int
    prices: Prices
    target: float
    requests: list[Request] = field(default_factory=list)
    session_mean_rounded: float | None = None
    """The automatic cache's session mean with OpenAI's 128-token increments (None for markers)."""
    session_mean_pi_markers: float | None = None
    """The marker cache's session mean had the requests carried pi 0.73.1's markers (None for automatic)."""
    seconds: float = 0.0

    def shares(self, phase: str) -> list[float]:
        return [r.share for r in self.requests if r.phase == phase and r.share is not None]

    def mean(self, phase: str) -> float | None:
        shares = self.shares(phase)
        return sum(shares) / len(shares) if shares else None

    def first(self, phase: str) -> float | None:
        shares = [r.share for r in self.requests if r.phase == phase]
        return shares[0] if shares else None

    def meets_target(self, phase: str) -> bool:
        mean = self.mean(phase)
        return mean is not None and mean >= self.target - TOLERANCE

    @property
    def ok(self) -> bool:
        return all(self.meets_target(phase) for phase in TARGETED_PHASES)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["means"] = {phase: self.mean(phase) for phase in PHASES}
        data["first_after"] = {phase: self.first(phase) for phase in ("resume", "switch-back")}
        data["cost_cached"] = sum(r.cost_cached for r in self.requests)
        data["cost_uncached"] = sum(r.cost_uncached for r in self.requests)
        data["ok"] = self.ok
        return data


# --- the scripted provider ------------------------------------------------------------------------


def prompt_for(turn: int) -> str:
    return f"Step {turn}: run the next check with bash and tell me what it printed."


def enqueue_messages_turn(server: OpenAIServer, turn: int) -> None:
    """`enqueue_turn`'s replies on Anthropic's Messages API: thinking with a signature, a bash call."""
    command = json.dumps({"command": COMMAND.format(turn=turn)})
    server.enqueue(
        anthropic_reply(
            thinking=[Thinking(f"Step {turn} needs the command run.", f"sig-{turn}-a")],
            text=f"Running step {turn}." if turn % 2 else None,
            calls=[ToolUse("bash", command, call_id=f"toolu_{turn}")],
            message_id=f"msg_{turn}_a",
        ),
        anthropic_reply(
            thinking=[Thinking("It printed the step and 200 numbers.", f"sig-{turn}-b")],
            text=f"Step {turn} printed its name and the numbers 1 to 200.",
            message_id=f"msg_{turn}_b",
        ),
    )


def enqueue_turn(server: OpenAIServer, turn: int) -> None:
    """The model's two replies in one turn: reasoning and a bash call, then a text answer. The usage
    figures are placeholders the emulator replaces."""
    call = tool_call_delta(
        0, call_id=f"call_{turn}", name="bash", arguments=json.dumps({"command": COMMAND.format(turn=turn)})
    )
    first: list[dict[str, Any] | str] = [chunk(reasoning_content=f"Step {turn} needs the command run.")]
    if turn % 2:
        first.append(chunk(content=f"Running step {turn}."))
    first += [
        chunk(tool_calls=[call]),
        chunk(finish_reason="tool_calls"),
        chunk(no_choices=True, usage=usage(1, 1)),
    ]
    server.enqueue(
        StreamReply(first),
        StreamReply(
            [
                chunk(reasoning_content="It printed the step and 200 numbers."),
                chunk(content=f"Step {turn} printed its name and the numbers 1 to 200."),
                chunk(finish_reason="stop"),
                chunk(no_choices=True, usage=usage(1, 1)),
            ]
        ),
    )


def install_models(dialect: Dialect, server: OpenAIServer, home: Path) -> tuple[str, str]:
    """pi's models.json of the dialect with a second model of the same provider; returns both refs."""
    text = (dialect.models_file or FIXTURES / f"{dialect.name}.models.json").read_text(encoding="utf-8")
    models = json.loads(text.replace("PORT", str(server.port)))
    provider, entry = next(iter(models["providers"].items()))
    first = entry["models"][0]
    entry["models"].append({**first, "id": dialect.alternate, "name": dialect.alternate})
    home.mkdir(parents=True, exist_ok=True)
    (home / "models.json").write_text(json.dumps(models), encoding="utf-8")
    return f"{provider}/{first['id']}", f"{provider}/{dialect.alternate}"


# --- running pi-tui -------------------------------------------------------------------------------


class RunFailed(RuntimeError):
    pass


def _cli(argv: list[str]) -> None:
    """pi-tui's command line as a person runs it, its answer swallowed (stdin empty: nothing piped)."""
    saved = sys.stdin, sys.stdout, sys.stderr
    out, err = io.StringIO(), io.StringIO()
    sys.stdin, sys.stdout, sys.stderr = io.StringIO(""), out, err
    try:
        code = cli_main(argv)
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
    if code != 0:
        raise RunFailed(f"pi-tui {' '.join(argv)} exited {code}: {err.getvalue().strip()}")


@contextlib.contextmanager
def _private_environment(root: Path) -> Iterator[Path]:
    """pi-tui's and pi's homes in `root`, the default cache retention, and a project folder as cwd; all
    put back afterwards (the smoke test runs this inside pytest)."""
    saved_env = {name: os.environ.get(name) for name in (HOME_ENV, PI_AGENT_DIR_ENV, CACHE_RETENTION_ENV)}
    saved_cwd = os.getcwd()
    project = root / "project"
    project.mkdir(parents=True)
    os.environ[HOME_ENV] = str(root / "pi-tui")
    os.environ[PI_AGENT_DIR_ENV] = str(root / "pi-agent")
    os.environ.pop(CACHE_RETENTION_ENV, None)
    os.chdir(project)
    try:
        yield root / "pi-tui"
    finally:
        os.chdir(saved_cwd)
        for name, value in saved_env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


async def _drive(server: OpenAIServer, dialect: Dialect, home: Path, turns: int) -> list[tuple[str, int]]:
    """Every phase through pi-tui's command line; returns (phase, turn) for each request sent."""
    main_ref, other_ref = install_models(dialect, server, home)
    thinking = ["--thinking", dialect.thinking or CHAT_DIALECTS[dialect.name]]
    plan: list[tuple[str, list[str], list[int]]] = [
        ("session", ["-p", "--model", main_ref], list(range(1, turns + 1))),
        ("resume", ["-c", "-p", "--model", main_ref], [turns + 1]),
        ("switch-away", ["-c", "-p", "--model", other_ref], [turns + 2]),
        ("switch-back", ["-c", "-p", "--model", main_ref], [turns + 3]),
    ]
    labels: list[tuple[str, int]] = []
    for phase, argv, numbers in plan:
        for turn in numbers:
            (enqueue_messages_turn if dialect.messages_api else enqueue_turn)(server, turn)
            labels += [(phase, turn), (phase, turn)]
        await asyncio.to_thread(_cli, [*argv, *thinking, *(prompt_for(turn) for turn in numbers)])
        if server.replies:
            raise RunFailed(f"{phase}: pi-tui made {len(server.replies)} request(s) fewer than scripted")
    if len(server.requests) != len(labels):
        raise RunFailed(f"pi-tui sent {len(server.requests)} requests, {len(labels)} were scripted")
    return labels


# --- figures --------------------------------------------------------------------------------------


def _cost(result: CacheResult, prices: Prices) -> tuple[float, float]:
    cached = (
        result.uncached_tokens * prices.input
        + result.cached_tokens * prices.cache_read
        + result.cache_write_tokens * prices.cache_write
    )
    return cached / 1e6, result.prompt_tokens * prices.input / 1e6


def _same_model_shares(bodies: list[dict[str, Any]], results: list[CacheResult]) -> list[float | None]:
    previous: dict[str, int] = {}
    shares: list[float | None] = []
    for body, result in zip(bodies, results, strict=True):
        model = str(body.get("model"))
        before = previous.get(model)
        if before is None:
            shares.append(None)
        else:
            shares.append(min(1.0, result.cached_tokens / before) if before else 0.0)
        previous[model] = result.prompt_tokens
    return shares


def as_pi_073_marked(body: dict[str, Any]) -> dict[str, Any]:
    """The request as pi 0.73.1 marked it: its message marker on the newest user or assistant text, none on
    a trailing tool result. pi-tui marks as pi 1.6 does, the last message with text (tool results too;
    tests/ai/test_pi_dialects.py holds pi-tui to pi 1.6's requests)."""
    messages = [dict(message) for message in body.get("messages") or []]
    marker = None
    for message in messages[1:]:
        content = message.get("content")
        if isinstance(content, list):
            for part in content:
                marker = part.get("cache_control", marker)
            message["content"] = [{k: v for k, v in part.items() if k != "cache_control"} for part in content]
    if marker is None:
        return body
    for message in reversed(messages[1:]):
        content = message.get("content")
        if message["role"] not in ("user", "assistant") or not content:
            continue
        if isinstance(content, str):
            message["content"] = [{"type": "text", "text": content, "cache_control": marker}]
            break
        texts = [index for index, part in enumerate(content) if part.get("type") == "text"]
        if texts:
            content[texts[-1]] = {**content[texts[-1]], "cache_control": marker}
            break
    return {**body, "messages": messages}


def explain_miss(cache: PromptCache, previous: dict[str, Any], body: dict[str, Any], cached: int) -> str:
    """Which block broke the prefix, or, if none did, where the read stopped (a marker too far back)."""
    before, now = cache.blocks(previous), cache.blocks(body)
    for index, (old, new) in enumerate(zip(before, now, strict=False)):
        if (old.role, old.text, old.opens_message) != (new.role, new.text, new.opens_message):
            return (
                f"block {index} of {len(before)} changed ({old.role}): "
                f"was {old.text[:80]!r}, now {new.text[:80]!r}"
            )
    if len(now) < len(before):
        return f"the request has {len(now)} blocks, the previous one {len(before)}: history was dropped"
    read, tokens = 0, 0
    while read < len(now) and tokens + now[read].tokens <= cached:
        tokens += now[read].tokens
        read += 1
    unread = ", ".join(block.role for block in before[read:])
    marked = ", ".join(str(index) for index, block in enumerate(now) if block.marker)
    return (
        f"prefix intact, but only blocks 0-{read - 1} of the previous request's {len(before)} were read "
        f"(not read: {unread}); blocks marked now: {marked} (lookback {cache.lookback})"
    )


def _replayed_session_mean(
    bodies: list[dict[str, Any]], labels: list[tuple[str, int]], cache: PromptCache
) -> float:
    """The session mean had `bodies` gone to `cache` instead (a fresh one)."""
    results = [cache.serve(body) for body in bodies]
    shares = _same_model_shares(bodies, results)
    session = [
        s for s, (phase, _) in zip(shares, labels, strict=True) if phase == "session" and s is not None
    ]
    return sum(session) / len(session)


async def measure_dialect(name: str, turns: int, root: Path) -> DialectRun:
    """One dialect's phases against a fresh loopback server and cache; `root` holds its files."""
    dialect = DIALECTS[name]
    started = time.perf_counter()
    server = OpenAIServer()
    # Unrounded for the automatic kind: the share then says whether the whole prefix held.
    server.cache = (
        PromptCache(dialect.kind, round_to=None) if dialect.kind == "automatic" else PromptCache("marker")
    )
    await server.start()
    try:
        with _private_environment(root) as home:
            labels = await _drive(server, dialect, home, turns)
    finally:
        await server.stop()
    bodies = [request.body for request in server.requests]
    results = server.cache_results
    shares = _same_model_shares(bodies, results)
    prices = PRICES[dialect.kind]
    target = TARGETS[dialect.kind]
    run = DialectRun(
        dialect=name,
        kind=dialect.kind,
        model=str(bodies[0]["model"]),
        alternate=dialect.alternate,
        turns=turns,
        prices=prices,
        target=target,
    )
    last_body: dict[str, dict[str, Any]] = {}
    for (phase, turn), body, result, share in zip(labels, bodies, results, shares, strict=True):
        cost_cached, cost_uncached = _cost(result, prices)
        model = str(body["model"])
        miss = None
        if share is not None and share < target - TOLERANCE and phase in TARGETED_PHASES:
            miss = explain_miss(server.cache, last_body[model], body, result.cached_tokens)
        last_body[model] = body
        run.requests.append(
            Request(
                phase=phase,
                turn=turn,
                model=model,
                prompt_tokens=result.prompt_tokens,
                cached_tokens=result.cached_tokens,
                cache_write_tokens=result.cache_write_tokens,
                blocks=result.blocks,
                markers=result.markers,
                share=share,
                cost_cached=cost_cached,
                cost_uncached=cost_uncached,
                miss=miss,
            )
        )
    if dialect.kind == "automatic":
        run.session_mean_rounded = _replayed_session_mean(bodies, labels, PromptCache("automatic"))
    elif not dialect.messages_api:  # on the Messages API pi-tui sends pi's markers
        pi_bodies = [as_pi_073_marked(body) for body in bodies]
        run.session_mean_pi_markers = _replayed_session_mean(pi_bodies, labels, PromptCache("marker"))
    run.seconds = time.perf_counter() - started
    return run


def measure(dialects: list[str], turns: int) -> list[DialectRun]:
    """Each dialect in turn, in a throwaway folder (pi-tui's home, pi's home and the project)."""

    async def all_dialects() -> list[DialectRun]:
        runs = []
        with tempfile.TemporaryDirectory(prefix="pi-tui-cache-bench-") as folder:
            for name in dialects:
                runs.append(await measure_dialect(name, turns, Path(folder) / name))
        return runs

    return asyncio.run(all_dialects())


# --- output ---------------------------------------------------------------------------------------


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _verdict(run: DialectRun, phase: str) -> str:
    comparison = ">=" if run.target < 1 else "="
    met = "ok" if run.meets_target(phase) else "MISSED"
    return f"target {comparison} {run.target:g}: {met}"


def report(runs: list[DialectRun]) -> str:
    lines = [
        "Prompt-cache reuse of pi-tui's requests (loopback server, emulated provider caches).",
        "share = tokens read from the cache / prompt tokens of the previous request to the same model.",
        "Input prices per million tokens: "
        + "; ".join(f"{kind} cache, {prices.describe()}" for kind, prices in PRICES.items())
        + ".",
    ]
    for run in runs:
        prompts = [r.prompt_tokens for r in run.requests]
        lines += [
            "",
            f"{run.dialect}: {run.kind} cache, model {run.model}, switch to {run.alternate}, "
            f"{run.turns} turns (prompt {min(prompts):,} to {max(prompts):,} tokens, {run.seconds:.1f} s)",
        ]
        for phase in PHASES:
            requests = [r for r in run.requests if r.phase == phase]
            shares = " ".join(_share(r.share) for r in requests)
            line = f"  {phase:<12} {len(requests):>2} requests  shares {shares}"
            if phase == "switch-away":
                line += f"  ({run.alternate}: its own cache, cold at first)"
            else:
                extra = ""
                if phase == "session" and run.session_mean_rounded is not None:
                    extra = f" ({run.session_mean_rounded:.3f} in OpenAI's 128-token increments)"
                if phase == "session" and run.session_mean_pi_markers is not None:
                    extra = f" ({run.session_mean_pi_markers:.3f} with pi 0.73.1's markers)"
                label = "mean" if phase == "session" else f"first {_share(run.first(phase))}, mean"
                line += f"  {label} {_share(run.mean(phase))}{extra}  {_verdict(run, phase)}"
            lines.append(line)
            lines += [f"    turn {r.turn} ({r.model}): {r.miss}" for r in requests if r.miss]
        if run.kind == "marker":
            most = max(r.markers for r in run.requests)
            lines.append(f"  at most {most} cache markers per request (Anthropic allows 4)")
        cached = sum(r.cost_cached for r in run.requests)
        uncached = sum(r.cost_uncached for r in run.requests)
        written = sum(r.cache_write_tokens for r in run.requests)
        saving = 1 - cached / uncached if uncached else 0.0
        lines.append(
            f"  input cost of all {len(run.requests)} requests: ${cached:.4f} with caching, "
            f"${uncached:.4f} without ({saving:.0%} saved"
            + (f"; {written:,} tokens written)" if written else ")")
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--turns", type=int, default=6, help="turns in the first run (default 6)")
    parser.add_argument(
        "--dialect",
        action="append",
        choices=sorted(DIALECTS),
        help="a dialect to measure (repeatable; default: all five)",
    )
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument(
        "--compaction-turns",
        type=int,
        default=16,
        help="turns of the whole-session figure with compaction (default 16; 0 skips it)",
    )
    options = parser.parse_args()
    if options.turns < 1:
        parser.error("--turns must be at least 1")
    runs = measure(options.dialect or list(DIALECTS), options.turns)
    whole_ok = True
    if options.json:
        print(json.dumps([run.to_json() for run in runs], indent=2))
    else:
        print(report(runs))
        if options.compaction_turns > 0:
            from bench.compaction_bill import whole_session_report  # it builds on this module

            lines, whole_ok = whole_session_report(options.compaction_turns)
            print("\n".join(lines))
    sys.exit(0 if all(run.ok for run in runs) and whole_ok else 1)


if __name__ == "__main__":
    main()
