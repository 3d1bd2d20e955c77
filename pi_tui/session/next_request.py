"""The exact request a session's next model call would send, for users who want to see it.

Built the way the agent loop builds a turn's request (the rebuilt context converted for the model, the
session's system prompt and active tools, its thinking level and id), then through the model's own
request builder, so cache markers, `prompt_cache_key` and replayed reasoning appear as they will be sent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pi_tui.ai.chat_request import ProviderRequest
from pi_tui.ai.convert import convert_to_llm
from pi_tui.ai.messages import AgentMessage, TextContent, UserMessage
from pi_tui.ai.requests import build_request, shown_headers
from pi_tui.ai.stream import LlmContext, StreamOptions
from pi_tui.config.model_config import ModelConfig
from pi_tui.session.agent_session import AgentSession, SessionConfig
from pi_tui.session.auto_compaction import live_context
from pi_tui.session.services import AgentSessionServices
from pi_tui.session_file.store import SessionStore


@dataclass(frozen=True)
class RequestPreview:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    request: ProviderRequest

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "headers": self.headers, "body": self.body}


def next_request(session: AgentSession, prompt: str | None = None) -> RequestPreview | None:
    """The request for the session's next turn (with `prompt` as the new user message, if given); None
    without a model."""
    model = session.model
    if model is None:
        return None
    messages: list[AgentMessage] = list(session.agent.state.messages)
    if prompt:
        messages.append(UserMessage(content=[TextContent(text=prompt)], timestamp=0))
    level = session.thinking_level
    context = LlmContext(
        session.system_prompt.text, convert_to_llm(messages), [tool.spec() for tool in session.active_tools]
    )
    options = StreamOptions(reasoning=None if level == "off" else level, session_id=session.store.session_id)
    request = build_request(model, context, options)
    return RequestPreview(request.path, shown_headers(model, request), request.body, request)


def live_context_for(store: SessionStore, model: ModelConfig) -> LlmContext:
    """The request a session on `store` would send `model` now, without a new message: what a headless
    compaction summarises inline. Building the session must not write (a fresh one records its model)."""
    reason = store.read_only_reason
    store.read_only_reason = reason or "reading the conversation to summarise"
    try:
        services = AgentSessionServices.for_cwd(store.cwd)
        session = AgentSession(SessionConfig(store=store, resources=services.resources, model=model))
    finally:
        store.read_only_reason = reason
    return live_context(session.agent)
