"""Which variables a shell command loses: those holding a configured key, and no other."""

from __future__ import annotations

from pi_tui.config.key_secrets import known_keys, remember_key, without_key_variables
from pi_tui.config.models import ModelRegistry

ENDPOINT = ("http://127.0.0.1:9/v1", {}, "openai-completions")


def test_variables_holding_a_configured_key_are_left_out_and_others_kept() -> None:
    registry = ModelRegistry(
        key_specs={"named": "NAMED_VAR", "local": "none"},
        endpoints={"named": ENDPOINT, "local": ENDPOINT, "my-host": ENDPOINT},
    )
    env = {
        "NAMED_VAR": "sk-named-value-1234",
        "COPY_OF_IT": "sk-named-value-1234",
        "MY_HOST_API_KEY": "sk-implicit-5678",
        "OPENAI_API_KEY": "sk-openai-9012",
        "OTHER_API_KEY": "sk-unrelated-3456",
        "PAGER": "none",  # the placeholder key `none` is no secret: a variable with that value stays
        "PATH": "/usr/bin",
    }
    assert without_key_variables(env, registry) == {
        "OTHER_API_KEY": "sk-unrelated-3456",
        "PAGER": "none",
        "PATH": "/usr/bin",
    }


def test_a_remembered_key_is_known_and_its_variables_are_left_out() -> None:
    remember_key("sk-handed-over-on-the-command-line")
    env = {"SOMEWHERE": "sk-handed-over-on-the-command-line", "HOME": "/home/u"}
    assert without_key_variables(env, ModelRegistry()) == {"HOME": "/home/u"}
    assert "sk-handed-over-on-the-command-line" in known_keys(env, ModelRegistry())


def test_anthropic_keys_and_gateway_tokens_never_reach_a_shell_command() -> None:
    env = {"ANTHROPIC_API_KEY": "sk-ant-secret-1", "ANTHROPIC_AUTH_TOKEN": "gateway-secret-2", "HOME": "/h"}
    assert without_key_variables(env, ModelRegistry()) == {"HOME": "/h"}
    assert {"sk-ant-secret-1", "gateway-secret-2"} <= set(known_keys(env, ModelRegistry()))
