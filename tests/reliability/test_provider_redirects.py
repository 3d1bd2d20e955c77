"""A provider's redirect to another origin is not followed with the conversation (issue #26, serve
items; docs/reliability.md, section 14): `pi-tui -p` against two loopback servers, one redirecting."""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.reliability.test_hostile_text import KEY, prompt, write_config
from tests.support.openai_server import ErrorReply, OpenAIServer, text_reply

HEADER_KEY = "hdr-redirect-secret-5d2e"


@pytest.fixture
async def elsewhere() -> AsyncIterator[OpenAIServer]:
    server = OpenAIServer()
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


@pytest.mark.parametrize("status", [307, 308])
@pytest.mark.parametrize("api", ["openai-completions", "openai-responses", "anthropic-messages"])
async def test_a_redirect_to_another_origin_sends_nothing_there(
    openai_server: OpenAIServer, elsewhere: OpenAIServer, tmp_path: Path, status: int, api: str
) -> None:
    write_config(openai_server, api=api, headers={"api-key": HEADER_KEY})
    if api == "anthropic-messages":  # the Messages API's base URL has no /v1
        models = Path(os.environ["PI_TUI_HOME"]) / "models.json"
        document = json.loads(models.read_text())
        document["providers"]["loop"]["baseUrl"] = openai_server.anthropic_base_url
        models.write_text(json.dumps(document))
    target = f"http://127.0.0.1:{elsewhere.port}/v1/stolen"
    openai_server.enqueue(*[ErrorReply(status, headers={"Location": target}) for _ in range(4)])
    elsewhere.enqueue(text_reply("got it"))

    code, out, err = await prompt("the secret plan", cwd=tmp_path)

    assert (code, out) == (1, b"")
    assert elsewhere.requests == []  # neither the conversation nor a key went there
    assert f"redirected the request to another origin ({target}); pi-tui does not follow" in err
    assert len(openai_server.requests) == 1  # not retried: the answer will not change
    assert KEY not in err and HEADER_KEY not in err


async def test_a_redirect_within_the_same_origin_is_still_followed(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    write_config(openai_server)
    target = f"{openai_server.base_url}/chat/completions?moved=1"
    openai_server.enqueue(ErrorReply(307, headers={"Location": target}), text_reply("moved fine"))

    code, out, err = await prompt("hi", cwd=tmp_path)

    assert (code, out) == (0, b"moved fine\n"), err
    assert openai_server.requests[1].path.endswith("/chat/completions?moved=1")
    assert openai_server.requests[1].body == openai_server.requests[0].body
