"""Worker results reach the UI only while someone is there to take them."""

from __future__ import annotations

import threading

from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Static
from textual.worker import Worker

from pi_tui.tui.worker_results import deliver, is_closing
from tests.support.waiting import until


class Pane(Screen[None]):
    def compose(self) -> ComposeResult:
        yield Static("waiting", id="result")

    def show(self, text: str) -> None:
        self.query_one("#result", Static).update(text)


class Host(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.shown: list[tuple[str, int]] = []
        self.release = threading.Event()
        self.started: list[Worker[None]] = []

    async def settle(self, pilot: Pilot[None]) -> None:
        """Until every worker ended (exit_on_error: one that raised fails the app) and its result ran."""
        await until(lambda: all(worker.is_finished for worker in self.started), pilot=pilot)
        await pilot.pause()

    def work_for(self, pane: Pane, text: str, *, group: str = "default") -> None:
        def work() -> None:
            self.release.wait(5)
            deliver(pane, self.record, pane, text)

        self.started.append(
            self.run_worker(work, thread=True, exclusive=True, group=group, exit_on_error=True)
        )

    def record(self, pane: Pane, text: str) -> None:
        pane.show(text)  # raises NoMatches on a dismissed pane
        self.shown.append((text, threading.get_ident()))


async def test_a_result_is_shown_on_the_loop_thread_while_its_screen_is_open() -> None:
    app = Host()
    async with app.run_test() as pilot:
        pane = Pane()
        await app.push_screen(pane)
        app.work_for(pane, "done")
        app.release.set()
        await app.settle(pilot)
        assert app.shown == [("done", threading.get_ident())]
        assert str(pane.query_one("#result", Static).render()) == "done"
        assert not is_closing(pane.query_one("#result"))


async def test_a_result_for_a_dismissed_screen_is_dropped_without_an_error() -> None:
    app = Host()
    async with app.run_test() as pilot:
        pane = Pane()
        await app.push_screen(pane)
        result = pane.query_one("#result")
        app.work_for(pane, "late")
        await app.pop_screen()
        await pilot.pause()
        assert is_closing(pane) and is_closing(result)
        app.release.set()
        await app.settle(pilot)
        assert app.shown == []
    assert app.return_code in (0, None)


async def test_a_superseded_worker_delivers_nothing() -> None:
    app = Host()
    async with app.run_test() as pilot:
        pane = Pane()
        await app.push_screen(pane)
        app.work_for(pane, "old", group="g")
        await pilot.pause()
        app.work_for(pane, "new", group="g")
        app.release.set()
        await app.settle(pilot)
        assert [text for text, _ in app.shown] == ["new"]
