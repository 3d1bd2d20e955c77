"""The block of a user shell command (`!cmd`, `!!cmd`), one look whether it runs now or comes back with
a transcript (a branch switch, a resumed session): a tool-call block marked `-user-shell`, whose status
says how it ended and whether its output reaches the model."""

from __future__ import annotations

from pi_tui.ai.messages import BashExecutionMessage
from pi_tui.tui.widgets.tool_call_block import ToolCallBlock

USER_SHELL_CLASS = "-user-shell"
NOT_SENT = "not sent to the model"
SENT_LATER = "sent with your next message"


def user_shell_block(command: str, exclude_from_context: bool) -> ToolCallBlock:
    prefix = "!!" if exclude_from_context else "!"
    return ToolCallBlock("user-shell", prefix, {"command": command}, classes=USER_SHELL_CLASS)


def show_user_shell_result(block: ToolCallBlock, message: BashExecutionMessage, *, pending: bool) -> None:
    """The finished command: exit status, the not-sent mark of `!!`, its output and where the rest is."""
    status = "cancelled" if message.cancelled else f"exit {message.exit_code}"
    if message.exclude_from_context:
        status += f", {NOT_SENT}"
    elif pending:
        status += f", {SENT_LATER}"
    notice = f"\n\n[Output truncated. Full output: {message.full_output_path}]" if message.truncated else ""
    failed = message.cancelled or (message.exit_code or 0) != 0
    block.show_output(message.output + notice, status=status, is_error=failed)


def user_shell_transcript_block(message: BashExecutionMessage) -> ToolCallBlock:
    """A recorded command as the live run showed it once it ended."""
    block = user_shell_block(message.command, bool(message.exclude_from_context))
    show_user_shell_result(block, message, pending=False)
    return block
