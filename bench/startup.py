"""What a user waits for, from spawn: the real `pi-tui` in a pseudo-terminal, beside its baselines.

Every figure is the median of N runs; the programs compared run alternately in the same round (their
order rotates each round), so a machine busy with other work slows all of them alike and the ratios hold.

  first frame     spawn -> the first screen with any visible character (a pty of 120x40, parsed by pyte)
  chat ready      spawn -> the model's name on screen, then a typed marker shown in the editor (proves it
                  accepts keys: the marker is typed the moment the model shows and timed until it is drawn)
  resumed         the same with `--session` on a 5,000-message session (3.9 MB); "painted" is spawn ->
                  the newest message's text on screen
  -p hi           `-p hi --no-session` to exit, against a loopback Chat Completions server (real SSE)
  --version       spawn to exit
  imports         (--only imports) where the chat's start-up goes: pi-tui under `python -X importtime` in
                  the pty until the chat is ready, the modules' own import time summed per package
                  (docs/startup.md shows this table); one run, so read it as proportions
  transport       (--only transport) one streamed Chat Completions request in a fresh process, spawn to
                  exit: through the OpenAI SDK as pi-tui sends it (`pi_tui.ai.openai_client`) and through a
                  thin client on the SDK's own HTTP library (httpx2: POST, read the SSE lines, json.loads
                  each event), beside `python -c "import asyncio"`; what replacing the SDK would save

Baselines measured in the same rounds: `python -c pass` (this interpreter, spawn to exit) and, when the
`PI16_BIN` environment variable names pi 1.6's executable, pi 1.6 doing the same things (pointed at the
same loopback server through `PI_CODING_AGENT_DIR`, offline). pi-tui runs from this checkout's
interpreter with its bytecode caches warm (one unmeasured run of each first), as pi 1.6 runs with Node's
compile cache.

Usage: python bench/startup.py [--runs N] [--only first,chat,resumed,print,version|transport|imports] [--json]
Targets (issue 28): chat ready <= 1.0x pi 1.6 (aim 0.8x); -p hi <= 1.0x pi 1.6; resumed 5,000 messages
ready <= 1.5x pi-tui's own chat ready, painted <= 400 ms. Misses are reported, never an exit failure.
"""

from __future__ import annotations

import argparse
import asyncio
import fcntl
import json
import os
import pty
import resource
import select
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path

import pyte

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tui_support.fixtures import write_session  # noqa: E402  (after the path setup)

from tests.support.openai_server import OpenAIServer, text_reply  # noqa: E402

COLUMNS, LINES = 120, 40
MODEL_ID = "bench-startup-model"
MARKER = "zq"
TIMEOUT_S = 30.0
RESUMED_MESSAGES = 5000
# The end of the newest message of the session `write_session` makes (its replies are cut mid-word).
PAINTED_TEXT = "src/pkg/m3.py reads the cach"

# One streamed request, the same body both ways; each prints the reply's text (checked by `wall_time`).
_REQUEST = (
    "import asyncio, json, sys\n"
    "URL, MODEL = sys.argv[1], sys.argv[2]\n"
    "BODY = {'model': MODEL, 'messages': [{'role': 'user', 'content': 'hi'}], 'stream': True,"
    " 'stream_options': {'include_usage': True}}\n"
)
SDK_REQUEST = _REQUEST + (
    "from pi_tui.ai.openai_client import PiOpenAI, new_http_client\n"
    "async def main():\n"
    "    client = PiOpenAI(api_key='k', base_url=URL, http_client=new_http_client(), max_retries=0)\n"
    "    stream = await client.chat.completions.create(**BODY)\n"
    "    text = ''.join([c.choices[0].delta.content or '' async for c in stream if c.choices])\n"
    "    print(text)\n"
    "asyncio.run(main())\n"
)
THIN_REQUEST = _REQUEST + (
    "import httpx2\n"
    "async def main():\n"
    "    text = []\n"
    "    async with httpx2.AsyncClient(timeout=60) as client:\n"
    "        headers = {'authorization': 'Bearer k', 'content-type': 'application/json'}\n"
    "        body = json.dumps(BODY).encode()\n"
    "        url = URL + '/chat/completions'\n"
    "        async with client.stream('POST', url, content=body, headers=headers) as r:\n"
    "            async for line in r.aiter_lines():\n"
    "                if line.startswith('data: ') and line != 'data: [DONE]':\n"
    "                    event = json.loads(line[6:])\n"
    "                    text += [c['delta'].get('content') or '' for c in event.get('choices', [])]\n"
    "    print(''.join(text))\n"
    "asyncio.run(main())\n"
)


