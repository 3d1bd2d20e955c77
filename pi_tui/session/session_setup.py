"""What an `AgentSession` is built from: its tools, its thinking level and the date in its prompt."""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi_tui.agent.tool import AgentTool
from pi_tui.ai.messages import (
    THINKING_LEVELS,
    AgentMessage,
    AssistantMessage,
    CustomMessage,
    SystemMessage,
    ThinkingLevel,
    ToolResultMessage,
    UserMessage,
)
from pi_tui.ai.provider_call import now_ms
from pi_tui.ai.system_messages import declaration_changes, replay_system_messages, tool_declaration
from pi_tui.config.model_config import ModelConfig
from pi_tui.config.paths import pi_tui_home
from pi_tui.context.resources import Resources
from pi_tui.context.system_prompt import SystemPrompt
from pi_tui.session.user_bash import UserBashOptions
from pi_tui.session_file.ids import is_session_id, iso_to_ms, uuid7
from pi_tui.session_file.store import SessionStore
from pi_tui.tools.registry import ToolLimits, build_tools
from pi_tui.tools.spill_file import default_spill_dir

if TYPE_CHECKING:
    from pi_tui.tools.file_checkpoints.store import CheckpointStore

SPILL_FOLDER_NAME = "spill"
EXPORT_FOLDER_NAME = "exports"
DEFAULT_THINKING_LEVEL: ThinkingLevel = "medium"
# `xhigh` is sent as `high` by the provider, so cycling stops at `high` as pi does for such models.
CYCLED_THINKING_LEVELS: tuple[ThinkingLevel, ...] = ("off", "minimal", "low", "medium", "high")


def _unavailable(model: ModelConfig) -> set[str]:
    """Levels the model's `thinkingLevelMap` maps to null: it has no such level (pi's rule)."""
    return {level for level, word in (model.thinking_level_map or {}).items() if word is None}


def clamp_thinking(level: ThinkingLevel, model: ModelConfig | None) -> ThinkingLevel:
    """Models without reasoning only take `off`; `xhigh` is sent as `high` by the provider. A level the
    model's `thinkingLevelMap` maps to null becomes the next one up it has, else the next one down, as pi
    clamps it (pi's catalog: some Claude models cannot think at `minimal`, or not at all be `off`)."""
    if model is None or not model.reasoning:
        return "off"
    wanted = level if level in THINKING_LEVELS else DEFAULT_THINKING_LEVEL
    missing = _unavailable(model)
    if wanted not in missing:
        return wanted
    at = THINKING_LEVELS.index(wanted)
    for candidate in (*THINKING_LEVELS[at:], *reversed(THINKING_LEVELS[:at])):
        if candidate not in missing:
            return candidate
    return wanted


def available_thinking_levels(model: ModelConfig | None) -> tuple[ThinkingLevel, ...]:
    if model is None or not model.reasoning:
        return ("off",)
    missing = _unavailable(model)
    return tuple(level for level in CYCLED_THINKING_LEVELS if level not in missing) or CYCLED_THINKING_LEVELS


def spill_dir_for(store: SessionStore) -> Path | None:
    """Spilled tool output lives beside the session file, so it survives and leaves with the session.
    None (nothing is spilled) when the header's id is not a session id: it would pick the folder."""
    if store.path is None or not is_session_id(store.session_id):
        return None
    return store.path.parent / SPILL_FOLDER_NAME / store.session_id


def export_dir_for(store: SessionStore) -> Path:
    """Where `/export` without a path writes: beside the session file (or in pi-tui's home for a session
    kept in memory), never into the project the session works on."""
    return (store.path.parent if store.path is not None else pi_tui_home()) / EXPORT_FOLDER_NAME


def checkpoints_for(store: SessionStore) -> CheckpointStore:
    """File checkpoints live beside the session file like its spill folder (a session kept in memory
    uses a private temp folder), shared by content with every session of that folder."""
    from pi_tui.tools.file_checkpoints.store import CHECKPOINTS_FOLDER_NAME, CheckpointStore

    if store.path is None or not is_session_id(store.session_id):
        # A header id that is not a session id names no folder (`../../x`): such a session's
        # checkpoints, if any were ever taken, stay under a fresh id in the private temp folder.
        session_id = store.session_id if is_session_id(store.session_id) else uuid7()
        return CheckpointStore(default_spill_dir() / CHECKPOINTS_FOLDER_NAME, session_id)
    return CheckpointStore.beside(store.path, store.session_id)


