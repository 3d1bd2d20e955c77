"""The questions the session asks the user while it works, each answered in a dialog.

The session awaits an answer (a coroutine it was handed); the dialog is pushed on the app and its answer
resolves the wait. A question nobody answers is answered for them: the compaction countdown goes ahead,
an approval closed by an aborted run is a no.
"""

from __future__ import annotations

import asyncio
from typing import Any

from textual.app import App

from pi_tui.session.approval import ApprovalAnswer
from pi_tui.tui.screens.approval_dialog import ApprovalDialog
from pi_tui.tui.screens.confirm_compaction import ConfirmCompactionDialog


async def confirm_compaction(app: App[Any], reason: str, tokens: int | None, *, seconds: float) -> bool:
    """Asked before an automatic compaction when `compaction.confirm` is set: True goes ahead."""
    answer: asyncio.Future[bool] = asyncio.get_running_loop().create_future()

    def answered(compact: bool | None) -> None:
        if not answer.done():
            answer.set_result(compact is not False)

    app.push_screen(ConfirmCompactionDialog(reason, tokens, seconds=seconds), callback=answered)
    return await answer


async def approve_tool_call(
    app: App[Any], tool_name: str, args: dict[str, Any], *, shell: str | None = None
) -> ApprovalAnswer:
    """Approval mode asks before bash, write and edit run; an aborted run closes the question. `shell`
    (for bash) names the shell and prefix the command runs with."""
    answer: asyncio.Future[ApprovalAnswer] = asyncio.get_running_loop().create_future()

    def answered(choice: ApprovalAnswer | None) -> None:
        if not answer.done():
            answer.set_result(choice or "no")

    dialog = ApprovalDialog(tool_name, args, shell=shell)

    app.push_screen(dialog, callback=answered)
    try:
        return await answer
    except asyncio.CancelledError:
        if app.screen is dialog:
            dialog.dismiss("no")
        raise
