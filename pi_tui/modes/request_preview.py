"""`pi-tui context <session> --request`: the next request, printed as it would go over the wire."""

from __future__ import annotations

import json
import sys

from pi_tui.config.model_config import ModelConfig
from pi_tui.session.agent_session import AgentSession, SessionConfig
from pi_tui.session.next_request import next_request
from pi_tui.session.services import AgentSessionServices
from pi_tui.session_file.store import SessionStore

PREVIEW_ONLY = "previewing the next request"


def preview_session(store: SessionStore, model: ModelConfig | None) -> AgentSession:
    """A session over `store` that only looks: what it would send next, never written."""
    # Looking must not write: a session opened for its first turn would otherwise record its settings.
    store.read_only_reason = store.read_only_reason or PREVIEW_ONLY
    services = AgentSessionServices.for_cwd(store.cwd)
    return AgentSession(SessionConfig(store=store, resources=services.resources, model=model))


def show_next_request(
    store: SessionStore, model: ModelConfig | None, prompt: str | None, *, as_json: bool
) -> int:
    if model is None:
        sys.stderr.write("pi-tui context: no model recorded on this branch: no request to show\n")
        return 1
    session = preview_session(store, model)
    preview = next_request(session, prompt)
    assert preview is not None
    url = model.base_url.rstrip("/") + preview.path
    if as_json:
        json.dump({"url": url, **preview.to_json()}, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
        return 0
    sys.stdout.write(f"POST {url}\n")
    for name, value in preview.headers.items():
        sys.stdout.write(f"{name}: {value}\n")
    sys.stdout.write("\n" + json.dumps(preview.body, indent=2, ensure_ascii=False) + "\n")
    return 0