@dataclass
class Screen:
    """A pty of COLUMNS x LINES parsed as a terminal would draw it."""

    screen: pyte.Screen = field(default_factory=lambda: pyte.Screen(COLUMNS, LINES))
    stream: pyte.ByteStream = field(init=False)

    def __post_init__(self) -> None:
        self.stream = pyte.ByteStream(self.screen)

    def feed(self, data: bytes) -> None:
        self.stream.feed(data)

    def text(self) -> str:
        return "\n".join(self.screen.display)


@dataclass
class PtyRun:
    """Spawn -> the moments the screen first met each condition (seconds), or None if it never did."""

    first_frame: float | None = None
    model_shown: float | None = None
    ready: float | None = None
    painted: float | None = None
    cpu: float = 0.0
    """CPU time (user + system) the process had used when it was ended, just after the last moment."""
    screen: str = ""


def spawn_in_pty(
    command: list[str], env: dict[str, str], cwd: Path, *, painted_text: str | None = None
) -> PtyRun:
    """Run `command` in a fresh pty; type MARKER as soon as the model's name shows, stop once the marker
    is drawn (and `painted_text` shown, when given), then end the process group."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", LINES, COLUMNS, 0, 0))
    screen = Screen()
    result = PtyRun()
    started = time.perf_counter()
    process = subprocess.Popen(
        command, stdin=slave, stdout=slave, stderr=slave, cwd=cwd, env=env, start_new_session=True
    )
    os.close(slave)
    typed_at = 0.0
    try:
        while time.perf_counter() - started < TIMEOUT_S:
            ready, _, _ = select.select([master], [], [], 0.5)
            if not ready:
                if process.poll() is not None:
                    break
                continue
            try:
                data = os.read(master, 1 << 16)
            except OSError:
                break
            now = time.perf_counter() - started
            screen.feed(data)
            text = screen.text()
            if result.first_frame is None and text.strip():
                result.first_frame = now
            if result.model_shown is None and MODEL_ID in text:
                result.model_shown = now
                os.write(master, MARKER.encode())
                typed_at = now
            elif result.model_shown is not None and result.ready is None:
                if MARKER in text:
                    result.ready = now
                elif now - typed_at > 2.0:  # typed before the editor took keys: they were lost, type again
                    os.write(master, MARKER.encode())
                    typed_at = now
            if painted_text is not None and result.painted is None and painted_text in text:
                result.painted = now
            if result.ready is not None and (painted_text is None or result.painted is not None):
                break
    finally:
        result.screen = screen.text()
        with suppress(OSError):
            os.killpg(process.pid, 9)
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        result.cpu = usage.ru_utime + usage.ru_stime
        os.close(master)
    return result


def wall_time(
    command: list[str], env: dict[str, str], cwd: Path, *, expect: str | None = None
) -> tuple[float, float]:
    """Spawn -> exit and the CPU time the process (and its children) used, seconds; the output must hold
    `expect` (a run that failed fast proves nothing)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    run = subprocess.run(
        command, env=env, cwd=cwd, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60
    )
    elapsed = time.perf_counter() - started
    if run.returncode != 0 or (expect is not None and expect not in run.stdout):
        raise SystemExit(
            f"{command[0]} failed ({run.returncode}):\n{run.stdout[-2000:]}\n{run.stderr[-2000:]}"
        )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return elapsed, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


