"""Files and keys on the real stack: private file modes, and no API key or `Authorization` header in
anything the app writes or prints.

The headless CLI runs in a subprocess whose HOME, TMPDIR and pi-tui homes all live in one temporary root,
through the real `openai` client against the loopback server: a tool call whose output spills, a failed
request (its error body echoes the key, as some servers do), a retried one, and an automatic compaction
with its summary call; the session is then exported (HTML, JSONL). Every file under the root (session
file with its request records, spill files, settings, exports, caches in TMPDIR) and all output is searched.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import stat
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from pi_tui.config.settings_files import save_global_settings
from pi_tui.modes.print_mode import run_print_mode
from pi_tui.modes.run_options import RunOptions
from tests.support.openai_server import (
    ErrorReply,
    OpenAIServer,
    StreamReply,
    chunk,
    text_reply,
    tool_call_delta,
    usage,
)

LEAK_MARKERS = (b"Authorization", b"authorization", b"Bearer")
KEY_ENV_NAME = "LEAKTEST_API_KEY"
CONTEXT_WINDOW = 128_000
"""Zero-config's window; models.json says the same so every run compacts at the same point."""
SETTINGS = {
    "compaction": {"reserveTokens": 2000, "keepRecentTokens": 1},
    "retry": {"baseDelayMs": 1, "maxDelayMs": 5},
    "tools": {"maxLines": 20},
}


@pytest.fixture
async def server() -> AsyncIterator[OpenAIServer]:
    loopback = OpenAIServer()
    await loopback.start()
    try:
        yield loopback
    finally:
        await loopback.stop()


@dataclass
class Root:
    """A whole user account in a folder: HOME, TMPDIR, pi-tui's and pi's homes, and the project."""

    path: Path

    @property
    def home(self) -> Path:
        return self.path / "home"

    @property
    def pi_tui_home(self) -> Path:
        return self.home / ".pi-tui"

    @property
    def project(self) -> Path:
        return self.path / "project"

    def env(self, extra: dict[str, str]) -> dict[str, str]:
        env = {
            name: value
            for name, value in os.environ.items()
            if not name.endswith("_API_KEY") and not name.startswith(("OPENAI_", "PI_"))
        }
        env.update(
            HOME=str(self.home),
            TMPDIR=str(self.path / "tmp"),
            PI_TUI_HOME=str(self.pi_tui_home),
            PI_CODING_AGENT_DIR=str(self.home / ".pi" / "agent"),
            XDG_CACHE_HOME=str(self.home / ".cache"),
            XDG_CONFIG_HOME=str(self.home / ".config"),
            XDG_DATA_HOME=str(self.home / ".local" / "share"),
        )
        env.update(extra)
        return env

    def written_files(self) -> list[Path]:
        return sorted(path for path in self.path.rglob("*") if path.is_file())


def make_root(tmp_path: Path) -> Root:
    root = Root(tmp_path / "root")
    for folder in (root.home, root.path / "tmp", root.project):
        folder.mkdir(parents=True)
    root.pi_tui_home.mkdir()
    (root.pi_tui_home / "settings.json").write_text(json.dumps(SETTINGS))
    (root.project / "README.md").write_text("a project\n")
    return root


async def run_cli(root: Root, args: list[str], env: dict[str, str]) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "pi_tui",
        *args,
        cwd=root.project,
        env=root.env(env),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        preexec_fn=lambda: os.umask(0o022),
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout=60)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


def tool_call(name: str, arguments: dict[str, str], call_id: str = "call_1") -> StreamReply:
    """The model's reply: one call of tool `name`."""
    encoded = json.dumps(arguments)
    return StreamReply(
        [
            chunk(tool_calls=[tool_call_delta(0, call_id=call_id, name=name, arguments=encoded)]),
            chunk(finish_reason="tool_calls"),
            chunk(no_choices=True, usage=usage(500, 20)),
        ]
    )


def bash_call(command: str) -> StreamReply:
    return tool_call("bash", {"command": command})


def big_reply(text: str) -> StreamReply:
    """A reply whose usage puts the context past the threshold (window - reserve): compaction follows."""
    reply = text_reply(text)
    reply.chunks[-1] = chunk(no_choices=True, usage=usage(CONTEXT_WINDOW - 1000, 50))
    return reply


def script(server: OpenAIServer, key: str) -> list[str]:
    """Three prompts: a tool call that spills, a refused request, a retried one that leads to a compaction."""
    server.enqueue(
        bash_call("seq 1 200"),
        text_reply("ran it"),
        ErrorReply(
            401, {"error": {"message": f"Incorrect API key provided: {key}", "code": "invalid_api_key"}}
        ),
        ErrorReply(503, {"error": {"message": "overloaded"}}),
        big_reply("a long answer"),
        text_reply("## Goal\nsummary of the work"),
        text_reply("## Original Request\nturn prefix"),
    )
    return ["run seq", "and now?", "once more"]


def assert_nothing_leaks(root: Root, key: str, out: str, err: str) -> list[Path]:
    files = root.written_files()
    for path in files:
        data = path.read_bytes()
        assert key.encode() not in data, f"API key written to {path}"
        for marker in LEAK_MARKERS:
            assert marker not in data, f"{marker!r} written to {path}"
    for name, text in (("stdout", out), ("stderr", err)):
        assert key not in text, f"API key printed on {name}"
        assert "Authorization" not in text and "Bearer" not in text, name
    return files


