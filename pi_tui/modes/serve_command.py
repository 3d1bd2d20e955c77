"""`pi-tui serve [--port N] [-- ARGS…]`: the TUI in a browser, through textual-serve, for this machine only.

Every browser tab that connects starts its own `pi-tui ARGS…` process (textual-serve's model), which can
read, write and run commands as the user. So the server listens on 127.0.0.1 only, and every request —
page, static file, websocket — needs the random token printed with the URL. The page request carries it
as `?token=`; the answer sets it as an HttpOnly, SameSite=Strict cookie named after the port, which the
browser then sends with the asset and websocket requests (textual's page script appends its own query to
the websocket URL, so the token cannot travel there). A websocket from a page of another origin is
refused even with the cookie. textual-serve's own page loads a font from Google's CDN; ours uses the
font files textual-serve ships, so nothing leaves the machine.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import os
import secrets
import shlex
import signal
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TextIO

from pi_tui.modes.user_messages import report

if TYPE_CHECKING:  # aiohttp and textual-serve load only when serving: `pi-tui --version` stays instant
    from collections.abc import Awaitable, Callable

    from aiohttp import web
    from textual_serve.server import Server

    Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

LOOPBACK_HOST = "127.0.0.1"
LOOPBACK_NAMES = (LOOPBACK_HOST, "localhost")
TOKEN_PARAM = "token"
COOKIE_PREFIX = "pi_tui_serve_"
SERVED_ENV = "PI_TUI_SERVED"
"""Set in the served process: its stdin is the browser's keystrokes, not a piped prompt."""
INDEX_TEMPLATE = "pi-tui-serve.html"
FORBIDDEN_TEXT = "pi-tui serve: open the URL printed in the terminal, token included.\n"
TAB_STOP_SECONDS = 1.0
"""How long a stop waits for the tabs' pi-tui processes to quit before the server closes anyway."""

# Our own page for textual-serve's terminal script: its assets and the Roboto Mono files it ships, no CDN.
PAGE = """<!DOCTYPE html>
<html>
<head>
<meta charset="utf-8">
<meta name="referrer" content="no-referrer">
<title>{{ title }}</title>
<link rel="stylesheet" href="{{ static_url }}css/xterm.css">
<style>
@font-face { font-family: "Roboto Mono"; font-style: normal;
  src: url("{{ static_url }}fonts/RobotoMono-VariableFont_wght.ttf") format("truetype"); }
@font-face { font-family: "Roboto Mono"; font-style: italic;
  src: url("{{ static_url }}fonts/RobotoMono-Italic-VariableFont_wght.ttf") format("truetype"); }
body { margin: 0; background: black; }
.notice { position: absolute; inset: 0; display: flex; align-items: center; justify-content: center;
  color: silver; font: 16px "Roboto Mono", monospace; }
body.-first-byte .notice.starting, .notice.ended { display: none; }
body.-closed .notice.ended { display: flex; }
</style>
<script src="{{ static_url }}js/textual.js"></script>
</head>
<body>
<div class="notice starting">Starting {{ title }}…</div>
<div class="notice ended">Session ended. Reload the page to start again.</div>
<div id="terminal" class="textual-terminal" data-session-websocket-url="{{ websocket_url }}"
  data-font-size="{{ font_size }}"></div>
</body>
</html>
"""


def served_in_browser(environ: Mapping[str, str] | None = None) -> bool:
    """True inside a process `pi-tui serve` started (so a non-terminal stdin is no prompt)."""
    return (environ if environ is not None else os.environ).get(SERVED_ENV) == "1"


def served_command(app_args: Sequence[str]) -> str:
    """The shell command textual-serve runs per connection: this pi-tui, marked as served. `exec`, so
    the process textual-serve holds is pi-tui itself and a stop's signal reaches it, not a shell."""
    return "exec " + shlex.join(["env", f"{SERVED_ENV}=1", sys.executable, "-m", "pi_tui", *app_args])


def _same(given: str | None, token: str) -> bool:
    return given is not None and secrets.compare_digest(given.encode(), token.encode())


