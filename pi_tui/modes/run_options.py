"""The options a run is started with, as parsed from the command line."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from pi_tui.ai.messages import ThinkingLevel
from pi_tui.config.approval_mode import ApprovalSetting
from pi_tui.session.store_opening import SessionChoice

OutputMode = Literal["text", "json"]


@dataclass(frozen=True)
class RunOptions:
    messages: list[str] = field(default_factory=list)
    print_mode: bool = False
    output: OutputMode = "text"
    model: str | None = None
    base_url: str | None = None
    api_key: str | None = None
    thinking: ThinkingLevel | None = None
    tools: list[str] | None = None
    session: SessionChoice = field(default_factory=SessionChoice)
    resume: bool = False
    """`-r`: pick one of this directory's sessions first."""
    cwd_override: bool = False
    """`--here`: continue a session whose working directory is gone in the current one."""
    approve: ApprovalSetting = False
    """`--approve` (true: at least edits ask) or `--approval MODE` (that mode), as the `approval` setting."""
    yes: bool = False
    """`--yes`: headless, approve every call approval mode would ask about (else they are denied)."""
    trust_project: bool = False
    """`--trust-project`: trust the session's project settings file as it is now (docs/reliability.md)."""
