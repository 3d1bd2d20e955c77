"""Approval modes (beyond pi): which tool calls ask the user first.

`off` asks nothing; `edits` asks before bash, write and edit (what `approval: true` and `--approve`
always meant); `all` asks before every call but `read` (grep, find and ls too: they list what
the user may not want read). The
modes are ordered by how much they ask, so a project's `.pi-tui/settings.json` can only raise the
user's mode (`stricter`): a file anyone can push must never switch questions off.

The user's choice for one project is kept in the user's own settings file, under `approvalByProject`
keyed by the project's resolved path, and only when the user asks for it (`/approval MODE --keep`).
"""

from __future__ import annotations

from typing import Literal, TypeAlias, get_args

ApprovalMode: TypeAlias = Literal["off", "edits", "all"]
ApprovalSetting: TypeAlias = bool | ApprovalMode
"""What the `approval` key may hold on disk: pi-tui's earlier boolean (true is `edits`) or a mode."""

APPROVAL_MODES: tuple[ApprovalMode, ...] = get_args(ApprovalMode)
"""In the order the key and `/approval` without an argument cycle through, least asking first."""

EDIT_TOOLS = frozenset({"bash", "write", "edit"})
"""The tools that change files or run commands: `edits` asks before these."""
UNASKED_TOOLS = frozenset({"read"})
"""What even `all` lets run unasked: reading a file is what every turn starts with."""

_BY_NAME: dict[str, ApprovalMode] = {mode: mode for mode in APPROVAL_MODES}
APPROVAL_BY_PROJECT_KEY = "approvalByProject"

DESCRIPTIONS: dict[ApprovalMode, str] = {
    "off": "nothing asks first",
    "edits": "bash, write and edit ask first",
    "all": "every tool but read asks first",
}


def approval_mode(value: ApprovalSetting | None) -> ApprovalMode:
    """The mode a setting or flag means: true is `edits` (pi-tui's earlier meaning), false or unset `off`."""
    if value is True:
        return "edits"
    if value is False or value is None:
        return "off"
    return value


def session_mode(choice: ApprovalSetting | None, setting: ApprovalSetting) -> ApprovalMode:
    """The mode a session runs in: the settings' (already the stricter of the user's and the
    project's), unless the user chose one for this run: a mode (`--approval MODE`, `/approval MODE`)
    applies as chosen, `--approve` (true) asks at least for edits."""
    if choice is None or choice is False:
        return approval_mode(setting)
    if choice is True:
        return stricter("edits", approval_mode(setting))
    return choice


def stricter(first: ApprovalMode, second: ApprovalMode) -> ApprovalMode:
    """The mode that asks more of the two."""
    return max(first, second, key=APPROVAL_MODES.index)


def next_mode(mode: ApprovalMode) -> ApprovalMode:
    """The mode after `mode` in the cycle (after `all` comes `off` again)."""
    return APPROVAL_MODES[(APPROVAL_MODES.index(mode) + 1) % len(APPROVAL_MODES)]


def asks_first(mode: ApprovalMode, tool_name: str) -> bool:
    """Whether a call of `tool_name` waits for the user's yes in `mode`."""
    if mode == "edits":
        return tool_name in EDIT_TOOLS
    if mode == "all":
        return tool_name not in UNASKED_TOOLS
    return False


def parse_approval_command(argument: str) -> tuple[ApprovalMode | None, bool] | str:
    """`/approval`'s argument as (the mode asked for or None to cycle, whether to keep it), or the
    reason it is not one."""
    words = argument.split()
    keep = "--keep" in words
    rest = [word for word in words if word != "--keep"]
    if not rest:
        return None, keep
    named = _BY_NAME.get(rest[0]) if len(rest) == 1 else None
    if named is not None:
        return named, keep
    return f"usage: /approval [{'|'.join(APPROVAL_MODES)}] [--keep]"
