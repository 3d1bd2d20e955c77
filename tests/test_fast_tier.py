"""`make test-fast` leaves out every test that drives the app, starts a process or is slow."""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

import pytest
import textual.app

from tests.support import fast_tier
from tests.support.fast_tier import TESTS, full_only_reason, refuse_pilot


class _Item:
    """What `full_only_reason` reads of a collected test."""

    def __init__(
        self,
        path: Path,
        module: ModuleType,
        fixturenames: tuple[str, ...] = (),
        slow: bool = False,
    ) -> None:
        self.path = path
        self.module = module
        self.fixturenames = fixturenames
        self._slow = slow

    def get_closest_marker(self, name: str) -> object | None:
        return object() if name == "slow" and self._slow else None


def _module(name: str = "tests.session.test_plain", **names: object) -> ModuleType:
    module = ModuleType(name)
    vars(module).update(names)
    return module


def _reason(item: _Item) -> str | None:
    return full_only_reason(item)  # type: ignore[arg-type]


PLAIN = TESTS / "session" / "test_plain.py"


def test_a_plain_test_is_in_the_fast_tier() -> None:
    assert _reason(_Item(PLAIN, _module(Path=Path, pytest=pytest))) is None


@pytest.mark.parametrize("folder", ["tui", "e2e", "live", "interop"])
def test_app_and_process_folders_are_full_only(folder: str) -> None:
    assert _reason(_Item(TESTS / folder / "test_x.py", _module())) == f"in tests/{folder}"


@pytest.mark.parametrize("fixture", ["snap_compare", "pytester"])
def test_snapshot_and_inner_pytest_fixtures_are_full_only(fixture: str) -> None:
    assert _reason(_Item(PLAIN, _module(), fixturenames=("tmp_path", fixture))) == f"uses {fixture}"


def test_the_slow_marker_is_full_only() -> None:
    assert _reason(_Item(PLAIN, _module(), slow=True)) == "marked slow"


# This module holds no app class, process module or spawning helper itself, or it would be full-only too.
def _some_app() -> type[textual.app.App[None]]:
    return type("SomeApp", (textual.app.App,), {})


def test_a_module_holding_an_app_class_is_full_only() -> None:
    assert _reason(_Item(PLAIN, _module(SomeApp=_some_app()))) == "its module uses SomeApp"


def test_a_module_taking_a_spawning_module_or_its_names_is_full_only() -> None:
    spawning = importlib.import_module("subprocess")
    assert _reason(_Item(PLAIN, _module(subprocess=spawning))) == "its module uses subprocess"
    assert _reason(_Item(PLAIN, _module(run=spawning.run))) == "its module uses run"


HELPERS = """
import asyncio

async def run_cli():
    await asyncio.create_subprocess_exec("true")

async def prompt():
    await run_cli()
"""


def test_a_test_helper_that_starts_a_process_marks_its_users_even_through_another_helper() -> None:
    # As tests/modes/test_print_mode.py's run_cli, borrowed by other modules directly or through a helper.
    helpers = _module("tests.modes.test_helpers")
    exec(compile(HELPERS, str(TESTS / "modes" / "test_helpers.py"), "exec"), vars(helpers))
    assert _reason(_Item(PLAIN, _module(run_cli=helpers.run_cli))) == "its module uses run_cli"
    assert _reason(_Item(PLAIN, _module(prompt=helpers.prompt))) == "its module uses prompt"


def test_this_module_is_in_the_fast_tier(request: pytest.FixtureRequest) -> None:
    assert full_only_reason(request.node) is None


def test_a_pilot_outside_the_full_tier_fails_at_once() -> None:
    # conftest puts refuse_pilot in App.run_test for every test the fast tier would hold, this one included.
    assert textual.app.App.run_test is refuse_pilot  # type: ignore[comparison-overlap]
    with pytest.raises(fast_tier.PilotInFastTier, match="full_only_reason"):
        _some_app()().run_test()
