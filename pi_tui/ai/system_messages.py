"""pi 1.6's system messages: the prompt sections and tool declarations in force, replayed in order.

A `system` message is a checkpoint (docs/pi-compatibility.md): `sections` patches the prompt by name
(a null value removes a section), `toolsRemoved` then `toolsAdded` change the tool set (pi's
`getCurrentTools`: a removal names a tool, an addition is a declaration `{name, description,
parameters}`). pi-tui keeps its own prompt text; it reads the tool set from these messages and writes
them where pi 1.6 would. A malformed section or declaration is skipped and reported by where it is.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pi_tui.ai.messages import AgentMessage, SystemMessage


@dataclass
class PromptCheckpoint:
    """The prompt sections and tool declarations after replaying system messages; `seen`: any at all."""

    sections: dict[str, str] = field(default_factory=dict)
    tools: dict[str, dict[str, Any]] = field(default_factory=dict)
    seen: bool = False

    @property
    def tool_names(self) -> list[str]:
        return list(self.tools)


def _key(message: SystemMessage, name: str) -> Any:
    return (message.model_extra or {}).get(name)


def _tool_name(tool: Any) -> str | None:
    if isinstance(tool, str) and tool:
        return tool
    if isinstance(tool, dict) and isinstance(tool.get("name"), str) and tool["name"]:
        return str(tool["name"])
    return None


def system_message_problems(message: SystemMessage) -> list[str]:
    """Where `message` is malformed (each problem skips only its part), in file order."""
    problems: list[str] = []
    sections = _key(message, "sections")
    if sections is not None and not isinstance(sections, dict):
        problems.append("system message: sections is not an object, ignored")
    elif isinstance(sections, dict):
        for name, value in sections.items():
            if value is not None and not isinstance(value, str):
                problems.append(f"system message: section {name!r} is not text, ignored")
    for key in ("toolsRemoved", "toolsAdded"):
        tools = _key(message, key)
        if tools is None:
            continue
        if not isinstance(tools, list):
            problems.append(f"system message: {key} is not a list, ignored")
            continue
        for index, tool in enumerate(tools):
            name = _tool_name(tool)
            if name is None or (key == "toolsAdded" and not isinstance(tool, dict)):
                problems.append(f"system message: {key}[{index}] is not a tool declaration, ignored")
    return problems


def replay_system_messages(
    messages: Iterable[AgentMessage], start: PromptCheckpoint | None = None
) -> PromptCheckpoint:
    """The sections and tools after every system message of `messages`, in order (pi's
    `getCurrentSystemMessage` / `getCurrentTools`); malformed parts are skipped."""
    checkpoint = PromptCheckpoint(
        dict(start.sections) if start else {}, dict(start.tools) if start else {}, bool(start and start.seen)
    )
    for message in messages:
        if not isinstance(message, SystemMessage):
            continue
        checkpoint.seen = True
        sections = _key(message, "sections")
        if isinstance(sections, dict):
            for name, value in sections.items():
                if value is None:
                    checkpoint.sections.pop(name, None)
                elif isinstance(value, str):
                    checkpoint.sections[name] = value
        removed = _key(message, "toolsRemoved")
        for tool in removed if isinstance(removed, list) else []:
            name = _tool_name(tool)
            if name is not None:
                checkpoint.tools.pop(name, None)
        added = _key(message, "toolsAdded")
        for tool in added if isinstance(added, list) else []:
            name = _tool_name(tool)
            if name is not None and isinstance(tool, dict):
                checkpoint.tools[name] = tool
    return checkpoint


def section_changes(current: Mapping[str, str], wanted: Mapping[str, str]) -> dict[str, str | None]:
    """pi's `diffSystemPromptSections`: the sections to write so that `current` becomes `wanted`
    (changed or new ones with their text, dropped ones as null), in `wanted`'s order."""
    changes: dict[str, str | None] = {
        name: text for name, text in wanted.items() if current.get(name) != text
    }
    for name in current:
        if name not in wanted:
            changes[name] = None
    return changes


