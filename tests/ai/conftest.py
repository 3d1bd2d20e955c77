"""Fixtures for the ai tests: the loopback Chat Completions server."""

from __future__ import annotations

from tests.support.openai_server import openai_server

__all__ = ["openai_server"]