class LoopbackServer:
    """tests/support/openai_server.py on its own thread and loop, answering every request with `hi`."""

    def __init__(self) -> None:
        self.server = OpenAIServer(keep_alive=True)
        self.server.responder = lambda body: text_reply("Hello from the loopback server.")
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    def __enter__(self) -> OpenAIServer:
        self.thread.start()
        asyncio.run_coroutine_threadsafe(self.server.start(), self.loop).result(10)
        return self.server

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self.server.stop(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


@dataclass
class Program:
    name: str
    argv: list[str]
    env: dict[str, str]
    extra_args: list[str]


def programs(scratch: Path, server: OpenAIServer, pi16: str | None) -> list[Program]:
    models = {
        "providers": {
            "local": {
                "baseUrl": server.base_url,
                "apiKey": "loopback-key",
                "api": "openai-completions",
                "models": [{"id": MODEL_ID, "contextWindow": 200_000}],
            }
        }
    }
    base_env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("OPENAI", "ANTHROPIC", "PI_", "OPENROUTER"))
        # A user's Python writes bytecode caches; a development shell may have turned that off.
        and key != "PYTHONDONTWRITEBYTECODE"
    }
    base_env.update({"TERM": "xterm-256color", "COLORTERM": "truecolor"})
    (scratch / "home").mkdir()
    tui_home = scratch / "pi-tui-home"
    tui_home.mkdir()
    (tui_home / "models.json").write_text(json.dumps(models))
    # pi-tui gets a home of its own (it lists pi's sessions there too); pi 1.6's launcher needs the real one.
    tui_env = {**base_env, "PI_TUI_HOME": str(tui_home), "HOME": str(scratch / "home")}
    listed = [
        Program(
            "pi-tui", [str(Path(sys.executable).parent / "pi-tui")], tui_env, ["--model", f"local/{MODEL_ID}"]
        )
    ]
    if pi16:
        agent_dir = scratch / "pi16-agent"
        agent_dir.mkdir()
        (agent_dir / "models.json").write_text(json.dumps(models))
        (agent_dir / "settings.json").write_text(
            json.dumps({"defaultProvider": "local", "defaultModel": MODEL_ID, "quietStartup": True})
        )
        pi_env = {**base_env, "PI_CODING_AGENT_DIR": str(agent_dir), "PI_OFFLINE": "1"}
        listed.append(Program("pi 1.6", [pi16], pi_env, ["--offline", "--model", f"local/{MODEL_ID}"]))
    return listed


@dataclass
class Figures:
    samples: dict[tuple[str, str], list[float]] = field(default_factory=dict)

    def add(self, program: str, what: str, seconds: float | None, cpu: float | None = None) -> None:
        if seconds is not None:
            self.samples.setdefault((program, what), []).append(seconds * 1000)
        if cpu is not None:
            self.samples.setdefault((program, f"{what} (CPU)"), []).append(cpu * 1000)

    def median(self, program: str, what: str) -> float | None:
        found = self.samples.get((program, what))
        return statistics.median(found) if found else None


def rounds(runs: int, items: list[Callable[[], None]]) -> None:
    """Each round runs every item once, starting one further along each time (alternation)."""
    for round_number in range(runs):
        shift = round_number % len(items)
        for item in items[shift:] + items[:shift]:
            item()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=7, help="rounds (median of this many runs)")
    parser.add_argument("--only", default="", help="comma-separated: first,chat,resumed,print,version")
    parser.add_argument("--json", action="store_true", help="print the medians as one JSON object too")
    options = parser.parse_args()
    wanted = set(filter(None, options.only.split(","))) or {"first", "chat", "resumed", "print", "version"}
    if wanted == {"transport"}:
        transport(options.runs)
        return
    if wanted == {"imports"}:
        import_profile()
        return
    pi16 = os.environ.get("PI16_BIN") or None
    if pi16 and not shutil.which(pi16):
        raise SystemExit(f"PI16_BIN={pi16} is not an executable")
    figures = Figures()
    with tempfile.TemporaryDirectory(prefix="pi-tui-startup-") as scratch_name, LoopbackServer() as server:
        scratch = Path(scratch_name)
        project = scratch / "project"
        project.mkdir()
        listed = programs(scratch, server, pi16)
        session_path = None
        if "resumed" in wanted:
            session_path = write_session(scratch / "sessions", project, RESUMED_MESSAGES)
        items: list[Callable[[], None]] = []
        baseline = [sys.executable, "-c", "pass"]
        items.append(
            lambda: figures.add("python -c pass", "exit", *wall_time(baseline, dict(os.environ), project))
        )
        for program in listed:
            items.extend(program_items(program, wanted, figures, project, session_path))
        # Warm the bytecode and compile caches; these runs are not counted.
        warm = Figures()
        for program in listed:
            for item in program_items(program, wanted, warm, project, session_path):
                item()
        rounds(options.runs, items)
    report(figures, listed, options.runs)
    if options.json:
        print(json.dumps({f"{p} | {w}": figures.median(p, w) for p, w in figures.samples}))


