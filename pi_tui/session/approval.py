"""Approval mode (beyond pi): tool calls ask the user before they run (`config.approval_mode` says which).

`ApprovalPolicy.before_tool_call` is the agent's hook. The front end supplies `approver`, an async
question (the TUI opens a dialog; headless answers at once). "always" approves every later call of that
tool for the rest of this session. A denial becomes a tool error the model reads, and the turn goes on.
With approval on and no approver, calls are denied: asking nobody must not mean yes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, Literal, TypeAlias

from pi_tui.agent.hooks import BeforeToolCallContext, BeforeToolCallResult
from pi_tui.ai.abort import AbortSignal
from pi_tui.config.approval_mode import ApprovalMode, ApprovalSetting, asks_first, session_mode
from pi_tui.session.session_events import AnyEvent, ApprovalAnsweredEvent, ApprovalRequestedEvent
from pi_tui.tools.shell_run import ShellStartError, resolve_shell

SUMMARY_CHARS = 160

ApprovalAnswer: TypeAlias = Literal["yes", "no", "always"]
Approver: TypeAlias = Callable[[str, dict[str, Any]], Awaitable[ApprovalAnswer]]
DenialText: TypeAlias = Callable[[str], str]
Emit: TypeAlias = Callable[[AnyEvent], Awaitable[None]]


def user_denied_text(tool_name: str) -> str:
    return f"The user denied this {tool_name} call; it did not run. Ask the user how to proceed."


def headless_denied_text(tool_name: str) -> str:
    return (
        f"This {tool_name} call was denied: approval mode is on and nobody can approve it in a headless "
        f"run (pass --yes to approve every call); it did not run."
    )


def no_approver_text(tool_name: str) -> str:
    return f"This {tool_name} call needs the user's approval, but nobody can be asked here; it did not run."


def describe_call(tool_name: str, args: dict[str, Any]) -> str:
    """One line naming what the call would do: the command, or the path and the size of the change."""
    if tool_name == "bash":
        text = str(args.get("command", ""))
    elif tool_name == "write":
        content = str(args.get("content", ""))
        text = f"{args.get('path', '')} ({len(content.splitlines())} lines)"
    elif tool_name == "edit":
        edits = args.get("edits")
        count = len(edits) if isinstance(edits, list) else 1
        text = f"{args.get('path', '')} ({count} edit{'' if count == 1 else 's'})"
    else:
        text = ", ".join(f"{key}={value!r}" for key, value in args.items())
    text = " ".join(text.split())
    return text if len(text) <= SUMMARY_CHARS else text[: SUMMARY_CHARS - 1] + "…"


def describe_shell(shell_path: str | None, prefix: str | None) -> str:
    """The shell a command will run in and the prefix run before it, as the approval question shows
    them: a project the user trusted may have chosen both (docs/reliability.md, section 13)."""
    try:
        shell = resolve_shell(shell_path)
    except ShellStartError:
        shell = f"{shell_path} (not found: the command will fail)"
    text = f"runs in: {shell}"
    if prefix:
        text += "\nafter the prefix (shellCommandPrefix):\n" + "\n".join(_clip_lines(prefix.splitlines()))
    return text


def _clip_lines(lines: list[str], limit: int = 10) -> list[str]:
    return lines if len(lines) <= limit else [*lines[:limit], f"… {len(lines) - limit} more lines"]


class ApprovalPolicy:
    """Which calls need a yes, who is asked, and what this session already approved for good."""

    def __init__(
        self,
        mode: ApprovalMode = "off",
        approver: Approver | None = None,
        *,
        denial_text: DenialText = user_denied_text,
        emit: Emit | None = None,
    ) -> None:
        self.mode: ApprovalMode = mode
        self.choice: ApprovalSetting | None = None
        """What the user chose for this run (`--approve`, `--approval`, `/approval`): kept over the
        settings when they are read again."""
        self.approver = approver
        self.denial_text = denial_text
        self.emit = emit
        """Hears `approval_requested` / `approval_answered` around each question (a status line says the
        run waits for the user, not for the tool)."""
        self.always: set[str] = set()
        """Tool names answered "always" in this session."""

    @classmethod
    def chosen(
        cls, choice: ApprovalSetting | None, setting: ApprovalSetting, **kwargs: Any
    ) -> ApprovalPolicy:
        policy = cls(session_mode(choice, setting), **kwargs)
        policy.choice = choice
        return policy

    def settings_changed(self, setting: ApprovalSetting) -> None:
        self.mode = session_mode(self.choice, setting)

    def choose(self, mode: ApprovalMode) -> None:
        self.choice = self.mode = mode

    @property
    def enabled(self) -> bool:
        return self.mode != "off"

    def needs_approval(self, tool_name: str) -> bool:
        return asks_first(self.mode, tool_name) and tool_name not in self.always

    async def before_tool_call(
        self, context: BeforeToolCallContext, signal: AbortSignal
    ) -> BeforeToolCallResult | None:
        name = context.tool_call.name
        if not self.needs_approval(name):
            return None
        if self.approver is None:
            return BeforeToolCallResult(block=True, reason=no_approver_text(name))
        args = context.args.model_dump()
        call_id = context.tool_call.id
        if self.emit is not None:
            await self.emit(ApprovalRequestedEvent(call_id, name, describe_call(name, args)))
        answer: ApprovalAnswer | None = None
        try:
            answer = await _ask(self.approver, name, args, signal)
        finally:
            if self.emit is not None:
                await self.emit(ApprovalAnsweredEvent(call_id, answer or "aborted"))
        if answer is None:  # aborted while asking: the loop answers the call as aborted
            return None
        if answer == "always":
            self.always.add(name)
        if answer in ("yes", "always"):
            return None
        return BeforeToolCallResult(block=True, reason=self.denial_text(name))


async def _ask(
    approver: Approver, name: str, args: dict[str, Any], signal: AbortSignal
) -> ApprovalAnswer | None:
    """The approver's answer, or None when the run is aborted first (the question is then cancelled)."""
    question = asyncio.ensure_future(approver(name, args))
    aborted = asyncio.ensure_future(signal.wait())
    try:
        await asyncio.wait({question, aborted}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        aborted.cancel()
        if not question.done():
            question.cancel()
    if not question.done() or question.cancelled():
        return None
    return question.result()
