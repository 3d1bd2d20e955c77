"""Recording a conversation of tests/fixtures/pi16/anthropic with the real pi 1.6 over the Messages API.

The conversation's `<name>.models.json`, `.settings.json`, `.run.json` (provider, model, `--thinking`,
extra environment, prompts) and `.script.json` (the replies) say how pi runs; the loopback server answers
in Anthropic's protocol with its marker cache emulated, as the shared recordings were made (their
README). pi runs `-p PROMPT1`, then `-c -p PROMPTn`, in an empty project folder with `PI_OFFLINE=1`; its
requests (`{path, headers, body}`, headers as `pi16_recorder` keeps them) and its session file are
written beside the conversation's files, with the machine's paths scrubbed as `pi16_recorder` does.

    PI16_BIN=~/.cache/pi16/bin/pi16 .venv/bin/python -m tests.live.pi16_anthropic_recorder NAME

`g2-builtin-strict` was recorded so (pi 1.6.0, 2026-12-02): the built-in `anthropic` provider moved to
loopback, a catalog model with strict tools and adaptive thinking, a gateway token as bearer.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path

from tests.live.pi16_recorder import RecordingFailed, _run_pi, request_line, scrub
from tests.support.cache_emulator import PromptCache
from tests.support.openai_server import OpenAIServer
from tests.support.pi_anthropic import fixture, load, script_replies


async def record(pi: Path, name: str, root: Path, *, scrubbed: bool = True) -> tuple[str, str]:
    """(requests.jsonl, session.jsonl) of one run of the conversation by pi, scrubbed unless asked not
    to (the live test compares pi's estimate of the real paths)."""
    project, agent = root / "project", root / "agent"
    project.mkdir()
    agent.mkdir()
    run = load(name, "run.json")
    server = OpenAIServer()
    await server.start()
    try:
        if not fixture(name, "session.jsonl").exists():
            # A first recording: the emulated cache says the usage. A recorded conversation answers with
            # the usage pi stored (its script's own figures, e.g. f's 29,000 input tokens, included).
            server.cache = PromptCache("marker")
        script_replies(name, server)
        models = fixture(name, "models.json").read_text(encoding="utf-8").replace("PORT", str(server.port))
        (agent / "models.json").write_text(models, encoding="utf-8")
        (agent / "settings.json").write_text(fixture(name, "settings.json").read_text(encoding="utf-8"))
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": os.environ.get("HOME", str(root)),
            "PI_CODING_AGENT_DIR": str(agent),
            "PI_OFFLINE": "1",
            "LANG": "C.UTF-8",
            **(run.get("env") or {}),
        }
        first, *rest = run["prompts"]
        model = ["--provider", run["provider"], "--model", run["model"], "--thinking", run["thinking"]]
        await _run_pi(pi, ["--offline", *model, "-p", first], project, env)
        for prompt in rest:
            await _run_pi(pi, ["--offline", *model, "-c", "-p", prompt], project, env)
    finally:
        await server.stop()
    (session,) = sorted(agent.rglob("*.jsonl"))
    requests = "".join(
        f"{request_line(request.path, request.headers, request.body)}\n" for request in server.requests
    )
    written = session.read_text(encoding="utf-8")
    return (scrub(requests, project), scrub(written, project)) if scrubbed else (requests, written)


async def record_into(pi: Path, name: str) -> None:
    with tempfile.TemporaryDirectory(prefix=f"pi16-{name}-") as root:
        requests, session = await record(pi, name, Path(root).resolve())
    fixture(name, "requests.jsonl").write_text(requests, encoding="utf-8")
    fixture(name, "session.jsonl").write_text(session, encoding="utf-8")
    print(f"{name}: {requests.count(chr(10))} requests -> {fixture(name, 'requests.jsonl')}")


def main(argv: list[str]) -> int:
    pi = os.environ.get("PI16_BIN")
    if not pi or len(argv) != 1:
        print("usage: PI16_BIN=<pi 1.6> python -m tests.live.pi16_anthropic_recorder NAME", file=sys.stderr)
        return 2
    if not fixture(argv[0], "run.json").exists():
        print(f"pi16_anthropic_recorder: no {fixture(argv[0], 'run.json')}", file=sys.stderr)
        return 2
    try:
        asyncio.run(record_into(Path(pi), argv[0]))
    except RecordingFailed as failure:
        print(f"pi16_anthropic_recorder: {failure}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