def program_items(
    program: Program, wanted: set[str], figures: Figures, project: Path, session_path: Path | None
) -> list[Callable[[], None]]:
    name, argv, env, extra = program.name, program.argv, program.env, program.extra_args
    items: list[Callable[[], None]] = []
    if wanted & {"first", "chat"}:

        def chat() -> None:
            run = spawn_in_pty([*argv, *extra], env, project)
            if run.ready is None:
                raise SystemExit(f"{name}: the chat never became ready; screen:\n{run.screen}")
            figures.add(name, "first frame", run.first_frame)
            figures.add(name, "chat ready", run.ready, run.cpu)

        items.append(chat)
    if "resumed" in wanted and session_path is not None:

        def resumed() -> None:
            run = spawn_in_pty(
                [*argv, *extra, "--session", str(session_path)],
                env,
                project,
                painted_text=PAINTED_TEXT,
            )
            if run.ready is None:
                raise SystemExit(f"{name}: the resumed session never became ready; screen:\n{run.screen}")
            figures.add(name, "resumed ready", run.ready, run.cpu)
            figures.add(name, "resumed painted", run.painted)

        items.append(resumed)
    if "print" in wanted:
        items.append(
            lambda: figures.add(
                name,
                "-p hi",
                *wall_time([*argv, *extra, "--no-session", "-p", "hi"], env, project, expect="loopback"),
            )
        )
    if "version" in wanted:
        items.append(lambda: figures.add(name, "--version", *wall_time([*argv, "--version"], env, project)))
    return items


def transport(runs: int) -> None:
    """The SDK against a thin streaming client, one request each in a fresh process (see the docstring)."""
    figures = Figures()
    with tempfile.TemporaryDirectory(prefix="pi-tui-transport-") as scratch, LoopbackServer() as server:
        cwd = Path(scratch)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        commands = {
            "python -c 'import asyncio'": ([sys.executable, "-c", "import asyncio"], None),
            "OpenAI SDK": ([sys.executable, "-c", SDK_REQUEST, server.base_url, MODEL_ID], "loopback"),
            "thin httpx2 client": (
                [sys.executable, "-c", THIN_REQUEST, server.base_url, MODEL_ID],
                "loopback",
            ),
        }
        items = [
            (
                lambda name=name, argv=argv, expect=expect: figures.add(
                    name, "request", *wall_time(argv, env, cwd, expect=expect)
                )
            )
            for name, (argv, expect) in commands.items()
        ]
        for item in items:  # warm the bytecode caches
            item()
        figures.samples.clear()
        rounds(runs, items)
    load = os.getloadavg()
    print(
        f"one streamed request from a fresh process, median of {runs} alternating runs"
        f" (load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f})"
    )
    for name in commands:
        wall, cpu = figures.median(name, "request"), figures.median(name, "request (CPU)")
        print(f"  {name:<28} {wall:6.0f} ms wall  {cpu:6.0f} ms CPU")


# Runs pi-tui with fd 2 (where `-X importtime` writes) on a file and Textual's output (sys.__stderr__) on
# the terminal, the way the `pi-tui` script would start it.
_IMPORT_PROFILE_LAUNCHER = (
    "import os, sys\n"
    "terminal = os.dup(2)\n"
    "os.dup2(os.open(os.environ['PI_TUI_IMPORT_LOG'], os.O_WRONLY | os.O_CREAT | os.O_TRUNC), 2)\n"
    "sys.stderr = sys.__stderr__ = open(terminal, 'w')\n"
    "sys.argv = ['pi-tui', *sys.argv[1:]]\n"
    "from pi_tui.cli import main\n"
    "raise SystemExit(main())\n"
)


