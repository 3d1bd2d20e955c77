"""`/approval` and the key that cycles the approval mode (beyond pi; Claude Code's shift+tab, Codex's
/approvals).

Switching changes this session's mode at once and for this run only. With `--keep` the mode is also
written to the user's own settings file for this project (`approvalByProject`), never to the
project's `.pi-tui/settings.json`: that file comes with the repository and may only raise the mode.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pi_tui.config.approval_mode import (
    APPROVAL_BY_PROJECT_KEY,
    DESCRIPTIONS,
    ApprovalMode,
    next_mode,
    parse_approval_command,
)
from pi_tui.config.project_trust import project_key
from pi_tui.config.settings_files import save_global_settings
from pi_tui.session.approval import ApprovalPolicy


@dataclass(frozen=True)
class ApprovalSwitched:
    mode: ApprovalMode
    kept: bool
    problems: tuple[str, ...] = ()
    """Why `--keep` could not write the user's settings (the mode still applies to this run)."""

    def message(self) -> str:
        text = f"Approval {self.mode}: {DESCRIPTIONS[self.mode]}"
        if self.problems:
            return f"{text} (this run only; not kept: {'; '.join(self.problems)})"
        if self.kept:
            return f"{text} (kept for this project in your settings)"
        return f"{text} (this run only; /approval {self.mode} --keep keeps it for this project)"


def switch_approval(
    policy: ApprovalPolicy, argument: str, cwd: Path, settings_file: Path | None = None
) -> ApprovalSwitched | str:
    """Apply `/approval ARGUMENT`: a mode sets it, none cycles to the next (with only `--keep`, the
    current mode is kept as it is); the reply to show, or the usage when the argument is not one."""
    parsed = parse_approval_command(argument)
    if isinstance(parsed, str):
        return parsed
    mode, keep = parsed
    if mode is None:
        mode = policy.mode if keep else next_mode(policy.mode)
    policy.choose(mode)
    if not keep:
        return ApprovalSwitched(mode, kept=False)
    problems = save_global_settings({APPROVAL_BY_PROJECT_KEY: {project_key(cwd): mode}}, settings_file)
    return ApprovalSwitched(mode, kept=not problems, problems=tuple(str(problem) for problem in problems))
