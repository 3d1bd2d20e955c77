"""Premises of the private `anthropic` SDK hooks `pi_tui/ai/anthropic_client.py` relies on.

`anthropic` is pinned in pyproject.toml because the client overrides private parts of it: the client's
`_make_sse_decoder`, `_process_response_data`, `_prepare_request` and `_api_key_auth`, and the SSE
decoder's per-line `decode` with its `ServerSentEvent`. An upgrade that renames, re-signs or stops calling
one of them fails a test here that names the hook, instead of a reply failing in use.
"""

from __future__ import annotations

import inspect
import re
import tomllib
from importlib.metadata import version
from pathlib import Path

from anthropic import AsyncAnthropic
from anthropic._streaming import AsyncStream, ServerSentEvent, SSEDecoder

from pi_tui.ai.anthropic_client import ErrorKeepingSSEDecoder, PiAnthropic

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def test_the_installed_sdk_is_the_pinned_one() -> None:
    dependencies = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["dependencies"]
    pinned = next(item for item in dependencies if item.startswith("anthropic=="))
    assert pinned == f"anthropic=={version('anthropic')}"


def test_the_overridden_hooks_exist_with_their_signatures() -> None:
    for name in ("_make_sse_decoder", "_process_response_data", "_prepare_request"):
        ours = inspect.signature(getattr(PiAnthropic, name))
        theirs = inspect.signature(getattr(AsyncAnthropic, name))
        assert list(ours.parameters) == list(theirs.parameters), name
    assert isinstance(inspect.getattr_static(AsyncAnthropic, "_api_key_auth"), property)
    assert list(inspect.signature(SSEDecoder.decode).parameters) == ["self", "line"]
    assert {"event", "data", "id", "retry"} <= set(inspect.signature(ServerSentEvent).parameters)


def test_the_stream_still_calls_the_hooks() -> None:
    """The stream asks the client for its decoder and hands each event's JSON to `_process_response_data`;
    it raises on an event named `error` (which the decoder renames to keep)."""
    stream = inspect.getsource(AsyncStream.__init__) + inspect.getsource(AsyncStream.__stream__)
    assert "_make_sse_decoder()" in stream
    assert "_process_response_data" in stream
    assert re.search(r'sse\.event == "error"', stream)
    assert "await self._prepare_request(request)" in inspect.getsource(AsyncAnthropic._attempt_request)
    assert "_api_key_auth" in inspect.getsource(AsyncAnthropic.auth_headers.fget)


def test_an_error_event_is_kept_with_its_data() -> None:
    decoder = ErrorKeepingSSEDecoder()
    for line in ("event: error", 'data: {"type": "error"}'):
        assert decoder.decode(line) is None
    event = decoder.decode("")
    assert event is not None and event.event == "pi_stream_error"
    assert event.json() == {"type": "pi_stream_error", "data": '{"type": "error"}'}


def test_an_api_key_goes_as_x_api_key() -> None:
    client = PiAnthropic(api_key="sk-ant-k", base_url="http://127.0.0.1:9")
    assert client.auth_headers == {"x-api-key": "sk-ant-k"}
    bearer = PiAnthropic(api_key=None, auth_token="token", base_url="http://127.0.0.1:9")
    assert bearer.auth_headers == {"Authorization": "Bearer token"}
