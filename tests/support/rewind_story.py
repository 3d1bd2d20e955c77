"""A real AgentSession with the real tools on real files, scripted to make three edits and a bash
change (the rewind tests' shared story, docs/rewind.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pi_tui.ai.messages import UserMessage
from pi_tui.ai.scripted import ScriptedProvider, ScriptedReply, ScriptedToolCall
from pi_tui.config.model_config import ModelConfig
from pi_tui.config.settings import CompactionSettings, Settings
from pi_tui.context.resources import load_resources
from pi_tui.session.agent_session import AgentSession, SessionConfig
from pi_tui.session_file.entries import MessageEntry
from pi_tui.session_file.store import SessionStore

MODEL = ModelConfig(id="scripted-model", provider="scripted", context_window=32_000, reasoning=False)


def call(name: str, **arguments: Any) -> ScriptedToolCall:
    return ScriptedToolCall(name=name, arguments=arguments)


def edit(path: str, old: str, new: str) -> ScriptedToolCall:
    return call("edit", path=path, edits=[{"oldText": old, "newText": new}])


def make_session(
    tmp_path: Path,
    replies: list[ScriptedReply],
    store: SessionStore | None = None,
    settings: Settings | None = None,
) -> AgentSession:
    project = tmp_path / "project"
    project.mkdir(parents=True, exist_ok=True)
    resources = load_resources(project, settings=settings or Settings(), home=tmp_path, include_builtin=False)
    return AgentSession(
        SessionConfig(
            store=store or SessionStore.create(str(project), tmp_path / "sessions"),
            resources=resources,
            model=MODEL,
            stream_fn=ScriptedProvider(replies),
        )
    )


def user_entries(session: AgentSession) -> list[MessageEntry]:
    return [
        entry
        for entry in session.store.entries
        if isinstance(entry, MessageEntry) and isinstance(entry.message, UserMessage)
    ]


FOUR_STEPS = [
    ScriptedReply(tool_calls=[call("write", path="app.py", content="one\n")]),
    ScriptedReply(text="wrote"),
    ScriptedReply(tool_calls=[edit("app.py", "one", "two")]),
    ScriptedReply(text="edited"),
    ScriptedReply(tool_calls=[edit("app.py", "two", "three"), call("write", path="notes.md", content="n\n")]),
    ScriptedReply(text="edited again"),
    ScriptedReply(tool_calls=[call("bash", command="printf 'built\\n' > out.txt && rm notes.md")]),
    ScriptedReply(text="ran"),
]


async def four_steps(tmp_path: Path, extra: list[ScriptedReply] | None = None) -> AgentSession:
    session = make_session(tmp_path, FOUR_STEPS + (extra or []))
    for prompt in ("write it", "second edit", "third edit", "build"):
        await session.prompt(prompt)
    return session


SUMMARY = ScriptedReply(text="## Goal\nShip it.")
BEFORE_COMPACTION = [
    ScriptedReply(tool_calls=[call("write", path="app.py", content="one\n")]),
    ScriptedReply(text="wrote " * 300),
    ScriptedReply(tool_calls=[edit("app.py", "one", "two")]),
    ScriptedReply(text="edited " * 300),
]
"""Long enough for `/compact` to cut: the story of a compaction between the second and third edits."""
AFTER_COMPACTION = [ScriptedReply(tool_calls=[edit("app.py", "two", "three")]), ScriptedReply(text="done")]
BEFORE_PROMPTS = ("write it " * 300, "second edit " * 300)
COMPACTION_SETTINGS = Settings(compaction=CompactionSettings(keep_recent_tokens=600))
"""The newest 600 tokens kept: the first turn is older and is summarised (with the default, the whole
short story is kept and `/compact` has nothing to do)."""


async def edits_around_a_compaction(tmp_path: Path) -> tuple[AgentSession, str]:
    """Two edits, a compaction, a third edit; the compaction's id."""
    session = make_session(
        tmp_path, [*BEFORE_COMPACTION, SUMMARY, *AFTER_COMPACTION], settings=COMPACTION_SETTINGS
    )
    for prompt in BEFORE_PROMPTS:
        await session.prompt(prompt)
    outcome = await session.compact()
    assert outcome.entry_id is not None, outcome.error
    await session.prompt("third edit")
    return session, outcome.entry_id


def drop_oldest_object(session: AgentSession, content: bytes) -> None:
    """Let the real size cap drop the store's oldest object, `content` (asserted to be it)."""
    checkpoints = session.checkpoints
    refs = checkpoints.referenced()
    oldest, size = next(iter(refs.items()))
    assert checkpoints.object_path(oldest).read_bytes() == content
    assert checkpoints.enforce_cap(sum(refs.values()) - size) == [oldest]
