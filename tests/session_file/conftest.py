"""The loopback Chat Completions server for session tests."""

from __future__ import annotations

from tests.support.openai_server import openai_server

__all__ = ["openai_server"]
