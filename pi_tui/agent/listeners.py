"""Subscribers to a stream of events, called in the order they subscribed."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

ListenerT = TypeVar("ListenerT")


class Listeners(Generic[ListenerT]):
    def __init__(self) -> None:
        self._listeners: list[ListenerT] = []

    def add(self, listener: ListenerT) -> Callable[[], None]:
        """Subscribe `listener`; returns the function that unsubscribes it (a second call does nothing)."""
        self._listeners.append(listener)

        def remove() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return remove

    def __iter__(self) -> Iterator[ListenerT]:
        # A copy: a listener may subscribe or unsubscribe while the others are being called.
        return iter(list(self._listeners))
