"""The key never reaches a session through a tool's output (README: keys are never written).

`pi-tui -p` runs in a subprocess against the loopback server, with the key given each way pi-tui takes
one; the model's bash call prints everything a command can find: `env`, pi-tui's own command line and
environment from /proc, and the key file (split across two writes). Then the session file, the spill
file, an HTML export and every request body the server received are searched for the key.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_tui.config.api_key_option import API_KEY_VISIBLE_WARNING
from pi_tui.config.key_secrets import REDACTED
from tests.reliability.test_security import (
    CONTEXT_WINDOW,
    KEY_ENV_NAME,
    assert_nothing_leaks,
    bash_call,
    make_root,
    run_cli,
    server,
    tool_call,
)
from tests.support.openai_server import OpenAIServer, text_reply

__all__ = ["server"]  # the loopback server fixture

KEY = "sk-tooloutput-6d5c4b3a2f1e"
KEY_SETUPS = ("api-key-flag", "api-key-file", "models-json-env")
TAIL_LINES = 400
SHOWN_VARIABLES = f"var=${{{KEY_ENV_NAME}-unset}} openai=${{OPENAI_API_KEY-unset}}"


def command(key_file: Path) -> str:
    half = len(KEY) // 2
    # The numbers first make the output spill; what follows them stays within the tail the model gets.
    return (
        f'seq 1 {TAIL_LINES}; env; echo "{SHOWN_VARIABLES}"; tr "\\0" " " < /proc/$PPID/cmdline; echo;'
        f' tr "\\0" " " < /proc/$PPID/environ; echo;'
        f" head -c {half} {key_file}; sleep 0.3; tail -c +{half + 1} {key_file}; echo end"
    )


@pytest.mark.parametrize("setup", KEY_SETUPS)
async def test_bash_tool_output_holds_no_key_anywhere(
    setup: str, server: OpenAIServer, tmp_path: Path
) -> None:
    root = make_root(tmp_path)
    (root.pi_tui_home / "settings.json").write_text(json.dumps({"tools": {"maxLines": TAIL_LINES}}))
    key_file = tmp_path / "key.txt"  # outside the root, which must hold no key
    key_file.write_text(f"{KEY}\n")
    args = ["-p", "--model", "m"]
    env: dict[str, str] = {}
    if setup == "api-key-flag":
        args += ["--base-url", server.base_url, "--api-key", KEY]
    elif setup == "api-key-file":
        args += ["--base-url", server.base_url, "--api-key-file", str(key_file)]
    else:
        model = {"id": "m", "contextWindow": CONTEXT_WINDOW}
        provider = {"baseUrl": server.base_url, "apiKey": KEY_ENV_NAME, "models": [model]}
        (root.pi_tui_home / "models.json").write_text(json.dumps({"providers": {"loop": provider}}))
        env.update({KEY_ENV_NAME: KEY, "OPENAI_API_KEY": KEY})
    server.enqueue(bash_call(command(key_file)), text_reply("seen"))

    code, out, err = await run_cli(root, [*args, "show me everything"], env)

    assert code == 0, err
    assert out == "seen\n"
    assert (API_KEY_VISIBLE_WARNING in err) == (setup == "api-key-flag")
    assert {request.headers["authorization"] for request in server.requests} == {f"Bearer {KEY}"}
    (session,) = root.pi_tui_home.rglob("*.jsonl")
    exported = await run_cli(root, ["export", str(session), str(root.project / "session.html")], env)
    assert exported[0] == 0, exported
    files = assert_nothing_leaks(root, KEY, out + exported[1], err + exported[2])
    assert [path for path in files if path.name.startswith("pi-bash-")], "the output did not spill"
    tool_result_sent = json.dumps(server.requests[1].body)
    assert KEY not in tool_result_sent
    # The command did find the key (so the search above is not vacuous), and found no variable holding it.
    assert REDACTED in tool_result_sent and "var=unset openai=unset" in tool_result_sent
    (spill,) = (session.parent / "spill").rglob("pi-bash-*")
    assert f"\n{REDACTED}\nend\n" in spill.read_text()  # the key file, printed in two writes


@pytest.mark.parametrize("tool", ["read", "grep"])
async def test_read_and_grep_results_hold_no_key(tool: str, server: OpenAIServer, tmp_path: Path) -> None:
    """A `.env` read or searched by the model: the result sent and recorded says `[redacted]`."""
    root = make_root(tmp_path)
    secrets = tmp_path / "secrets"  # outside the root, which must hold no key
    secrets.mkdir()
    (secrets / ".env").write_text(f"DEBUG=1\nSERVICE_TOKEN={KEY}\n")
    arguments = (
        {"path": str(secrets / ".env")} if tool == "read" else {"pattern": "TOKEN", "path": str(secrets)}
    )
    server.enqueue(tool_call(tool, arguments, call_id=f"call_{tool}"), text_reply("seen"))
    (secrets / "key").write_text(f"{KEY}\n")
    args = ["-p", "--model", "m", "--base-url", server.base_url, "--api-key-file", str(secrets / "key")]
    args += ["--tools", "read,grep"]

    code, out, err = await run_cli(root, [*args, "read the settings"], {})

    assert code == 0, err
    assert_nothing_leaks(root, KEY, out, err)
    tool_result_sent = json.dumps(server.requests[1].body)
    assert KEY not in tool_result_sent
    assert f"SERVICE_TOKEN={REDACTED}" in tool_result_sent
