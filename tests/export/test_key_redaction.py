"""API keys never reach an export: a session written through the real stack (models.json with an
`apiKey` naming a variable, the real openai client, a user and a model that write the key) is exported
to HTML and JSONL, and neither file holds the key."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest

from pi_tui.config.key_secrets import REDACTED, known_keys, redact
from pi_tui.config.models import ModelRegistry, load_registry
from pi_tui.config.paths import models_path, session_dir_for_cwd
from pi_tui.modes.export_command import run_export_command
from pi_tui.modes.print_mode import run_print_mode
from pi_tui.modes.run_options import RunOptions
from tests.support.openai_server import OpenAIServer, StreamReply, chunk, text_reply, tool_call_delta, usage

KEY = "sk-export-test-5c1d2e3f4a5b"
KEY_VAR = "EXPORT_TEST_LOOP_KEY"


def test_known_keys_resolve_configured_names_and_skip_placeholders() -> None:
    registry = ModelRegistry(key_specs={"a": "A_VAR", "b": "literal-key-123456", "c": "UNSET_VAR_NAME"})
    env = {"A_VAR": "from-the-environment", "OTHER_API_KEY": "other-key-9876", "SHORT_API_KEY": "abc"}
    keys = set(known_keys(env, registry, extra=["session-key-abcdef"]))
    # The keys sessions of this test process were handed are in the list too (config.key_secrets).
    assert {"from-the-environment", "literal-key-123456", "other-key-9876", "session-key-abcdef"} <= keys
    assert not {"A_VAR", "UNSET_VAR_NAME", "abc"} & keys
    assert redact("x other-key-9876 y", sorted(keys, key=len, reverse=True)) == f"x {REDACTED} y"


async def test_exports_of_a_real_session_hold_no_key(
    openai_server: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_VAR, KEY)
    models = {
        "providers": {
            "loop": {
                "baseUrl": openai_server.base_url,
                "apiKey": KEY_VAR,
                "models": [{"id": "m", "contextWindow": 50000}],
            }
        }
    }
    models_path().parent.mkdir(parents=True, exist_ok=True)
    models_path().write_text(json.dumps(models))
    assert KEY in known_keys(os.environ, load_registry())
    openai_server.enqueue(
        StreamReply(
            [
                chunk(
                    tool_calls=[
                        tool_call_delta(
                            0,
                            call_id="call_1",
                            name="bash",
                            arguments=json.dumps({"command": f"echo ${KEY_VAR}"}),
                        )
                    ]
                ),
                chunk(finish_reason="tool_calls"),
                chunk(no_choices=True, usage=usage(100, 10)),
            ]
        ),
        text_reply(f"The variable holds {KEY}."),
    )
    out, err = io.StringIO(), io.StringIO()
    options = RunOptions(messages=[f"is my key {KEY} set?"], print_mode=True, model="loop/m")
    code = await run_print_mode(options, cwd=str(tmp_path), stdin_text=None, stdout=out, stderr=err)
    assert code == 0, err.getvalue()
    # Honest: the key was used, and the session itself holds it (the user typed it, the model repeated
    # it); the tool never saw it (tests/tools/test_bash_keys.py), so its output is not a third copy.
    assert openai_server.requests[0].headers["authorization"] == f"Bearer {KEY}"
    [session] = sorted(session_dir_for_cwd(str(tmp_path)).glob("*.jsonl"))
    assert session.read_text().count(KEY) == 2

    monkeypatch.chdir(tmp_path)
    for name in ("page.html", "branch.jsonl"):
        assert run_export_command([str(session), name, "--full-output"]) == 0
        text = (tmp_path / name).read_text()
        assert KEY not in text, name
        assert REDACTED in text, name
