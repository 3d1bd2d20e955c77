"""The model whose window the exported budget is measured against: the branch's own model."""

from __future__ import annotations

from pi_tui.config.model_config import ModelConfig
from pi_tui.config.models import load_registry
from pi_tui.session.context_rebuild import build_session_context
from pi_tui.session.store import SessionStore


def branch_model(store: SessionStore) -> tuple[ModelConfig | None, str | None]:
    """The leaf's model from models.json when listed there, else with pi-tui's default window (and a
    note saying so); None when the branch records no model."""
    ref = build_session_context(store.entries, store.leaf_id).model
    if ref is None:
        return None, "no model recorded on this branch: usage unknown"
    found = load_registry().find(f"{ref.provider}/{ref.model_id}")
    if found is not None:
        return found, None
    model = ModelConfig(id=ref.model_id, name=ref.model_id, provider=ref.provider)
    return model, f"{model.ref} is not in models.json: window assumed {model.context_window:,} tokens"
