"""`pi-tui serve` in a real browser: headless Chromium, driven through the DevTools protocol.

The page opens with the token (and is refused without it), textual-serve's terminal draws pi-tui's chat,
keys typed into the page reach the served pi-tui and come back drawn, every request the pages make stays
on 127.0.0.1 / localhost, a second tab (opened as `localhost`) gets a pi-tui process of its own, and
SIGINT to `serve` ends the server and both tabs' pi-tui within a second or two. The model is the tests'
loopback server. `make e2e` installs Chromium when it is missing; without it the test is skipped.

The terminal draws on a canvas, so the text is read from xterm.js's own buffer (its public
`buffer.active` API): a script run before the page's captures each `Terminal` textual-serve creates.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import sys
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import pytest

from pi_tui.modes.serve_command import FORBIDDEN_TEXT
from tests.support.openai_server import OpenAIServer, text_reply

CHROMIUM = Path("/usr/bin/chromium")
pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="/usr/bin/chromium is absent (Debian package `chromium`; `make e2e` installs it)",
)
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--window-size=1280,900",
    # A name the page asks for that is not localhost fails to resolve: nothing leaves even by mistake.
    # The recorder below still sees such a request (the control test proves it).
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1",
    "--remote-debugging-port=0",
]
LOOPBACK_NAMES = {"127.0.0.1", "localhost"}
WAIT_SECONDS = 60.0
"""Bounds a hang on a loaded 2-core machine; not a measure of speed."""
STOP_BOUND_SECONDS = 8.0

# Runs before textual.js: xterm's public `Terminal` constructor assigns `this._addonManager`, and only it
# does, so a setter on Object.prototype under that name sees each terminal as it is made.
CAPTURE_TERMINALS = """
window.__terminals = [];
Object.defineProperty(Object.prototype, "_addonManager", {
  configurable: true,
  set(value) {
    Object.defineProperty(this, "_addonManager", {value, writable: true, configurable: true});
    window.__terminals.push(this);
  },
});
"""
SCREEN_TEXT = """
(() => {
  const terminal = window.__terminals && window.__terminals[0];
  if (!terminal) return "";
  const buffer = terminal.buffer.active, rows = [];
  for (let y = 0; y < terminal.rows; y++) {
    const line = buffer.getLine(buffer.viewportY + y);
    rows.push(line ? line.translateToString(true) : "");
  }
  return rows.join("\\n");
})()
"""


@dataclass
class Tab:
    session: str
    requests: list[str] = field(default_factory=list)
    """Every URL the tab asked for: documents, scripts, fonts, fetches, websockets."""
    statuses: dict[str, int] = field(default_factory=dict)


class DevTools:
    """One websocket to the browser; pages are reached through flat sessions on it."""

    def __init__(self, websocket: aiohttp.ClientWebSocketResponse) -> None:
        self.websocket = websocket
        self.tabs: dict[str, Tab] = {}
        self._next_id = 0
        self._pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for message in self.websocket:
            data = json.loads(message.data)
            if "id" in data:
                future = self._pending.pop(data["id"])
                if "error" in data:
                    future.set_exception(AssertionError(f"DevTools: {data['error']}"))
                else:
                    future.set_result(data.get("result", {}))
                continue
            tab = self.tabs.get(data.get("sessionId", ""))
            if tab is None:
                continue
            params = data.get("params", {})
            if data["method"] == "Network.requestWillBeSent":
                tab.requests.append(params["request"]["url"])
            elif data["method"] == "Network.webSocketCreated":
                tab.requests.append(params["url"])
            elif data["method"] == "Network.responseReceived":
                tab.statuses[params["response"]["url"]] = params["response"]["status"]

    async def call(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if session is not None:
            message["sessionId"] = session
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[self._next_id] = future
        await self.websocket.send_json(message)
        return await asyncio.wait_for(future, timeout=WAIT_SECONDS)

    async def open_tab(self, url: str, *, fresh_profile: bool = False) -> Tab:
        """A new tab with the network recorded and terminals captured, then navigated to `url`.
        `fresh_profile`: in a context of its own, so no cookie from the other tabs."""
        extra: dict[str, Any] = {}
        if fresh_profile:
            extra["browserContextId"] = (await self.call("Target.createBrowserContext"))["browserContextId"]
        target = (await self.call("Target.createTarget", url="about:blank", **extra))["targetId"]
        session = (await self.call("Target.attachToTarget", targetId=target, flatten=True))["sessionId"]
        tab = self.tabs[session] = Tab(session)
        await self.call("Network.enable", session)
        await self.call("Page.enable", session)
        await self.call("Page.addScriptToEvaluateOnNewDocument", session, source=CAPTURE_TERMINALS)
        await self.call("Page.navigate", session, url=url)
        return tab

    async def evaluate(self, tab: Tab, expression: str) -> Any:
        result = await self.call("Runtime.evaluate", tab.session, expression=expression, returnByValue=True)
        return result["result"].get("value")

    async def wait_for_value(self, tab: Tab, expression: str) -> Any:
        """The expression's first truthy value (the document may still be loading)."""
        deadline = time.monotonic() + WAIT_SECONDS
        while time.monotonic() < deadline:
            value = await self.evaluate(tab, expression)
            if value:
                return value
            await asyncio.sleep(0.1)
        raise AssertionError(f"{expression} stayed empty for {WAIT_SECONDS:g} s")

    async def screen(self, tab: Tab) -> str:
        return str(await self.evaluate(tab, SCREEN_TEXT) or "")

    async def wait_for_text(self, tab: Tab, text: str) -> str:
        deadline = time.monotonic() + WAIT_SECONDS
        screen = ""
        while time.monotonic() < deadline:
            screen = await self.screen(tab)
            if text in screen:
                return screen
            await asyncio.sleep(0.2)
        raise AssertionError(
            f"{text!r} was not drawn within {WAIT_SECONDS:g} s; the terminal showed:\n{screen}"
        )

    async def type(self, tab: Tab, text: str) -> None:
        """Key events as a keyboard sends them, into the terminal (which has the page's focus)."""
        await self.evaluate(tab, "window.__terminals[0].focus()")
        for char in text:
            await self.call("Input.dispatchKeyEvent", tab.session, type="keyDown", key=char, text=char)
            await self.call("Input.dispatchKeyEvent", tab.session, type="keyUp", key=char)

    async def press_enter(self, tab: Tab) -> None:
        enter = {"key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13}
        await self.call("Input.dispatchKeyEvent", tab.session, type="keyDown", text="\r", **enter)
        await self.call("Input.dispatchKeyEvent", tab.session, type="keyUp", **enter)

    async def close(self) -> None:
        self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._reader


@contextlib.asynccontextmanager
async def chromium(profile: Path) -> AsyncIterator[DevTools]:
    browser = await asyncio.create_subprocess_exec(
        str(CHROMIUM),
        *FLAGS,
        f"--user-data-dir={profile}",
        "about:blank",
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        # Chromium writes the port it picked and the browser's websocket path into the profile.
        active = profile / "DevToolsActivePort"
        await wait_until(
            lambda: active.exists() and len(active.read_text().split()) == 2, "DevToolsActivePort"
        )
        port, path = active.read_text().split()
        async with (
            aiohttp.ClientSession() as client,
            client.ws_connect(f"ws://127.0.0.1:{port}{path}", max_msg_size=0) as websocket,
        ):
            devtools = DevTools(websocket)
            try:
                yield devtools
            finally:
                await devtools.close()
    finally:
        if browser.returncode is None:
            browser.kill()
        await browser.wait()


async def wait_until(condition: Callable[[], object], what: str, timeout: float = WAIT_SECONDS) -> None:  # noqa: ASYNC109
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() >= deadline:
            raise AssertionError(f"waited {timeout:g} s for {what}")
        await asyncio.sleep(0.05)


def served_children(parent: int) -> set[int]:
    """The pi-tui processes `serve` started (its direct children: the served command `exec`s pi-tui)."""
    children = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            if int(fields[1]) == parent and b"pi_tui" in (entry / "cmdline").read_bytes():
                children.add(int(entry.name))
    return children


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.fixture
async def loopback() -> AsyncIterator[OpenAIServer]:
    server = OpenAIServer(keep_alive=True)
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


def user_texts(server: OpenAIServer) -> list[str]:
    texts = []
    for request in server.requests:
        message = request.body["messages"][-1]
        if message["role"] == "user":
            texts.append("".join(part["text"] for part in message["content"]))
    return texts


async def start_serve(tmp_path: Path, server: OpenAIServer) -> tuple[asyncio.subprocess.Process, str]:
    home = tmp_path / "home"
    home.mkdir()
    model = {"id": "loop", "contextWindow": 32_000, "maxTokens": 4_000}
    provider = {
        "baseUrl": server.base_url,
        "apiKey": "LOOP_KEY",
        "api": "openai-completions",
        "models": [model],
    }
    (home / "models.json").write_text(json.dumps({"providers": {"local": provider}}))
    project = tmp_path / "project"
    project.mkdir()
    env = {name: value for name, value in os.environ.items() if not name.startswith("OPENAI_")}
    env |= {"PI_TUI_HOME": str(home), "LOOP_KEY": "k"}
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "pi_tui",
        "serve",
        cwd=project,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stdout is not None
    first = (await asyncio.wait_for(process.stdout.readline(), timeout=WAIT_SECONDS)).decode()
    found = re.search(r"http://127\.0\.0\.1:\d+/\?token=\S+", first)
    assert found, first
    return process, found.group(0)


async def test_serve_in_chromium(tmp_path: Path, loopback: OpenAIServer) -> None:
    began = time.monotonic()
    process, url = await start_serve(tmp_path, loopback)
    port = urlsplit(url).port
    try:
        async with chromium(tmp_path / "profile") as browser:
            # Without the token: 403 and the notice, even for a browser with no cookie at all.
            refused = await browser.open_tab(f"http://127.0.0.1:{port}/", fresh_profile=True)
            await wait_until(lambda: refused.statuses, "the tokenless page's answer")
            assert refused.statuses == {f"http://127.0.0.1:{port}/": 403}
            body = await browser.wait_for_value(refused, "document.body ? document.body.innerText : ''")
            assert body.strip() == FORBIDDEN_TEXT.strip()

            # With the token: the page loads and the terminal draws the chat: its working
            # directory, the model and its window, the footer's keys.
            first = await browser.open_tab(url)
            screen = await browser.wait_for_text(first, "Abort")
            assert f"{tmp_path}/project" in screen and "32k" in screen and "loop" in screen
            assert first.statuses[url] == 200

            # Typed keys reach the app: drawn in its editor, then sent to the model as the prompt.
            loopback.enqueue(text_reply("answer from the loopback model"))
            await browser.type(first, "hello from the first tab")
            await browser.wait_for_text(first, "hello from the first tab")
            await browser.press_enter(first)
            await browser.wait_for_text(first, "answer from the loopback model")
            assert user_texts(loopback) == ["hello from the first tab"]

            # A second tab, opened by the other name the server answers to, gets a pi-tui of its own.
            local_url = url.replace("127.0.0.1", "localhost")
            second = await browser.open_tab(local_url)
            await browser.wait_for_text(second, "Abort")
            await wait_until(lambda: len(served_children(process.pid)) == 2, "a second pi-tui process")
            children = served_children(process.pid)
            assert "hello from the first tab" not in await browser.screen(second)
            loopback.enqueue(text_reply("second answer"))
            await browser.type(second, "and from the second")
            await browser.wait_for_text(second, "and from the second")
            await browser.press_enter(second)
            await browser.wait_for_text(second, "second answer")
            assert "and from the second" not in await browser.screen(first)
            # Its conversation is its own: the request carries its prompt alone, not the first tab's.
            assert user_texts(loopback) == ["hello from the first tab", "and from the second"]
            assert [m["role"] for m in loopback.requests[-1].body["messages"]].count("user") == 1

            # Nothing left the machine: every request of every tab went to this server, by one of its names.
            for tab in (refused, first, second):
                assert tab.requests, tab
                outside = [seen for seen in tab.requests if urlsplit(seen).hostname not in LOOPBACK_NAMES]
                assert outside == [], outside
                assert {urlsplit(seen).port for seen in tab.requests} == {port}
            assert any(seen.startswith(f"ws://127.0.0.1:{port}/ws") for seen in first.requests)
            assert any(seen.startswith(f"ws://localhost:{port}/ws") for seen in second.requests)
            assert any("/static/fonts/" in seen for seen in first.requests)  # the local font, not a CDN

            # Ctrl+C ends the server and both tabs' pi-tui at once, the tabs still connected.
            loaded = time.monotonic() - began
            stopping = time.monotonic()
            process.send_signal(signal.SIGINT)
            await asyncio.wait_for(process.wait(), timeout=30)
            server_gone = time.monotonic() - stopping
            await wait_until(lambda: not any(alive(pid) for pid in children), "the tabs' pi-tui to end", 30)
            all_gone = time.monotonic() - stopping
            # Each page says its session ended (textual-serve marks the body when its websocket closes).
            for tab in (first, second):
                await browser.wait_for_value(tab, "document.body.classList.contains('-closed')")
    finally:
        if process.returncode is None:
            process.kill()
        _, err = await process.communicate()
    assert process.returncode == 0, err.decode()[-2000:]
    print(
        f"serve in Chromium: ready and checked in {loaded:.1f} s; SIGINT to serve's exit "
        f"{server_gone:.2f} s, to both tabs' pi-tui gone {all_gone:.2f} s"
    )
    assert all_gone < STOP_BOUND_SECONDS, f"stopped after {all_gone:.1f} s"


async def test_the_recorder_sees_a_page_that_loads_from_outside(tmp_path: Path) -> None:
    """The check above can fail: a page with remote references has them recorded (they resolve nowhere)."""
    page = tmp_path / "control.html"
    page.write_text('<img src="http://evil.example/x.png"><script src="https://cdn.example/t.js"></script>')
    async with chromium(tmp_path / "profile") as browser:
        tab = await browser.open_tab(page.as_uri())
        outside = {"http://evil.example/x.png", "https://cdn.example/t.js"}
        await wait_until(lambda: outside <= set(tab.requests), "the control page's requests")
