"""The rig for fault-injection tests: a project with settings and a models.json pointing at the loopback
server, a session built the way front ends build it (`create_runtime`), every event recorded, and the
checks each test makes of the session file and of what reached the server."""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import pytest

from pi_tui.agent.events import MessageEndEvent
from pi_tui.ai.convert import NO_RESULT_PROVIDED, convert_to_llm, transform_messages
from pi_tui.ai.messages import AssistantMessage, TextContent, ToolResultMessage, UserMessage
from pi_tui.config.model_config import ModelConfig
from pi_tui.session.agent_session import AgentSession
from pi_tui.session.factory import ModelChoice, create_runtime
from pi_tui.session.session_events import AnyEvent
from pi_tui.session.store_opening import SessionChoice
from pi_tui.session_file.entries import MessageEntry
from pi_tui.session_file.store import SessionStore
from tests.support.openai_server import OpenAIServer

E = TypeVar("E")

FAST_RETRY: dict[str, Any] = {"baseDelayMs": 5, "maxDelayMs": 100, "maxRetries": 2}
"""Short enough for the suite, long enough that the delay is the one the settings asked for."""


@dataclass
class FaultRig:
    server: OpenAIServer
    cwd: Path
    events: list[AnyEvent] = field(default_factory=list)
    _session: AgentSession | None = None

    def configure(self, *, models: tuple[str, ...] = ("primary",), **settings: Any) -> None:
        """models.json in the private home (window 32000) and the project's settings.json."""
        home = Path(os.environ["PI_TUI_HOME"])
        home.mkdir(parents=True, exist_ok=True)
        provider = {
            "baseUrl": self.server.base_url,
            "apiKey": "loopback-key",
            "api": "openai-completions",
            "models": [{"id": model_id, "contextWindow": 32000} for model_id in models],
        }
        (home / "models.json").write_text(json.dumps({"providers": {"local": provider}}))
        document = {"retry": FAST_RETRY, **settings}
        (self.cwd / ".pi-tui").mkdir(exist_ok=True)
        (self.cwd / ".pi-tui" / "settings.json").write_text(json.dumps(document))

    @property
    def session(self) -> AgentSession:
        if self._session is None:
            setup = create_runtime(str(self.cwd), model=ModelChoice("local/primary"), choice=SessionChoice())
            assert setup.runtime is not None and setup.problems == [], setup.problems
            self._session = setup.runtime.session
            self._session.subscribe(self.events.append)
        return self._session

    def of(self, kind: type[E]) -> list[E]:
        return [event for event in self.events if isinstance(event, kind)]

    def replies(self) -> list[AssistantMessage]:
        """Every assistant message the session announced as final (what the conversation shows)."""
        return [
            event.message for event in self.of(MessageEndEvent) if isinstance(event.message, AssistantMessage)
        ]

    def shown_errors(self) -> list[str]:
        return [reply.error_message or "" for reply in self.replies() if reply.failed]

    def model(self) -> ModelConfig:
        model = self.session.model
        assert model is not None
        return model

    def reopen(self) -> SessionStore:
        """The session file read back by the loader, which must find nothing wrong with it."""
        path = self.session.store.path
        assert path is not None and path.is_file()
        store = SessionStore.open(path)
        assert store.diagnostics == [] and store.read_only_reason is None
        return store


def user_texts(store: SessionStore) -> list[str]:
    texts: list[str] = []
    for entry in store.entries:
        message = entry.message if isinstance(entry, MessageEntry) else None
        if isinstance(message, UserMessage):
            content = message.content
            texts.append(
                content
                if isinstance(content, str)
                else "".join(block.text for block in content if isinstance(block, TextContent))
            )
    return texts


def stored_replies(store: SessionStore) -> list[AssistantMessage]:
    messages = [entry.message for entry in store.entries if isinstance(entry, MessageEntry)]
    return [message for message in messages if isinstance(message, AssistantMessage)]


def check_transcript(rig: FaultRig, prompts: list[str]) -> SessionStore:
    """The file holds every prompt and every reply the session showed, failed ones included; its rebuilt
    context answers every tool call of a good reply, and what it would send the model equals what the
    live session sends: no failed reply, no tool call without its real result."""
    store = rig.reopen()
    assert user_texts(store) == prompts
    shown = [(reply.stop_reason, reply.error_message, reply.text) for reply in rig.replies()]
    kept = [(reply.stop_reason, reply.error_message, reply.text) for reply in stored_replies(store)]
    assert kept == shown
    context = store.build_context().messages
    calls = [
        call.id
        for message in context
        if isinstance(message, AssistantMessage) and not message.failed
        for call in message.tool_calls
    ]
    results = [message.tool_call_id for message in context if isinstance(message, ToolResultMessage)]
    assert sorted(calls) == sorted(results)
    model = rig.model()
    replayed = transform_messages(convert_to_llm(context), model)
    assert not any(isinstance(message, AssistantMessage) and message.failed for message in replayed)
    assert not any(
        isinstance(message, ToolResultMessage) and message.text == NO_RESULT_PROVIDED for message in replayed
    )
    live = transform_messages(convert_to_llm(rig.session.agent.state.messages), model)
    assert [message.to_json_obj() for message in replayed] == [message.to_json_obj() for message in live]
    return store


def check_wire(body: dict[str, Any], failed: list[AssistantMessage]) -> None:
    """A request body pairs every tool call with its result and carries no failed reply's text."""
    pending: set[str] = set()
    for message in body["messages"]:
        if message["role"] in ("user", "assistant", "system"):
            assert not pending, f"tool calls without results: {pending}"
        if message["role"] == "assistant":
            pending = {call["id"] for call in message.get("tool_calls") or []}
        elif message["role"] == "tool":
            assert message["tool_call_id"] in pending
            assert message["content"] != NO_RESULT_PROVIDED
            pending.discard(message["tool_call_id"])
    assert not pending
    text = json.dumps(body["messages"])
    for reply in failed:
        if reply.text.strip():
            assert json.dumps(reply.text)[1:-1] not in text


@pytest.fixture
async def fault_rig(tmp_path: Path) -> AsyncIterator[FaultRig]:
    server = OpenAIServer()
    await server.start()
    cwd = tmp_path / "project"
    cwd.mkdir()
    try:
        yield FaultRig(server, cwd)
    finally:
        await server.stop()