def tool_changes(
    current: Mapping[str, dict[str, Any]], wanted: Sequence[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
    """(declarations to add, tools to remove) so that `current` becomes `wanted` (pi's
    `getToolStateChanges`: a changed declaration is removed, then added again)."""
    wanted_by_name = {str(tool["name"]): tool for tool in wanted}
    added = [tool for tool in wanted if current.get(str(tool["name"])) != tool]
    removed = [{"name": name} for name, tool in current.items() if wanted_by_name.get(name) != tool]
    return added, removed


def system_message(
    sections: Mapping[str, str | None],
    timestamp: int,
    tools_added: Sequence[dict[str, Any]] = (),
    tools_removed: Sequence[dict[str, str]] = (),
) -> SystemMessage:
    """A system message as pi 1.6 writes it in a message entry: `role, content, sections, timestamp`,
    then `toolsRemoved` and `toolsAdded` when there are any."""
    extra: dict[str, Any] = {"sections": dict(sections), "timestamp": timestamp}
    if tools_removed:
        extra["toolsRemoved"] = list(tools_removed)
    if tools_added:
        extra["toolsAdded"] = list(tools_added)
    return SystemMessage(content="", **extra)


def declaration_changes(
    checkpoint: PromptCheckpoint,
    sections: Mapping[str, str],
    tools: Sequence[dict[str, Any]],
    timestamp: int,
) -> list[SystemMessage]:
    """The system messages that bring `checkpoint` to the prompt `sections` and tool declarations
    `tools` (pi 1.6's `_preparePromptAndToolLoadout` and the loop's tool declaration, written as one
    message before the request); none when nothing changed. A transcript without any system message
    gets the whole prompt and tool set (docs/pi-compatibility.md).

    Replaying keeps a section where it first appeared and puts new ones last; when a section is new
    in the middle of the prompt (a context file after `/reload`), the sections from there on are
    first removed, then written again in order, so that the checkpoint still reads as the prompt."""
    added, removed = tool_changes(checkpoint.tools, tools)
    wanted = list(sections)
    kept = [name for name in checkpoint.sections if name in sections]
    settled = 0
    while settled < len(kept) and kept[settled] == wanted[settled]:
        settled += 1
    moved = kept[settled:]
    if moved:
        cleared: dict[str, str | None] = {name: None for name in checkpoint.sections if name not in wanted}
        cleared.update({name: None for name in moved})
        head = wanted[:settled]
        rewritten: dict[str, str | None] = {name: sections[name] for name in wanted[settled:]}
        rewritten.update(
            section_changes(
                {name: checkpoint.sections[name] for name in head}, {name: sections[name] for name in head}
            )
        )
        return [system_message(cleared, timestamp), system_message(rewritten, timestamp, added, removed)]
    changed_sections = section_changes(checkpoint.sections, sections)
    if checkpoint.seen and not changed_sections and not added and not removed:
        return []
    return [system_message(changed_sections, timestamp, added, removed)]


def tool_declaration(name: str, description: str, parameters: Mapping[str, Any]) -> dict[str, Any]:
    """A tool as a system message declares it (pi's `toToolDeclaration`: name, description,
    parameters)."""
    return {"name": name, "description": description, "parameters": dict(parameters)}


def checkpoint_message(checkpoint: PromptCheckpoint, timestamp: int) -> SystemMessage:
    """The whole checkpoint as one message, as a compaction's `systemMessage` holds it: `role,
    content, sections, toolsAdded, timestamp`."""
    extra: dict[str, Any] = {"sections": dict(checkpoint.sections)}
    if checkpoint.tools:
        extra["toolsAdded"] = list(checkpoint.tools.values())
    extra["timestamp"] = timestamp
    return SystemMessage(content="", **extra)
