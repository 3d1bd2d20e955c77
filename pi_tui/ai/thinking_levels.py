"""The reasoning levels a model can be asked for, apart from the message models so that the command line
can offer them without importing pydantic (`pi-tui --version` and `--help` stay light)."""

from __future__ import annotations

from typing import Literal, TypeAlias

ThinkingLevel: TypeAlias = Literal["off", "minimal", "low", "medium", "high", "xhigh"]
THINKING_LEVELS: tuple[ThinkingLevel, ...] = ("off", "minimal", "low", "medium", "high", "xhigh")
