"""A long transcript opens on its newest page; older pages are mounted on request, oldest last."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_tui.ai.messages import (
    AgentMessage,
    AssistantMessage,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from pi_tui.tui.widgets import conversation
from pi_tui.tui.widgets.conversation import ConversationView
from pi_tui.tui.widgets.message_blocks import AssistantBlock, EarlierMessages, ToolCallBlock, UserBlock

from .chat_fixtures import make_chat_app
from .pilot_helpers import settle

SIZE = (120, 40)
PAGE = 10
TURNS = 13  # 26 shown messages: a page of 10, another of 10, then the oldest 6


def transcript() -> list[AgentMessage]:
    messages: list[AgentMessage] = []
    for turn in range(TURNS):
        messages.append(UserMessage(content=f"question {turn}", timestamp=turn))
        call = ToolCall(id=f"call-{turn}", name="bash", arguments={"command": f"echo {turn}"})
        messages.append(AssistantMessage(content=[TextContent(text=f"answer {turn}"), call]))
        messages.append(
            ToolResultMessage(
                tool_call_id=call.id, tool_name="bash", content=[TextContent(text=f"out {turn}")]
            )
        )
    return messages


def user_texts(view: ConversationView) -> list[str]:
    return [str(block.render()) for block in view.query_children(UserBlock)]


async def test_long_transcript_shows_its_newest_page_and_older_pages_on_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(conversation, "TRANSCRIPT_PAGE", PAGE)
    app, _, _ = make_chat_app(tmp_path, [])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = app.screen.query_one(ConversationView)
        await view.show_transcript(transcript())
        await settle(pilot)

        marker = view.children[0]
        assert isinstance(marker, EarlierMessages)
        assert str(marker.render()).startswith("▲ 16 earlier messages")
        assert user_texts(view) == [f"question {turn}" for turn in range(8, TURNS)]
        assert len(view.query_children(AssistantBlock)) == 5

        marker.focus()
        await pilot.press("enter")
        await settle(pilot)
        assert str(marker.render()).startswith("▲ 6 earlier messages: click or press enter to show 6 more")
        assert user_texts(view) == [f"question {turn}" for turn in range(3, TURNS)]

        await pilot.press("enter")
        await settle(pilot)
        assert not view.query_children(EarlierMessages)
        assert user_texts(view) == [f"question {turn}" for turn in range(TURNS)]
        oldest_tool = view.query_children(ToolCallBlock).first()
        assert oldest_tool.tool_call_id == "call-0"
        assert "out 0" in str(oldest_tool.query_children()[1].render())
        # ctrl+o still targets the newest call, not the last page mounted.
        view.toggle_tool_output()
        assert view.query_children(ToolCallBlock).last().expanded
        assert not oldest_tool.expanded
