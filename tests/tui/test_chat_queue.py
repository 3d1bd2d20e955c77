"""The chat screen's queue as a collaborator, tested alone: a small app with the editor and the list, a
host that records what it was asked, and a session stand-in that holds the queues (issue #29: the queue
was a mixin of the chat screen, reachable only through the whole screen)."""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult

from pi_tui.session.queued_texts import QueueKind
from pi_tui.tui.screens.chat_queue import ChatQueue
from pi_tui.tui.widgets.prompt_area import PromptArea
from pi_tui.tui.widgets.queued_messages import QueuedMessage, QueuedMessages


class FakeSession:
    def __init__(self) -> None:
        self.is_running = True
        self.steering: list[str] = []
        self.follow_ups: list[str] = []

    async def steer(self, text: str) -> None:
        self.steering.append(text)

    async def follow_up(self, text: str) -> None:
        self.follow_ups.append(text)

    async def take_queued(self, kind: QueueKind, text: str) -> bool:
        queue = self.steering if kind == "steering" else self.follow_ups
        if text not in queue:
            return False
        queue.remove(text)
        return True


class Host:
    def __init__(self) -> None:
        self.fake = FakeSession()
        self.started: list[list[str]] = []
        self.toasts: list[str] = []

    @property
    def session(self) -> Any:
        return self.fake

    def run_prompts(self, texts: list[str]) -> None:
        self.started.append(texts)

    def notify(self, message: str, *, markup: bool = True) -> None:
        self.toasts.append(message)


class QueueApp(App[None]):
    def compose(self) -> ComposeResult:
        yield QueuedMessages(id="queued")
        yield PromptArea(id="prompt")


async def test_the_queue_sends_when_idle_queues_while_busy_and_takes_messages_back() -> None:
    host = Host()
    app = QueueApp()
    async with app.run_test() as pilot:
        editor, listed = app.query_one(PromptArea), app.query_one(QueuedMessages)
        queue = ChatQueue(host, editor, listed)

        await queue.send_or_queue("look at the tests", "steering")
        editor.text = "then the docs"
        await queue.follow_up()
        assert (host.fake.steering, host.fake.follow_ups, editor.text) == (
            ["look at the tests"],
            ["then the docs"],
            "",
        )
        assert host.toasts[0] == "Steer queued: “look at the tests”, delivered after the current tool calls."
        queue.show(host.fake.steering, host.fake.follow_ups)
        await pilot.pause()
        assert len(listed.queued) == 2

        await queue.edit(QueuedMessage("follow_up", "then the docs"))
        await pilot.pause()
        assert editor.text == "then the docs" and host.fake.follow_ups == [] and editor.has_focus
        await queue.remove(QueuedMessage("steering", "gone already"))
        assert host.toasts[-1] == "Already delivered: “gone already”"

        host.fake.is_running = False
        await queue.send_or_queue("now", "steering")
        assert host.started == [["now"]] and host.fake.steering == ["look at the tests"]
