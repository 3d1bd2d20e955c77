"""Is a model configured? The start page's first question, answered without touching the network."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pi_tui.config.paths import models_path

SETUP_HELP = (
    "No model configured. Set OPENAI_API_KEY (and OPENAI_BASE_URL for a local or other "
    "OpenAI-compatible server), or describe your models in {models}. See README: Configuring a model. "
    "Press d to watch the offline demo."
)


@dataclass(frozen=True)
class SetupStatus:
    configured: bool
    text: str


def describe_model_setup(env: Mapping[str, str]) -> SetupStatus:
    models = models_path()
    if models.is_file():
        return SetupStatus(True, f"Models from {models}.")
    if env.get("OPENAI_API_KEY"):
        base_url = env.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
        return SetupStatus(True, f"Using OPENAI_API_KEY with {base_url}.")
    return SetupStatus(False, SETUP_HELP.format(models=models))
