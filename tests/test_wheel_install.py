"""pi-tui installed from its wheel, away from the source tree: the built-in themes, skills and README come
from inside the installed package, and `pi-tui --demo` plays to the end in a terminal and quits on ctrl+q.

The wheel is built offline (no build isolation: hatchling comes with the dev dependencies) and unpacked
with `pip install --target`; the programs run from an empty folder with only that folder on PYTHONPATH,
so the package and everything it ships are the wheel's. Its dependencies are this environment's."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import signal
import struct
import subprocess
import sys
import termios
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.waiting import until_sync

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
BUILT_IN_SKILLS = {"context-budget", "fix-failing-test", "git-commit"}
DEMO_LAST_WORDS = "I changed one line"
CTRL_Q = b"\x11"

REPORT = """
import json, sys
from pathlib import Path
import pi_tui
from pi_tui.context.resources import load_resources, package_readme_path
from pi_tui.tui.theming import builtin_themes

project = Path(sys.argv[1])
resources = load_resources(project, home=project, agent_home=project / "home")
print(json.dumps({
    "package": pi_tui.__file__,
    "themes": [theme.name for theme in builtin_themes()],
    "skills": [[s.name, str(s.file_path), s.source] for s in resources.skills],
    "problems": resources.problems(),
    "readme": str(package_readme_path()),
    "prompt": resources.system_prompt(tools=[], date=__import__("datetime").date(2026, 1, 1)).text,
}))
"""


def _pip(*args: str) -> None:
    command = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input", *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder the wheel was installed into."""
    base = tmp_path_factory.mktemp("wheel")
    dist, site = base / "dist", base / "site"
    _pip("wheel", "--no-deps", "--no-build-isolation", "--no-index", "--wheel-dir", str(dist), str(ROOT))
    [wheel] = dist.glob("pi_tui-*.whl")
    _pip("install", "--no-deps", "--no-index", "--target", str(site), str(wheel))
    return site


def _environment(installed: Path, tmp_path: Path) -> dict[str, str]:
    environment = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    return {
        **environment,
        "PYTHONPATH": str(installed),
        "PI_TUI_HOME": str(tmp_path / "home"),
        "TMPDIR": str(tmp_path / "tmp"),
        "TERM": "xterm-256color",
    }


def test_themes_skills_and_readme_come_from_the_installed_package(installed: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    done = subprocess.run(
        [sys.executable, "-c", REPORT, str(project)],
        cwd=project,
        env=_environment(installed, tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    shipped = installed.resolve() / "pi_tui" / "_data"
    assert Path(report["package"]).resolve() == installed.resolve() / "pi_tui" / "__init__.py"
    assert report["themes"] == ["pi-dark", "pi-light"]
    assert {name for name, _, _ in report["skills"]} == BUILT_IN_SKILLS
    for name, path, source in report["skills"]:
        assert (source, Path(path)) == ("builtin", shipped / "skills" / name / "SKILL.md")
    assert report["problems"] == []
    assert Path(report["readme"]) == shipped / "README.md"
    assert f"- README: {shipped / 'README.md'}" in report["prompt"]  # the model can read pi-tui's docs


@pytest.fixture
def terminal() -> Iterator[tuple[int, int]]:
    """A pseudo-terminal of 120x40: (the program's end, ours)."""
    ours, program = pty.openpty()
    fcntl.ioctl(program, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    try:
        yield program, ours
    finally:
        os.close(ours)


def _drain(fd: int, screen: bytearray) -> None:
    """Read the program's output as it comes (a full terminal buffer would stop the program)."""
    while True:
        try:
            data = os.read(fd, 65536)
        except OSError:  # the program's end was closed: it exited
            return
        if not data:
            return
        screen += data


def _demo_finished(tmp_path: Path) -> bool:
    sessions = (tmp_path / "tmp").glob("pi-tui-demo-*/sessions/**/*.jsonl")
    return any(DEMO_LAST_WORDS in path.read_text(errors="replace") for path in sessions)


def test_the_demo_plays_to_the_end_and_quits(
    installed: Path, tmp_path: Path, terminal: tuple[int, int]
) -> None:
    program_end, our_end = terminal
    (tmp_path / "tmp").mkdir()
    process = subprocess.Popen(
        [sys.executable, "-m", "pi_tui", "--demo"],
        cwd=tmp_path,
        env=_environment(installed, tmp_path),
        stdin=program_end,
        stdout=program_end,
        stderr=program_end,
        start_new_session=True,
    )
    os.close(program_end)
    screen = bytearray()
    reader = threading.Thread(target=_drain, args=(our_end, screen), daemon=True)
    reader.start()
    try:
        until_sync(
            lambda: _demo_finished(tmp_path) or process.poll() is not None,
            timeout=180,
            what="the demo's last answer in its session file",
            interval=0.25,
        )
        assert process.poll() is None, bytes(screen[-2000:]).decode(errors="replace")
        [greet] = (tmp_path / "tmp").glob("pi-tui-demo-*/greeter/greet.py")
        assert 'return f"Hello, {name}!"' in greet.read_text()  # the demo's edit, made by its tools
        os.write(our_end, CTRL_Q)
        code = process.wait(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()

    assert code == 0, bytes(screen[-2000:]).decode(errors="replace")
    assert list((tmp_path / "tmp").glob("pi-tui-demo-*")) == []  # the throwaway project went with the demo
