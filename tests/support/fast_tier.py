"""Which tests `make test-fast` leaves out: the full-only ones, marked `full_only` at collection.

A test is full-only when it drives the Textual app (Pilot, snapshots), starts a process (the CLI, git, a
shell, tmux, a pty, an inner pytest) or is slow by its own marker. It is found by where it lives, by the
fixtures it asks for, and by what its module takes from modules that drive the app or start processes or calls
itself; a Pilot that slips past all of these is stopped when it starts (`refuse_pilot`).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import CodeType, ModuleType

import pytest
from textual.app import App

MARKER = "full_only"

TESTS = Path(__file__).resolve().parents[1]

# Folders of app, browser, terminal and real-pi tests, every one of which drives the app or another process.
FULL_ONLY_FOLDERS = ("tui", "e2e", "live", "interop")

# snap_compare runs the app; pytester's inner runs are subprocesses here (tests/test_per_test_timeout.py).
FULL_ONLY_FIXTURES = frozenset({"snap_compare", "pytester", "testdir"})

# A module that takes a name from one of these drives the app or starts processes through it.
SPAWNING_MODULES = frozenset(
    {
        "subprocess",
        "pty",
        "tests.support.cli_process",
        "tests.support.git_repos",
        "tests.support.process_groups",
        "tests.support.crash_driver",
        # pi's recorded sessions call bash; replaying them runs the bash tool.
        "tests.support.pi_anthropic",
        "tests.support.pi_dialects",
        "pi_tui.tools.bash",
        "pi_tui.tools.shell_run",
        "pi_tui.tools.group_guard",
        "tests.tui.chat_fixtures",
        "tests.tui.pilot_helpers",
        "tests.tui.scenarios",
        "tests.tui.screen_capture",
    }
)


# Names a module's own code calls to start a process (asyncio's and subprocess's doors).
SPAWNING_CALLS = frozenset({"create_subprocess_exec", "create_subprocess_shell", "Popen", "forkpty"})


def _code_objects(code: CodeType) -> Iterator[CodeType]:
    yield code
    for const in code.co_consts:
        if isinstance(const, CodeType):
            yield from _code_objects(const)


def _is_test_code(value: object) -> bool:
    # By file, not module name: test modules outside a package import under their bare names.
    code = getattr(value, "__code__", None)
    return isinstance(code, CodeType) and TESTS in Path(code.co_filename).resolve().parents


def _spawns(function: object, seen: set[int]) -> bool:
    """Whether `function`, or a test helper it calls by a global name, starts a process."""
    if id(function) in seen:
        return False
    seen.add(id(function))
    code: CodeType = getattr(function, "__code__")  # noqa: B009
    namespace: dict[str, object] = getattr(function, "__globals__", {})
    for inner in _code_objects(code):
        if SPAWNING_CALLS.intersection(inner.co_names):
            return True
        for name in inner.co_names:
            callee = namespace.get(name)
            if _is_test_code(callee) and _spawns(callee, seen):
                return True
    return False


def _source_module(value: object) -> str | None:
    if isinstance(value, ModuleType):
        return value.__name__
    module = getattr(value, "__module__", None)
    return module if isinstance(module, str) else None


def spawning_name(module: ModuleType | None) -> str | None:
    """The first global of `module` that drives the app or starts processes, or None."""
    if module is None:
        return None
    for name, value in vars(module).items():
        if isinstance(value, type) and issubclass(value, App):
            return name
        source = _source_module(value)
        if source in SPAWNING_MODULES:
            return name
        # A helper borrowed from another test module starts processes as surely as one defined here.
        if _is_test_code(value) and _spawns(value, set()):
            return name
    return None


def full_only_reason(item: pytest.Item) -> str | None:
    """Why `item` stays out of the fast tier, or None when it belongs in it."""
    path = Path(str(item.path)).resolve()
    for folder in FULL_ONLY_FOLDERS:
        if TESTS / folder in path.parents:
            return f"in tests/{folder}"
    fixtures = FULL_ONLY_FIXTURES.intersection(getattr(item, "fixturenames", ()))
    if fixtures:
        return f"uses {min(fixtures)}"
    if item.get_closest_marker("slow") is not None:
        return "marked slow"
    name = spawning_name(getattr(item, "module", None))
    if name is not None:
        return f"its module uses {name}"
    return None


def mark_full_only(items: list[pytest.Item]) -> None:
    for item in items:
        reason = full_only_reason(item)
        if reason is not None:
            item.add_marker(pytest.mark.full_only(reason))


class PilotInFastTier(AssertionError):
    """A test the fast tier holds started the app: its module should be found by `full_only_reason`."""


def refuse_pilot(*_args: object, **_kwargs: object) -> None:
    raise PilotInFastTier(
        "this test runs the app under Pilot but is not marked full_only: "
        "teach tests/support/fast_tier.py:full_only_reason to find it"
    )
