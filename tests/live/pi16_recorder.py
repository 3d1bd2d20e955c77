"""Recording what the real pi 1.6 sends, dialect by dialect, against the loopback scripted server.

This is how `tests/fixtures/pi16/requests/` is made (its README): for each dialect of `dialects.tsv`, pi 1.6
gets the dialect's `models.json` (the server's port in place of `PORT`), a `settings.json` with compaction
off, `PI_CODING_AGENT_DIR`, `PI_OFFLINE=1` and `--offline`, and runs the two-prompt conversation in an empty
project folder: `-p --model P/ID --thinking L "What is the date? Use bash."`, then `-c -p "Thanks."`. The
server answers as `tests/support/pi_dialects.py` scripts it. Every request is kept as `{path, headers,
body}` (headers lower-cased, transport headers, `user-agent` and `x-stainless-*` left out) with the session
file pi wrote; the project folder becomes `/home/user/project` and pi's package folder
`/usr/lib/node_modules/@earendil-works/pi-coding-agent`, nothing else is touched.

    PI16_BIN=~/.cache/pi16/bin/pi16 .venv/bin/python -m tests.live.pi16_recorder [DIALECT ...]

re-records the named dialects (default: all) into the fixtures folder; `tests/live/test_pi16_requests.py`
records each one afresh and compares it with the committed files.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.openai_server import OpenAIServer
from tests.support.pi_dialects import (
    DIALECTS,
    FIRST_PROMPT,
    FIXTURES,
    SECOND_PROMPT,
    responses_replies,
    scripted_replies,
)

PROJECT = "/home/user/project"
PACKAGE = "/usr/lib/node_modules/@earendil-works/pi-coding-agent"
_PACKAGE_PATH = re.compile(r"[^\"\s\\]*/node_modules/@earendil-works/pi-coding-agent")
DROPPED_HEADERS = {
    "host",
    "connection",
    "content-length",
    "accept-encoding",
    "transfer-encoding",
    "user-agent",
}
SETTINGS = {"compaction": {"enabled": False}}
RUN_TIMEOUT_S = 120.0
"""A bound on one pi run (it takes about two seconds), so a hung pi fails the recording instead of waiting."""


class RecordingFailed(RuntimeError):
    """pi exited with an error, or never finished."""


@dataclass(frozen=True)
class Recording:
    requests: str
    """`<dialect>.requests.jsonl`: one `{path, headers, body}` per line."""
    session: str
    """`<dialect>.session.jsonl`, as pi wrote it but for the two scrubbed paths."""


def scrub(text: str, project: Path) -> str:
    """The machine's paths replaced by the fixed ones the fixtures use."""
    return _PACKAGE_PATH.sub(PACKAGE, text.replace(str(project), PROJECT))


def request_line(path: str, headers: dict[str, str], body: Any) -> str:
    kept = {
        name: value
        for name, value in headers.items()
        if name not in DROPPED_HEADERS and not name.startswith("x-stainless")
    }
    return json.dumps({"path": path, "headers": kept, "body": body})


def models_json(dialect: str, port: int) -> str:
    return (FIXTURES / f"{dialect}.models.json").read_text(encoding="utf-8").replace("PORT", str(port))


def model_ref(dialect: str) -> str:
    """`provider/id` of the dialect's one model (named: pi would pick a built-in model of the provider)."""
    providers = json.loads((FIXTURES / f"{dialect}.models.json").read_text(encoding="utf-8"))["providers"]
    provider, entry = next(iter(providers.items()))
    return f"{provider}/{entry['models'][0]['id']}"


def _prompt_tokens(body: dict[str, Any]) -> int:
    """The recording server's usage: a quarter of the request's bytes."""
    return len(json.dumps(body).encode("utf-8")) // 4


async def _run_pi(pi: Path, args: list[str], cwd: Path, env: dict[str, str]) -> None:
    process = await asyncio.create_subprocess_exec(
        str(pi),
        *args,
        cwd=cwd,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        out, err = await asyncio.wait_for(process.communicate(), RUN_TIMEOUT_S)
    except TimeoutError:
        process.kill()
        await process.wait()
        raise RecordingFailed(f"pi {' '.join(args)}: no exit after {RUN_TIMEOUT_S:.0f} s") from None
    if process.returncode != 0:
        raise RecordingFailed(
            f"pi {' '.join(args)} exited with {process.returncode}:\n{err.decode(errors='replace')}"
            f"\n{out.decode(errors='replace')}"
        )


async def record(pi: Path, dialect: str, root: Path) -> Recording:
    """Run the conversation with pi 1.6 for `dialect` in `root` (an empty folder) and return what it sent."""
    thinking, _ = DIALECTS[dialect]
    project = root / "project"
    agent = root / "agent"
    project.mkdir()
    agent.mkdir()
    server = OpenAIServer()
    await server.start()
    try:
        server.count_prompt = _prompt_tokens
        if dialect.startswith("responses"):
            responses_replies(server)
        else:
            scripted_replies(server, dialect)
        (agent / "models.json").write_text(models_json(dialect, server.port), encoding="utf-8")
        (agent / "settings.json").write_text(json.dumps(SETTINGS), encoding="utf-8")
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": os.environ.get("HOME", str(root)),
            "PI_CODING_AGENT_DIR": str(agent),
            "PI_OFFLINE": "1",
            "LANG": "C.UTF-8",
        }
        first = ["--offline", "-p", "--model", model_ref(dialect), "--thinking", thinking, FIRST_PROMPT]
        await _run_pi(pi, first, project, env)
        await _run_pi(pi, ["--offline", "-c", "-p", SECOND_PROMPT], project, env)
    finally:
        await server.stop()
    sessions = sorted(agent.rglob("*.jsonl"))
    if len(sessions) != 1:
        raise RecordingFailed(f"{dialect}: expected one session file under {agent}, found {len(sessions)}")
    lines = [request_line(request.path, request.headers, request.body) for request in server.requests]
    return Recording(
        requests=scrub("".join(f"{line}\n" for line in lines), project),
        session=scrub(sessions[0].read_text(encoding="utf-8"), project),
    )


async def record_into(pi: Path, dialects: list[str], folder: Path) -> None:
    for dialect in dialects:
        with tempfile.TemporaryDirectory(prefix=f"pi16-{dialect}-") as root:
            recording = await record(pi, dialect, Path(root).resolve())
        (folder / f"{dialect}.requests.jsonl").write_text(recording.requests, encoding="utf-8")
        (folder / f"{dialect}.session.jsonl").write_text(recording.session, encoding="utf-8")
        count = recording.requests.count("\n")
        print(f"{dialect}: {count} requests -> {folder / dialect}.requests.jsonl")


def main(argv: list[str]) -> int:
    pi = os.environ.get("PI16_BIN")
    if not pi:
        print("pi16_recorder: set PI16_BIN to pi 1.6's executable (make interop writes one)", file=sys.stderr)
        return 2
    unknown = [name for name in argv if name not in DIALECTS]
    if unknown:
        print(
            f"pi16_recorder: unknown dialect(s) {', '.join(unknown)}; known: {', '.join(DIALECTS)}",
            file=sys.stderr,
        )
        return 2
    try:
        asyncio.run(record_into(Path(pi), argv or list(DIALECTS), FIXTURES))
    except RecordingFailed as failure:
        print(f"pi16_recorder: {failure}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
