"""The test suite's waiting helpers raise, with a description, when their condition never comes."""

from __future__ import annotations

import pytest

from tests.support.waiting import WaitTimeout, until, until_sync


async def test_until_returns_once_the_condition_holds() -> None:
    polls: list[int] = []

    def third_poll() -> bool:
        polls.append(1)
        return len(polls) >= 3

    await until(third_poll, timeout=5, interval=0)
    assert len(polls) == 3


async def test_until_raises_naming_the_condition() -> None:
    with pytest.raises(WaitTimeout, match=r"waited 0\.05 s for: .*never_true"):
        await until(lambda: "never_true" == "", timeout=0.05)


def test_until_sync_raises_with_the_given_description() -> None:
    with pytest.raises(WaitTimeout, match="the server to start"):
        until_sync(lambda: False, timeout=0.05, what="the server to start")
