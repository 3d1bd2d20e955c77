"""The built-in tool set for one working directory (pi's seven).

Tools know nothing of sessions: the caller gives the cwd, the output limits (settings
`tools.maxLines` / `tools.maxBytes`), the spill folder and the shell.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pi_tui.agent.tool import AgentTool
from pi_tui.tools.bash import BashTool
from pi_tui.tools.edit import EditTool
from pi_tui.tools.find import FindTool
from pi_tui.tools.grep import GrepTool
from pi_tui.tools.ls import LsTool
from pi_tui.tools.read import ReadTool
from pi_tui.tools.truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES
from pi_tui.tools.write import WriteTool

DEFAULT_ACTIVE_TOOLS: tuple[str, ...] = ("read", "bash", "edit", "write")
ALL_TOOL_NAMES: tuple[str, ...] = ("read", "bash", "edit", "write", "grep", "find", "ls")


@dataclass(frozen=True)
class ToolLimits:
    max_lines: int = DEFAULT_MAX_LINES
    max_bytes: int = DEFAULT_MAX_BYTES


def build_tools(
    cwd: str,
    *,
    limits: ToolLimits | None = None,
    spill_dir: Path | None = None,
    shell_path: str | None = None,
    command_prefix: str | None = None,
) -> dict[str, AgentTool[Any]]:
    """All seven built-in tools by name, in pi's order."""
    limits = limits or ToolLimits()
    tools: list[AgentTool[Any]] = [
        ReadTool(cwd, max_lines=limits.max_lines, max_bytes=limits.max_bytes),
        BashTool(
            cwd,
            max_lines=limits.max_lines,
            max_bytes=limits.max_bytes,
            spill_dir=spill_dir,
            shell_path=shell_path,
            command_prefix=command_prefix,
        ),
        EditTool(cwd),
        WriteTool(cwd),
        GrepTool(cwd, max_bytes=limits.max_bytes),
        FindTool(cwd, max_bytes=limits.max_bytes),
        LsTool(cwd, max_bytes=limits.max_bytes),
    ]
    return {tool.name: tool for tool in tools}


def default_tool_names(setting: Sequence[str] | None) -> list[str]:
    """pi 1.6's `defaultTools`: plain names form the selection (none: read, bash, edit, write), then
    `+name` adds a tool and `-name` removes one, in order."""
    entries = list(setting) if setting is not None else []
    plain = [entry for entry in entries if entry[:1] not in ("+", "-")]
    names = plain if setting is not None and (plain or not entries) else list(DEFAULT_ACTIVE_TOOLS)
    for entry in entries:
        name = entry[1:]
        if entry.startswith("+") and name and name not in names:
            names.append(name)
        elif entry.startswith("-") and name in names:
            names.remove(name)
    return names


def select_tools(
    tools: dict[str, AgentTool[Any]], names: Iterable[str] | None = None
) -> list[AgentTool[Any]]:
    """The active tools in the order asked for (default read, bash, edit, write); unknown names skipped."""
    wanted = DEFAULT_ACTIVE_TOOLS if names is None else tuple(names)
    return [tools[name] for name in wanted if name in tools]
