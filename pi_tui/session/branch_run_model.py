"""The model a branch was run with, for measuring its budget (`pi-tui context`, exports)."""

from __future__ import annotations

from pi_tui.config.model_config import ModelConfig
from pi_tui.config.models import load_registry
from pi_tui.session_file.context_rebuild import build_session_context
from pi_tui.session_file.store import SessionStore


def branch_model(store: SessionStore, leaf_id: str | None = None) -> tuple[ModelConfig | None, str | None]:
    """The model at `leaf_id` (default the leaf) from models.json when listed there, else with pi-tui's
    default window (and a note saying so); None when the branch records no model."""
    ref = build_session_context(store.entries, leaf_id if leaf_id is not None else store.leaf_id).model
    if ref is None:
        return None, "no model recorded on this branch: usage unknown"
    found = load_registry().find(f"{ref.provider}/{ref.model_id}")
    if found is not None:
        return found, None
    model = ModelConfig(id=ref.model_id, name=ref.model_id, provider=ref.provider)
    return model, f"{model.ref} is not in models.json: window assumed {model.context_window:,} tokens"
