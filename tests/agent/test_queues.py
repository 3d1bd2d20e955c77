"""Steering / follow-up queue modes."""

from __future__ import annotations

from pi_tui.agent.queues import PendingMessageQueue

from .fakes import user


def test_one_at_a_time_hands_out_the_oldest_message_per_drain() -> None:
    queue = PendingMessageQueue()
    first, second = user("1"), user("2")
    queue.enqueue(first)
    queue.enqueue(second)
    assert queue.drain() == [first]
    assert queue.drain() == [second]
    assert queue.drain() == []


def test_all_mode_hands_out_everything() -> None:
    queue = PendingMessageQueue("all")
    queue.enqueue(user("1"))
    queue.enqueue(user("2"))
    assert len(queue.drain()) == 2 and len(queue) == 0


def test_clear_returns_what_was_queued() -> None:
    queue = PendingMessageQueue()
    message = user("keep me")
    queue.enqueue(message)
    assert queue.messages == (message,)
    assert queue.clear() == [message] and queue.drain() == []