def import_profile() -> None:
    """The modules imported before the chat is ready, their own time summed per package."""
    with tempfile.TemporaryDirectory(prefix="pi-tui-imports-") as scratch_name, LoopbackServer() as server:
        scratch = Path(scratch_name)
        project = scratch / "project"
        project.mkdir()
        program = programs(scratch, server, None)[0]
        log = scratch / "importtime.txt"
        env = {**program.env, "PI_TUI_IMPORT_LOG": str(log)}
        command = [sys.executable, "-X", "importtime", "-c", _IMPORT_PROFILE_LAUNCHER, *program.extra_args]
        spawn_in_pty(command, env, project)  # warms the bytecode caches
        run = spawn_in_pty(command, env, project)
        if run.ready is None:
            raise SystemExit(f"pi-tui: the chat never became ready; screen:\n{run.screen}")
        groups: dict[str, float] = {}
        for line in log.read_text().splitlines():
            parts = line.removeprefix("import time:").split("|")
            if len(parts) != 3 or not parts[0].strip().isdigit():
                continue
            name = parts[2].strip()
            top = name.split(".")
            key = ".".join(top[:2]) if top[0] == "pi_tui" and len(top) > 1 else top[0]
            groups[key] = groups.get(key, 0.0) + int(parts[0]) / 1000
    load = os.getloadavg()
    total = sum(groups.values())
    print(
        f"imports before the chat is ready: {total:.0f} ms of {run.ready * 1000:.0f} ms to ready,"
        f" CPU {run.cpu * 1000:.0f} ms (one run, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f};"
        " -X importtime adds its own cost)"
    )
    shown = sorted(groups.items(), key=lambda item: -item[1])
    for name, ms in shown:
        if ms >= 10:
            print(f"  {ms:6.0f} ms  {ms / total:5.1%}  {name}")
    rest = [ms for _, ms in shown if ms < 10]
    print(f"  {sum(rest):6.0f} ms  {sum(rest) / total:5.1%}  {len(rest)} other packages under 10 ms each")


def report(figures: Figures, listed: list[Program], runs: int) -> None:
    load = os.getloadavg()
    print(
        f"pi-tui startup benchmark: a {COLUMNS}x{LINES} pty, median of {runs} alternating runs"
        f" (load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, {os.cpu_count()} cores)"
    )
    base, base_cpu = figures.median("python -c pass", "exit"), figures.median("python -c pass", "exit (CPU)")
    print(f"baseline python -c pass: {base:.0f} ms (CPU {base_cpu:.0f} ms)")
    pi16 = "pi 1.6" if any(p.name == "pi 1.6" for p in listed) else None
    rows: list[tuple[str, ...]] = []
    for what in ("first frame", "chat ready", "resumed ready", "resumed painted", "-p hi", "--version"):
        mine = figures.median("pi-tui", what)
        if mine is None:
            continue
        theirs = figures.median(pi16, what) if pi16 else None
        cpu_mine = figures.median("pi-tui", f"{what} (CPU)")
        cpu_theirs = figures.median(pi16, f"{what} (CPU)") if pi16 else None
        target, verdict = _target(figures, what, mine, theirs)
        rows.append(
            (
                what,
                f"{mine:.0f} ms",
                f"{theirs:.0f} ms" if theirs else "-",
                f"{mine / theirs:.2f}x" if theirs else "-",
                f"{mine / base:.0f}x" if base else "-",
                f"{target} {verdict}".strip(),
                f"{cpu_mine:.0f} / {cpu_theirs:.0f} ms" if cpu_mine and cpu_theirs else "-",
                f"{cpu_mine / cpu_theirs:.2f}x" if cpu_mine and cpu_theirs else "-",
            )
        )
    header = (
        "",
        "pi-tui",
        "pi 1.6" if pi16 else "pi 1.6 (unset)",
        "ratio",
        "/ python -c pass",
        "target",
        "CPU",
        "CPU ratio",
    )
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())
    for program in ["pi-tui", *([pi16] if pi16 else [])]:
        spread = {w: (min(v), max(v)) for (p, w), v in figures.samples.items() if p == program}
        print(f"{program} min-max: " + "; ".join(f"{w} {lo:.0f}-{hi:.0f}" for w, (lo, hi) in spread.items()))


def _target(figures: Figures, what: str, mine: float, theirs: float | None) -> tuple[str, str]:
    """The issue's target for one figure and whether this run met it."""
    if what in ("chat ready", "-p hi") and theirs:
        return "<= 1.0x pi 1.6", "ok" if mine <= theirs else "MISSED"
    if what == "resumed ready":
        chat = figures.median("pi-tui", "chat ready")
        if chat:
            return f"<= 1.5x chat ready ({mine / chat:.2f}x)", "ok" if mine <= 1.5 * chat else "MISSED"
    if what == "resumed painted":
        return "<= 400 ms", "ok" if mine <= 400 else "MISSED"
    return "", "info"


if __name__ == "__main__":
    main()