@dataclass
class TokenGate:
    """Admits a request carrying the token (query or cookie) from this server's own origin."""

    token: str
    port: int = 0
    """Known once the socket is bound (port 0 picks a free one)."""

    @property
    def cookie_name(self) -> str:
        # Cookies ignore ports; one name per port keeps two servers on this machine apart.
        return f"{COOKIE_PREFIX}{self.port}"

    @property
    def origin(self) -> str:
        return f"http://{LOOPBACK_HOST}:{self.port}"

    @property
    def hosts(self) -> tuple[str, ...]:
        """The names this server answers to: the URL's `127.0.0.1` and `localhost`, which a user may
        type instead. A page of any other name (a DNS-rebound one) is refused whatever it carries."""
        return tuple(f"{name}:{self.port}" for name in LOOPBACK_NAMES)

    def admits(self, request: web.Request) -> bool:
        if request.host not in self.hosts:
            return False
        if not (
            _same(request.query.get(TOKEN_PARAM), self.token)
            or _same(request.cookies.get(self.cookie_name), self.token)
        ):
            return False
        origin = request.headers.get("Origin")
        return origin is None or origin in {f"http://{host}" for host in self.hosts}

    async def handle(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        from aiohttp import web

        if not self.admits(request):
            raise web.HTTPForbidden(text=FORBIDDEN_TEXT)
        response = await handler(request)
        # A websocket or download response is sent by the handler itself; its headers are final.
        if not response.prepared:
            response.headers["Referrer-Policy"] = "no-referrer"
            response.headers["Cache-Control"] = "no-store"
            if not _same(request.cookies.get(self.cookie_name), self.token):
                response.set_cookie(self.cookie_name, self.token, path="/", httponly=True, samesite="Strict")
        return response


@dataclass
class Tabs:
    """The browser tabs connected now: their websocket handlers and the pi-tui each one started."""

    handlers: set[asyncio.Task[object]]
    processes: set[asyncio.subprocess.Process]


@dataclass
class RunningServer:
    url: str
    """What the user opens: `http://127.0.0.1:PORT/?token=…`."""
    port: int
    token: str
    runner: web.AppRunner
    tabs: Tabs = field(default_factory=lambda: Tabs(set(), set()))

    async def stop(self) -> None:
        """End every tab's pi-tui, then the server, within about a second. Left to aiohttp and
        textual-serve it took 16-18 s with one tab open: aiohttp waits for the tabs' websockets, and a
        served pi-tui asked to quit takes seconds more to go."""
        tabs = self.tabs
        for task in tabs.handlers:
            task.cancel()  # the handler closes its websocket and asks its pi-tui to quit
        for end in ("terminate", "kill"):
            if tabs.handlers:
                await asyncio.wait(tabs.handlers, timeout=TAB_STOP_SECONDS / 3)
            for process in tabs.processes:
                if process.returncode is None:
                    with contextlib.suppress(ProcessLookupError):
                        getattr(process, end)()
        if tabs.handlers:
            await asyncio.wait(tabs.handlers, timeout=TAB_STOP_SECONDS / 3)
        await self.runner.cleanup()
        # textual-serve never closes the pipes of the app processes it started; collected after the
        # loop is gone they complain ("Event loop is closed"), so collect them while it still runs.
        gc.collect()


def _gated_server(command: str, gate: TokenGate, tabs: Tabs) -> Server:
    """textual-serve's `Server` with the token gate, our page, and no banner of its own."""
    import aiohttp_jinja2
    import jinja2
    import textual_serve.server as serve_module
    from aiohttp import web
    from textual_serve.app_service import AppService
    from textual_serve.server import Server

    class TrackedAppService(AppService):
        async def _open_app_process(self, width: int = 80, height: int = 24) -> asyncio.subprocess.Process:
            process = await super()._open_app_process(width, height)
            tabs.processes.add(process)
            return process

    # textual-serve makes one per tab by this name; tracked, a stop can end them (`RunningServer.stop`).
    setattr(serve_module, "AppService", TrackedAppService)  # noqa: B010 (not an exported name)

    @web.middleware
    async def check_token(request: web.Request, handler: Handler) -> web.StreamResponse:
        return await gate.handle(request, handler)

    class GatedServer(Server):
        async def _make_app(self) -> web.Application:
            app = await super()._make_app()
            app.middlewares.append(check_token)
            aiohttp_jinja2.setup(app, loader=jinja2.DictLoader({INDEX_TEMPLATE: PAGE}))
            return app

        async def on_startup(self, app: web.Application) -> None:
            """textual-serve prints a banner and the URL without its token here; we print our own."""

        async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
            task = asyncio.current_task()
            assert task is not None
            tabs.handlers.add(task)
            try:
                return await super().handle_websocket(request)
            finally:
                tabs.handlers.discard(task)

        async def handle_index(self, request: web.Request) -> web.Response:
            static = request.app.router["static"].url_for(filename="/")
            # The name the page was opened with (the gate admitted it): the cookie belongs to that
            # name, so the assets and the websocket must use it too (`localhost` is not `127.0.0.1`).
            host = request.host
            context = {
                "title": self.title,
                "static_url": f"http://{host}{static}".rstrip("/") + "/",
                "websocket_url": f"ws://{host}/ws",
                "font_size": _font_size(request.query.get("fontsize")),
            }
            return aiohttp_jinja2.render_template(INDEX_TEMPLATE, request, context)

    return GatedServer(command, host=LOOPBACK_HOST, port=gate.port, title="pi-tui")


async def start_server(app_args: Sequence[str], *, port: int = 0, token: str | None = None) -> RunningServer:
    """Listen on 127.0.0.1:`port` (0: a free one) and serve `pi-tui app_args` behind a token."""
    from aiohttp import web

    gate = TokenGate(token or secrets.token_urlsafe(32), port)
    tabs = Tabs(set(), set())
    server = _gated_server(served_command(app_args), gate, tabs)
    runner = web.AppRunner(await server._make_app(), access_log=None, shutdown_timeout=TAB_STOP_SECONDS)
    await runner.setup()
    try:
        await web.TCPSite(runner, LOOPBACK_HOST, port).start()
    except OSError:
        await runner.cleanup()
        raise
    gate.port = _bound_port(runner)
    url = f"{gate.origin}/?{TOKEN_PARAM}={gate.token}"
    return RunningServer(url, gate.port, gate.token, runner, tabs)


def _bound_port(runner: web.AppRunner) -> int:
    for address in runner.addresses:
        if isinstance(address, tuple):
            return int(address[1])
    raise RuntimeError("pi-tui serve: the server did not report its address")


def _font_size(text: str | None) -> int:
    try:
        return max(6, min(48, int(text or "")))
    except ValueError:
        return 16


async def _serve_until_stopped(app_args: Sequence[str], port: int, out: TextIO) -> int:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for number in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(number, stop.set)
    try:
        running = await start_server(app_args, port=port)
    except OSError as error:
        report(sys.stderr, f"cannot listen on {LOOPBACK_HOST}:{port}: {error.strerror}")
        return 1
    out.write(
        f"pi-tui in your browser: {running.url}\n"
        f"Listening on {LOOPBACK_HOST} only; anyone with this URL can use pi-tui as you. Ctrl+C stops.\n"
    )
    out.flush()
    try:
        await stop.wait()
    finally:
        await running.stop()
    return 0


def run_serve_command(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="pi-tui serve",
        description="Serve pi-tui in a browser on 127.0.0.1, behind a random token.",
        epilog="example: pi-tui serve --port 8000 -- --demo",
    )
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one)")
    parser.add_argument("app_args", nargs="*", metavar="-- ARGS", help="arguments for each pi-tui started")
    options = parser.parse_args(argv)
    if not 0 <= options.port <= 65535:
        parser.error("--port must be between 0 and 65535")
    return asyncio.run(_serve_until_stopped(options.app_args, options.port, sys.stdout))
