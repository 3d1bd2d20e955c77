"""A hung test fails on its own, with the stack it hung in, instead of holding the whole run."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

_PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def _pytest_options() -> dict[str, object]:
    with _PYPROJECT.open("rb") as file:
        options: dict[str, object] = tomllib.load(file)["tool"]["pytest"]["ini_options"]
    return options


def test_the_suite_times_out_each_test_by_thread() -> None:
    options = _pytest_options()
    assert options["timeout"] == 300
    # The signal method raises inside the test, which an asyncio loop or a Pilot can swallow and keep waiting.
    assert options["timeout_method"] == "thread"


def test_a_sleeping_test_fails_with_its_stack(pytester: pytest.Pytester) -> None:
    # The inner run sits outside the repository, so it gets the suite's method from here, not from pyproject.
    pytester.makeini(f"[pytest]\ntimeout_method = {_pytest_options()['timeout_method']}\n")
    pytester.makepyfile(
        """
        import time

        def sleep_far_past_the_limit():
            time.sleep(30)

        def test_hangs():
            sleep_far_past_the_limit()
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:xdist", "-p", "no:randomly", "--timeout=1")
    output = result.stdout.str() + result.stderr.str()
    assert result.ret != 0
    assert "Timeout" in output
    assert "sleep_far_past_the_limit" in output
