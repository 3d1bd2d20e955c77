"""The README's pictures are snapshots of scenarios (tests/tui/readme_pictures.py), regenerated with
`make screenshots`: each picture the README shows has its scenario, each is the scenario's current
snapshot, and the generator draws what the snapshot test draws (plain `def` tests: snap_compare runs its
own loop)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from .readme_pictures import PICTURES, SCENARIOS, draw
from .scenarios import fix_world

README = PICTURES.parents[1] / "README.md"
SNAPSHOTS = Path(__file__).parent / "__snapshots__" / "test_readme_pictures"


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_readme_picture(
    snap_compare: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    scenario = SCENARIOS[name]
    fix_world(monkeypatch, tmp_path)
    app = scenario.build(tmp_path)
    assert snap_compare(app, terminal_size=scenario.size, run_before=scenario.run_before)


def test_every_picture_the_readme_shows_has_a_scenario_and_no_other_is_kept() -> None:
    shown = re.findall(r"\]\(docs/screenshots/([\w-]+)\.svg\)", README.read_text())
    assert len(shown) == len(set(shown))
    assert set(shown) == set(SCENARIOS)
    assert {path.stem for path in PICTURES.glob("*")} == set(SCENARIOS)


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_each_picture_is_its_scenarios_snapshot(name: str) -> None:
    """After `--snapshot-update` changed a scenario's snapshot, `make screenshots` brings the README along."""
    snapshot = SNAPSHOTS / f"test_readme_picture[{name}].svg"
    assert (PICTURES / f"{name}.svg").read_text() == snapshot.read_text()


def test_the_generator_draws_what_the_snapshot_test_draws(tmp_path: Path) -> None:
    assert draw(SCENARIOS["chat"], tmp_path) == (PICTURES / "chat.svg").read_text()
