"""The loopback Chat Completions server, for exports of sessions written through the real stack."""

from __future__ import annotations

from tests.support.openai_server import openai_server

__all__ = ["openai_server"]
