"""No configured API key reaches a shell command's environment or survives in what it prints, for the bash
tool and for `!cmd`: real shells, a real models.json, the result, the live updates and the spill file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_tui.agent.tool import ToolResult
from pi_tui.ai.abort import AbortSignal
from pi_tui.config.key_secrets import REDACTED, remember_key
from pi_tui.config.paths import models_path
from pi_tui.session.user_bash import UserBashOptions, execute_user_bash
from pi_tui.tools.bash import BashParams, BashTool

NAMED_KEY = "sk-named-9f8e7d6c5b4a"
LITERAL_KEY = "sk-literal-1a2b3c4d5e6f"
IMPLICIT_KEY = "sk-implicit-77aa88bb99"
OPENAI_KEY = "sk-openai-env-0c0d0e0f"
GIVEN_KEY = "sk-given-on-the-command-line-31337"
"""What `--api-key` hands the session (remembered for the process, as the session does)."""
ALL_KEYS = (NAMED_KEY, LITERAL_KEY, IMPLICIT_KEY, OPENAI_KEY, GIVEN_KEY)

SHOW_VARIABLES = (
    'echo "named=${NAMED_VAR-unset} openai=${OPENAI_API_KEY-unset} implicit=${IMPLICIT_API_KEY-unset}'
    ' alias=${ALIAS_VAR-unset} unrelated=${UNRELATED_VAR-unset}"'
)
VARIABLES_SHOWN = "named=unset openai=unset implicit=unset alias=unset unrelated=keep-me"


@pytest.fixture
def configured_keys(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Keys in every place pi-tui takes them from; returns a file holding the command-line key."""
    providers = {
        "named": {"baseUrl": "http://127.0.0.1:9/v1", "apiKey": "NAMED_VAR", "models": [{"id": "a"}]},
        "literal": {"baseUrl": "http://127.0.0.1:9/v1", "apiKey": LITERAL_KEY, "models": [{"id": "b"}]},
        "implicit": {"baseUrl": "http://127.0.0.1:9/v1", "models": [{"id": "c"}]},
    }
    models_path().parent.mkdir(parents=True, exist_ok=True)
    models_path().write_text(json.dumps({"providers": providers}))
    monkeypatch.setenv("NAMED_VAR", NAMED_KEY)
    monkeypatch.setenv("IMPLICIT_API_KEY", IMPLICIT_KEY)
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    monkeypatch.setenv("ALIAS_VAR", NAMED_KEY)
    monkeypatch.setenv("UNRELATED_VAR", "keep-me")
    remember_key(GIVEN_KEY)
    given = tmp_path / "given.txt"
    given.write_text(f"--api-key\0{GIVEN_KEY}\0")
    return given


def assert_no_key(text: str, where: str) -> None:
    for key in ALL_KEYS:
        assert key not in text, f"{key} in {where}"


def print_everything(given: Path) -> str:
    """`env`, the variables, models.json with its literal key and a cmdline-like file with the given key."""
    return f'env; {SHOW_VARIABLES}; cat "$PI_TUI_HOME/models.json"; tr "\\0" " " < {given}; echo'


async def test_bash_tool_env_has_no_key_variable_and_printed_keys_are_redacted(
    configured_keys: Path, tmp_path: Path
) -> None:
    tool = BashTool(str(tmp_path), spill_dir=tmp_path / "spill")
    result = await tool.execute("call", BashParams(command=print_everything(configured_keys)), AbortSignal())
    text = result.text_content
    assert VARIABLES_SHOWN in text
    assert_no_key(text, "the result")
    assert f'"apiKey": "{REDACTED}"' in text and f"--api-key {REDACTED}" in text
    for name in ("NAMED_VAR=", "OPENAI_API_KEY=", "IMPLICIT_API_KEY=", "ALIAS_VAR="):
        assert f"\n{name}" not in f"\n{text}", name
    assert "\nUNRELATED_VAR=keep-me\n" in f"\n{text}"


async def test_a_key_split_across_reads_is_redacted_in_result_updates_and_spill(
    configured_keys: Path, tmp_path: Path
) -> None:
    half = len(GIVEN_KEY) // 2
    # Two writes with a pause between them: the key reaches the pipe in two pieces; the lines after it
    # make the output spill.
    command = f"printf 'start {GIVEN_KEY[:half]}'; sleep 0.3; printf '{GIVEN_KEY[half:]} end\\n'; seq 1 3000"
    updates: list[ToolResult] = []
    tool = BashTool(str(tmp_path), max_lines=50, spill_dir=tmp_path / "spill")
    result = await tool.execute("call", BashParams(command=command), AbortSignal(), updates.append)
    assert result.details is not None
    spill = Path(result.details["fullOutputPath"]).read_text()
    assert spill.startswith(f"start {REDACTED} end\n1\n2\n")
    assert_no_key(spill, "the spill file")
    assert_no_key(result.text_content, "the result")
    assert len(updates) >= 2
    for update in updates:
        assert_no_key(update.text_content, "a live update")


async def test_user_bash_env_has_no_key_variable_and_printed_keys_are_redacted(
    configured_keys: Path, tmp_path: Path
) -> None:
    previews: list[str] = []
    command = f"{print_everything(configured_keys)}; seq 1 3000"
    options = UserBashOptions(cwd=str(tmp_path), spill_dir=tmp_path / "spill", max_lines=3000)
    message = await execute_user_bash(command, options, on_output=previews.append)
    assert message.truncated and message.full_output_path is not None
    spill = Path(message.full_output_path).read_text()
    assert VARIABLES_SHOWN in spill and f"--api-key {REDACTED}" in spill
    assert_no_key(spill, "the spill file")
    assert_no_key(message.output, "the message")
    assert previews
    for preview in previews:
        assert_no_key(preview, "a live preview")