def assert_server_got_the_key(server: OpenAIServer, key: str) -> None:
    """The key was really in use: every request carried it (else the search above proves nothing)."""
    assert len(server.requests) >= 6
    assert {request.headers["authorization"] for request in server.requests} == {f"Bearer {key}"}


def assert_the_run_wrote_everything(root: Root, files: list[Path]) -> None:
    """The session holds what the search must cover: the failure, request records and a compaction."""
    sessions = [path for path in files if path.suffix == ".jsonl" and root.pi_tui_home in path.parents]
    assert len(sessions) == 1
    text = sessions[0].read_text()
    # The refused request is recorded, with the key the server echoed cut out.
    for marker in (
        '"type":"compaction"',
        '"pi-tui.request"',
        "Incorrect API key provided: [redacted]",
        '"stopReason":"error"',
    ):
        assert marker in text, marker
    assert [path for path in files if path.name.startswith("pi-bash-")], "no spill file written"


KEY_SETUPS = {
    # models.json names an environment variable (pi's env indirection).
    "models-json-env": ("sk-envindirect-4b1d9e2f7a", ["--mode", "json", "--model", "loop/m"]),
    "api-key-flag": ("sk-flagliteral-8c7a61d0e3", ["-p", "--model", "m", "--api-key", "{key}"]),
    "openai-api-key-env": ("sk-openaienv-5e0f3a77b9", ["--mode", "json", "--model", "m"]),
}


@pytest.mark.parametrize("setup", list(KEY_SETUPS))
async def test_no_key_in_any_written_file_or_output(setup: str, server: OpenAIServer, tmp_path: Path) -> None:
    key, args = KEY_SETUPS[setup]
    root = make_root(tmp_path)
    env: dict[str, str] = {}
    if setup == "models-json-env":
        provider = {
            "baseUrl": server.base_url,
            "apiKey": KEY_ENV_NAME,
            "api": "openai-completions",
            "models": [{"id": "m", "contextWindow": CONTEXT_WINDOW, "maxTokens": 4096, "reasoning": False}],
        }
        (root.pi_tui_home / "models.json").write_text(json.dumps({"providers": {"loop": provider}}))
        env[KEY_ENV_NAME] = key
    elif setup == "api-key-flag":
        args = [*args, "--base-url", server.base_url]
    else:
        env.update(OPENAI_API_KEY=key, OPENAI_BASE_URL=server.base_url)
    messages = script(server, key)

    code, out, err = await run_cli(root, [*(a.format(key=key) for a in args), *messages], env)

    assert code == 0, err
    assert_server_got_the_key(server, key)
    if setup == "models-json-env":
        (session,) = root.pi_tui_home.rglob("*.jsonl")
        for name in ("session.html", "session.jsonl"):
            exported = await run_cli(root, ["export", str(session), str(root.project / name)], env)
            assert exported[0] == 0, exported
            out, err = out + exported[1], err + exported[2]
        assert (root.project / "session.html").stat().st_size > 1000
    files = assert_nothing_leaks(root, key, out, err)
    assert_the_run_wrote_everything(root, files)
    if args[0] == "--mode":
        assert '"type":"compaction_end"' in out and "Incorrect API key provided" in out
    else:
        assert out == "a long answer\n"


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


async def test_session_and_spill_files_are_private_whatever_the_umask(
    server: OpenAIServer, tmp_path: Path
) -> None:
    home = Path(os.environ["PI_TUI_HOME"])
    home.mkdir(parents=True)
    (home / "settings.json").write_text(json.dumps(SETTINGS))
    server.enqueue(bash_call("seq 1 200"), text_reply("done"))
    options = RunOptions(messages=["go"], print_mode=True, model="m", base_url=server.base_url, api_key="k")
    out, err = io.StringIO(), io.StringIO()
    previous = os.umask(0o022)
    try:
        code = await run_print_mode(options, cwd=str(tmp_path), stdin_text=None, stdout=out, stderr=err)
    finally:
        os.umask(previous)

    assert (code, out.getvalue()) == (0, "done\n"), err.getvalue()
    sessions_root = home / "sessions"
    (session_file,) = sessions_root.rglob("*.jsonl")
    (spill_file,) = sessions_root.rglob("pi-bash-*.log")
    assert mode(session_file) == 0o600
    assert mode(spill_file) == 0o600
    # Every folder from the sessions root down to the spill file: owner only.
    folders = [folder for folder in spill_file.parents if folder.is_relative_to(sessions_root)]
    assert session_file.parent in folders and len(folders) == 4
    assert {folder: mode(folder) for folder in folders} == {folder: 0o700 for folder in folders}


def test_saved_settings_are_private(tmp_path: Path) -> None:
    previous = os.umask(0o022)
    try:
        target = tmp_path / "fresh" / "settings.json"
        assert save_global_settings({"theme": "dark"}, path=target) == []
        assert mode(target) == 0o600
        shared = tmp_path / "shared.json"
        shared.write_text("{}")
        assert mode(shared) == 0o644
        assert save_global_settings({"approval": True}, path=shared) == []
        assert mode(shared) == 0o600 and json.loads(shared.read_text()) == {"approval": True}
    finally:
        os.umask(previous)
