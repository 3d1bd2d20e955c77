"""`pi-tui` as a user starts it: a real subprocess of this checkout, with the caller's environment (the
private homes every test gets), a fixed umask, and optionally a file size limit (a disk that fills)."""

from __future__ import annotations

import asyncio
import json
import os
import resource
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.support.openai_server import OpenAIServer

MODEL_REF = "local/m"


@dataclass(frozen=True)
class CliRun:
    code: int
    out: str
    err: str


async def run_pi_tui(*args: str, cwd: Path, umask: int = 0o022, file_size_limit: int | None = None) -> CliRun:
    """Run `python -m pi_tui ARGS` in `cwd` to the end. With `file_size_limit`, no file the process
    writes may grow past that many bytes: the write that crosses it is short, the next fails (EFBIG)."""

    def prepare() -> None:
        os.umask(umask)
        if file_size_limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_size_limit, resource.RLIM_INFINITY))

    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "pi_tui",
        *args,
        cwd=cwd,
        env=dict(os.environ),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        preexec_fn=prepare,
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout=60)
    assert process.returncode is not None
    return CliRun(process.returncode, out.decode(), err.decode())


def write_local_models(server: OpenAIServer, *models: dict[str, object]) -> Path:
    """models.json in the private PI_TUI_HOME: provider `local` on the loopback server with `models`."""
    home = Path(os.environ["PI_TUI_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    provider = {
        "baseUrl": server.base_url,
        "apiKey": "loopback-key",
        "api": "openai-completions",
        "models": list(models),
    }
    (home / "models.json").write_text(json.dumps({"providers": {"local": provider}}))
    return home


def configure_model(server: OpenAIServer, settings: dict[str, object] | None = None) -> list[str]:
    """models.json (and settings.json) in the private PI_TUI_HOME naming the loopback server's model, so
    a run prints nothing on stderr unless something is wrong; the arguments that select it."""
    home = write_local_models(server, {"id": "m", "contextWindow": 32000})
    if settings is not None:
        (home / "settings.json").write_text(json.dumps(settings))
    return ["--model", MODEL_REF]
