"""`pi-tui serve`: only 127.0.0.1, only with the token, and the served pi-tui really paints.

The gate is checked in-process against a real aiohttp server on a free loopback port; one test runs the
command itself in a subprocess and drives the served pi-tui through the websocket as a browser would.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import socket
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from pi_tui.cli import main
from pi_tui.modes.serve_command import (
    LOOPBACK_HOST,
    SERVED_ENV,
    RunningServer,
    served_command,
    served_in_browser,
    start_server,
)

ESCAPE_SEQUENCE = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]")
STOP_BOUND_SECONDS = 8.0


@pytest.fixture
async def server() -> AsyncIterator[RunningServer]:
    # Each websocket starts the served command: `--version` exits at once and paints nothing.
    running = await start_server(["--version"])
    try:
        yield running
    finally:
        await running.stop()


def base(server: RunningServer) -> str:
    return f"http://{LOOPBACK_HOST}:{server.port}"


def browser() -> aiohttp.ClientSession:
    # aiohttp's client, unlike a browser, refuses cookies from IP hosts unless told otherwise.
    return aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))


async def status(url: str) -> int:
    async with aiohttp.ClientSession() as session, session.get(url) as response:
        return response.status


async def test_listens_on_loopback_only_and_prints_a_token_url(server: RunningServer) -> None:
    addresses = server.runner.addresses
    assert addresses and all(address[0] == LOOPBACK_HOST for address in addresses)
    assert server.port == addresses[0][1] != 0
    assert server.url == f"http://127.0.0.1:{server.port}/?token={server.token}"
    assert len(server.token) >= 40


async def test_every_route_without_the_right_token_is_forbidden(server: RunningServer) -> None:
    root = base(server)
    for path in ("/", "/?token=wrong", f"/?token={server.token}x", "/static/js/textual.js", "/download/x"):
        assert await status(root + path) == 403, path
    async with aiohttp.ClientSession() as session:
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await session.ws_connect(f"ws://{LOOPBACK_HOST}:{server.port}/ws?token=wrong")
    assert refused.value.status == 403


async def test_token_opens_the_page_and_sets_a_strict_cookie(server: RunningServer) -> None:
    async with browser() as session:
        async with session.get(server.url) as response:
            assert response.status == 200
            page = await response.text()
            cookie = response.headers["Set-Cookie"]
        assert f"pi_tui_serve_{server.port}={server.token}" in cookie
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
        # The assets the page names load with the cookie alone; none comes from another host.
        urls = re.findall(r"""(?<![-\w])(?:href|src|url)\s*[=(]\s*["']([^"']+)["']""", page)
        assert len(urls) == 4
        for url in urls:
            assert url.startswith(f"{base(server)}/static/"), url
            async with session.get(url) as asset:
                assert asset.status == 200, url
        assert f'data-session-websocket-url="ws://127.0.0.1:{server.port}/ws"' in page
        assert "googleapis" not in page


async def test_websocket_needs_the_cookie_and_our_origin(server: RunningServer) -> None:
    ws_url = f"ws://{LOOPBACK_HOST}:{server.port}/ws?width=80&height=24"
    async with browser() as session:
        async with session.get(server.url) as response:
            assert response.status == 200
        with pytest.raises(aiohttp.WSServerHandshakeError) as foreign:
            await session.ws_connect(ws_url, origin="http://evil.example")
        assert foreign.value.status == 403
        async with session.ws_connect(ws_url, origin=base(server)) as websocket:
            await websocket.send_json(["ping", "hello"])
            reply = await asyncio.wait_for(websocket.receive_json(), timeout=30)
            assert reply == ["pong", "hello"]


def test_served_command_marks_the_child_and_quotes_its_arguments() -> None:
    command = served_command(["--demo", "it's"])
    assert command.startswith(f"exec env {SERVED_ENV}=1 ")
    assert command.endswith("-m pi_tui --demo 'it'\"'\"'s'")
    assert served_in_browser({SERVED_ENV: "1"}) and not served_in_browser({})


def test_busy_port_and_bad_port_fail_cleanly(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind((LOOPBACK_HOST, 0))
        taken.listen()
        assert main(["serve", "--port", str(taken.getsockname()[1])]) == 1
    assert "cannot listen on 127.0.0.1" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["serve", "--port", "70000"])


async def test_serve_command_serves_a_live_pi_tui(tmp_path: Path) -> None:
    # No model configured, so the served pi-tui opens on its start page (private homes come from conftest).
    env = {name: value for name, value in os.environ.items() if not name.startswith("OPENAI_")}
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "pi_tui",
        "serve",
        cwd=tmp_path,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        assert process.stdout is not None
        first = (await asyncio.wait_for(process.stdout.readline(), timeout=60)).decode()
        found = re.search(r"(http://127\.0\.0\.1:(\d+))/\?token=\S+", first)
        assert found, first
        screen = await _read_screen(found.group(0), found.group(2), until=b"Sessions")
        assert b"Sessions" in screen and b"pi-tui" in screen
    finally:
        process.send_signal(signal.SIGINT)
        _, err = await asyncio.wait_for(process.communicate(), timeout=60)
    assert process.returncode == 0, err.decode()


async def _read_screen(url: str, port: str, *, until: bytes) -> bytes:
    """What the served app paints, escape sequences removed, until `until` shows up."""
    screen = b""
    async with browser() as session:
        async with session.get(url) as response:
            assert response.status == 200
        async with session.ws_connect(f"ws://{LOOPBACK_HOST}:{port}/ws?width=100&height=30") as websocket:
            while until not in screen:
                message = await asyncio.wait_for(websocket.receive(), timeout=60)
                assert message.type in (aiohttp.WSMsgType.BINARY, aiohttp.WSMsgType.TEXT), message
                if message.type == aiohttp.WSMsgType.BINARY:
                    screen += ESCAPE_SEQUENCE.sub(b"", message.data)
    return screen


async def test_the_url_with_localhost_works_as_well_as_with_127_0_0_1(server: RunningServer) -> None:
    """The cookie belongs to the name the page was opened with: its assets and websocket use that name."""
    local = f"http://localhost:{server.port}"
    async with browser() as session:
        async with session.get(f"{local}/?token={server.token}") as response:
            assert response.status == 200
            page = await response.text()
        urls = re.findall(r"""(?<![-\w])(?:href|src|url)\s*[=(]\s*["']([^"']+)["']""", page)
        assert urls and all(url.startswith(f"{local}/static/") for url in urls), urls
        for url in urls:
            async with session.get(url) as asset:
                assert asset.status == 200, url
        assert f'data-session-websocket-url="ws://localhost:{server.port}/ws"' in page
        async with session.ws_connect(
            f"ws://localhost:{server.port}/ws?width=80&height=24", origin=local
        ) as ws:
            await ws.send_json(["ping", "local"])
            assert await asyncio.wait_for(ws.receive_json(), timeout=30) == ["pong", "local"]


async def test_another_host_name_is_refused_even_with_the_token(server: RunningServer) -> None:
    """A page of another name resolved to 127.0.0.1 (DNS rebinding) gets nothing."""
    async with aiohttp.ClientSession() as session:
        headers = {"Host": f"rebound.example:{server.port}"}
        async with session.get(server.url, headers=headers) as response:
            assert response.status == 403


async def test_ctrl_c_with_a_tab_connected_ends_the_tab_and_the_server_at_once(tmp_path: Path) -> None:
    """Before: 16-18 s (aiohttp waited for the open websocket). The bound is loose for a loaded machine;
    measured 0.8-1.6 s from SIGINT to exit, interpreter shutdown included (docs/reliability.md)."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("OPENAI_")}
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "pi_tui",
        "serve",
        cwd=tmp_path,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stdout is not None
    first = (await asyncio.wait_for(process.stdout.readline(), timeout=60)).decode()
    found = re.search(r"http://127\.0\.0\.1:(\d+)/\?token=\S+", first)
    assert found, first
    async with browser() as session:
        async with session.get(found.group(0)) as response:
            assert response.status == 200
        ws_url = f"ws://{LOOPBACK_HOST}:{found.group(1)}/ws?width=100&height=30"
        async with session.ws_connect(ws_url) as websocket:
            screen = b""
            while b"Sessions" not in screen:
                message = await asyncio.wait_for(websocket.receive(), timeout=60)
                if message.type == aiohttp.WSMsgType.BINARY:
                    screen += message.data
            started = time.monotonic()
            process.send_signal(signal.SIGINT)
            async for _ in websocket:  # as a browser does: read on, answer the close
                pass
            await asyncio.wait_for(process.wait(), timeout=30)
            took = time.monotonic() - started
    assert process.returncode == 0
    assert websocket.closed
    assert took < STOP_BOUND_SECONDS, f"stopped after {took:.1f} s"
