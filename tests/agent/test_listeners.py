"""Listeners are called in the order they subscribed; one that unsubscribes another while being called
does not make the loop skip anyone, and unsubscribing twice is harmless."""

from __future__ import annotations

from collections.abc import Callable

from pi_tui.agent.listeners import Listeners


def test_order_removal_during_a_call_and_a_second_removal() -> None:
    listeners: Listeners[Callable[[], None]] = Listeners()
    called: list[str] = []
    removals: dict[str, Callable[[], None]] = {}

    def first() -> None:
        called.append("first")
        removals["first"]()  # leaves while the others are being called

    removals["first"] = listeners.add(first)
    removals["second"] = listeners.add(lambda: called.append("second"))
    for listener in listeners:
        listener()
    assert called == ["first", "second"]

    removals["first"]()
    removals["second"]()
    assert list(listeners) == []
