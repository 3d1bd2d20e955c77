"""Hooks and callbacks may be plain functions or coroutines; the loop awaits whichever it gets."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable
from typing import TypeVar, cast

T = TypeVar("T")


async def maybe_await(value: Awaitable[T] | T) -> T:
    if inspect.isawaitable(value):
        return cast(T, await value)
    return value