def session_tools(resources: Resources, store: SessionStore) -> dict[str, AgentTool[Any]]:
    """All built-in tools for the session's cwd, with the output limits and shell of its settings;
    write, edit and bash keep file checkpoints (docs/rewind.md)."""
    from pi_tui.tools.file_checkpoints.capture import FileCapture, checkpointed

    settings = resources.settings
    capture = FileCapture(
        checkpoints_for(store), str(resources.cwd), cap_bytes=settings.checkpoints.max_store_mb * 1024 * 1024
    )
    tools = build_tools(
        str(resources.cwd),
        limits=ToolLimits(max_lines=settings.tools.max_lines, max_bytes=settings.tools.max_bytes),
        spill_dir=spill_dir_for(store),
        shell_path=settings.shell_path,
        command_prefix=settings.shell_command_prefix,
    )
    return {name: checkpointed(tool, capture) for name, tool in tools.items()}


def user_bash_options(resources: Resources, store: SessionStore) -> UserBashOptions:
    """`!cmd` runs like the bash tool: same cwd, shell, output limits and spill folder."""
    settings = resources.settings
    return UserBashOptions(
        cwd=str(resources.cwd),
        spill_dir=spill_dir_for(store),
        max_lines=settings.tools.max_lines,
        max_bytes=settings.tools.max_bytes,
        shell_path=settings.shell_path,
        command_prefix=settings.shell_command_prefix,
    )


def session_date(store: SessionStore) -> datetime.date:
    """The session's start date: the only date in the prompt, so the prefix stays stable for days."""
    started = iso_to_ms(store.header.timestamp)
    if started is None:
        return datetime.date.today()
    return datetime.datetime.fromtimestamp(started / 1000).date()


def has_thinking_entry(store: SessionStore) -> bool:
    return any(entry.type == "thinking_level_change" for entry in store.get_branch())


def record_model_and_thinking(
    store: SessionStore, model: ModelConfig | None, thinking: ThinkingLevel, *, model_too: bool = True
) -> None:
    """A new session starts with `model_change` + `thinking_level_change` (as pi's); a resumed one gets
    a `model_change` when the model differs from the branch's (unless `model_too` is False: the caller
    records it later), and a thinking entry if it has none."""
    if store.read_only_reason is not None:
        return
    context = store.build_context()
    recorded = context.model
    if (
        model_too
        and model is not None
        and (recorded is None or not model.same_model(recorded.provider, recorded.model_id))
    ):
        store.append_model_change(model.provider, model.id)
    if not has_thinking_entry(store):
        store.append_thinking_level_change(thinking)


SECTION_PREFIX = "pi-tui."


def prompt_declaration(
    messages: Sequence[AgentMessage], prompt: SystemPrompt, tools: Sequence[AgentTool[Any]]
) -> list[SystemMessage]:
    """The system messages to write before a request, as pi 1.6 does: the whole prompt (by segment)
    and tool set when the context declares none yet, then only what changed since the context's
    system messages (`/reload`, a tool change); none when nothing did. pi-tui's sections are its
    prompt segments, so they concatenate to exactly the prompt it sends; their names carry the
    `pi-tui.` prefix so that none takes the place of one of pi's when pi 1.6 patches them (pi renders
    sections in the order they first appeared)."""
    sections = {f"{SECTION_PREFIX}{segment.name}": segment.text for segment in prompt.segments}
    declarations = [
        tool_declaration(spec.name, spec.description, spec.parameters) for spec in (t.spec() for t in tools)
    ]
    return declaration_changes(replay_system_messages(messages), sections, declarations, now_ms())


def persist_message(store: SessionStore, message: AgentMessage) -> None:
    """Write a message the agent finished: a custom message as its own entry kind, a user message, a reply
    or a tool result as a message entry. Raises `SessionWriteError` (the file unchanged) when it fails."""
    if isinstance(message, CustomMessage):
        store.append_custom_message(message.custom_type, message.content, message.display, message.details)
    elif isinstance(message, UserMessage | AssistantMessage | ToolResultMessage | SystemMessage):
        store.append_message(message)
