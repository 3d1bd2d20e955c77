"""What the chat says as a session opens, before anything is typed into it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.screen import Screen

from pi_tui.session.open_checks import continue_refusal, folder_warnings, missing_tool_note
from pi_tui.session_file.diagnostics import diagnostic_lines
from pi_tui.tui.widgets.conversation import ConversationView
from pi_tui.tui.widgets.message_blocks import NoticeBlock

if TYPE_CHECKING:
    from pi_tui.session.agent_session import AgentSession


async def show_opening_notices(screen: Screen[Any], session: AgentSession) -> None:
    """That the session cannot be continued (said before a prompt is lost to it), else what the loader
    skipped or doubted in its file (the start page lists it too, but a chat may open straight from the
    command line); and which of its folders others may write in."""
    refusal = continue_refusal(session.store)
    lines = diagnostic_lines(session.store.diagnostics)
    conversation = screen.query_one(ConversationView)
    if refusal is not None:
        await conversation.mount(NoticeBlock(refusal, kind="warning"))
    elif lines:
        text = "\n".join(["This session file has problems:", *lines])
        await conversation.mount(NoticeBlock(text, kind="warning"))
    note = missing_tool_note(session.missing_tools)
    if note is not None:
        await conversation.mount(NoticeBlock(note, kind="warning"))
    for warning in folder_warnings(session.store):
        screen.notify(warning, severity="warning", timeout=10, markup=False)
