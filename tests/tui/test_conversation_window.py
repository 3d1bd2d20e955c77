"""A long transcript opens on its newest page, the first frame only on what fills the screen; older pages
are mounted on request, oldest last."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.app import App, ComposeResult

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
from pi_tui.tui.widgets.message_blocks import AssistantBlock, EarlierMessages, UserBlock
from pi_tui.tui.widgets.parked_markdown import markdown_source
from pi_tui.tui.widgets.tool_call_block import ToolCallBlock
from tests.support.waiting import until

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
        assert view.has_focus  # the marker had it
        assert user_texts(view) == [f"question {turn}" for turn in range(TURNS)]
        oldest_tool = view.query_children(ToolCallBlock).first()
        assert oldest_tool.tool_call_id == "call-0"
        assert "out 0" in str(oldest_tool.query_children()[1].render())
        # ctrl+o still targets the newest call, not the last page mounted.
        view.toggle_tool_output()
        assert view.query_children(ToolCallBlock).last().expanded
        assert not oldest_tool.expanded


class ConversationHost(App[None]):
    def compose(self) -> ComposeResult:
        yield ConversationView()


def long_replies(turns: int, tag: str = "answer") -> list[AgentMessage]:
    """Replies of 30 one-line paragraphs: each is 60 rows drawn, estimated 59."""
    messages: list[AgentMessage] = []
    for turn in range(turns):
        messages.append(UserMessage(content=f"question {turn}", timestamp=turn))
        text = "\n\n".join(f"{tag} {turn}, paragraph {n}" for n in range(30))
        messages.append(AssistantMessage(content=[TextContent(text=text)]))
    return messages


def shown_replies(view: ConversationView) -> list[str]:
    return [markdown_source(block).split(",")[0] for block in view.query_children(AssistantBlock)]


def marker_count(view: ConversationView) -> int:
    marker = view.query_children(EarlierMessages).first()
    return int(str(marker.render()).split()[1])


async def test_the_first_frame_waits_only_for_the_newest_screens_and_the_page_follows() -> None:
    app = ConversationHost()
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ConversationView)
        await pilot.pause()
        await view.show_transcript(long_replies(10))
        # 1.5 screens of 40 rows: the newest reply (59 estimated rows) and its question.
        assert shown_replies(view) == ["answer 9"]
        assert marker_count(view) == 18
        await until(lambda: marker_count(view) < 18, pilot=pilot)
        assert shown_replies(view) == [f"answer {turn}" for turn in range(4, 10)]
        assert marker_count(view) == 8
        assert view.is_vertical_scroll_end  # mounted out of sight: the view did not move
        assert user_texts(view)[-1] == "question 9"


async def test_no_top_up_once_the_user_scrolled_away_or_another_transcript_replaced_it() -> None:
    app = ConversationHost()
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(ConversationView)
        await pilot.pause()
        await view.show_transcript(long_replies(10))
        view.scroll_home(animate=False, immediate=True)
        await pilot.pause(0.2)  # a check for absence: the top-up, due after the next frame, would have run
        assert shown_replies(view) == ["answer 9"] and marker_count(view) == 18

        await view.show_transcript(long_replies(4, tag="first"))  # would top up 6 messages
        await view.show_transcript(long_replies(10, tag="second"))  # before the first one's frame
        await until(lambda: marker_count(view) < 18, pilot=pilot)
        await pilot.pause(0.2)  # a check for absence: the first transcript's top-up would have run
        assert shown_replies(view) == [f"second {turn}" for turn in range(4, 10)]
        assert marker_count(view) == 8
