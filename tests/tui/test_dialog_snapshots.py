"""Every dialog, opened from a real chat as a user opens it (a slash command, a key), as an SVG snapshot at
120x36, the important ones at 80x24 too: the judge that a dialog keeps its looks (plain `def` tests:
snap_compare runs its own loop). The README's dialogs (session picker, tree, approval) are in
test_readme_pictures.py at 120x40."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from textual.app import App

from pi_tui.ai.scripted import ScriptedReply, ScriptedToolCall, ScriptedUsage
from pi_tui.config.settings import CompactionSettings, Settings
from pi_tui.tui.screens.approval_dialog import ApprovalDialog
from pi_tui.tui.screens.confirm_compaction import ConfirmCompactionDialog
from pi_tui.tui.screens.dialogs import ChoiceDialog, InfoDialog, TextDialog
from pi_tui.tui.screens.recompact_dialog import RecompactDialog
from pi_tui.tui.screens.session_picker import SessionPicker
from pi_tui.tui.screens.tree_dialog import TreeDialog

from .chat_fixtures import make_chat_app
from .readme_pictures import AUTO_COMPACTION, approval_chat, sessions_to_resume
from .scenarios import Scenario, fix_world, keys_then_steady, pi_chat, typed

TREE = pi_chat("f-tree.jsonl")


def chat_with_models(folder: Path) -> App[Any]:
    """The chat on pi's compacted session, with two models in models.json to choose from."""
    home = Path(os.environ["PI_TUI_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    models = [
        {"id": "coder-large", "contextWindow": 128000, "maxTokens": 8000, "reasoning": True},
        {"id": "coder-small", "contextWindow": 32000, "maxTokens": 4000, "reasoning": False},
    ]
    provider = {"baseUrl": "http://127.0.0.1:9/v1", "api": "openai-completions", "models": models}
    (home / "models.json").write_text(json.dumps({"providers": {"local": provider}}))
    return AUTO_COMPACTION(folder)


def edit_approval_chat(folder: Path) -> App[Any]:
    """Approval mode on; the model's answer is an edit, shown as its diff."""
    edit = {
        "oldText": "def greet(name):\n    return 'Hello ' + name",
        "newText": "def greet(name):\n    return f'Hello, {name}!'",
    }
    call = ScriptedToolCall(name="edit", arguments={"path": "greet.py", "edits": [edit]})
    app, _, _ = make_chat_app(folder, [ScriptedReply(tool_calls=[call])], settings=Settings(approval=True))
    return app


def chat_that_asks_before_compacting(folder: Path) -> App[Any]:
    """`compaction.confirm` on; the first reply's usage passes the threshold."""
    big = ScriptedUsage(input=31_500, output=100)
    replies = [ScriptedReply(text="first " * 20, usage=big)]
    settings = Settings(
        compaction=CompactionSettings(reserve_tokens=1000, keep_recent_tokens=10, confirm=True)
    )
    app, _, _ = make_chat_app(folder, replies, settings=settings)
    return app


BRANCH_SUMMARY = ("up", "enter")
"""In /tree: the entry before the current one, chosen."""

DIALOGS: dict[str, tuple[Scenario, bool]] = {
    # name: (scenario, also at 80x24)
    "model": (Scenario(chat_with_models, keys_then_steady("ctrl+l", wait_for=ChoiceDialog)), True),
    "settings": (
        Scenario(AUTO_COMPACTION, keys_then_steady(*typed("/settings"), wait_for=ChoiceDialog)),
        False,
    ),
    "fork": (Scenario(AUTO_COMPACTION, keys_then_steady(*typed("/fork"), wait_for=ChoiceDialog)), False),
    "compact-preview": (
        Scenario(AUTO_COMPACTION, keys_then_steady(*typed("/compact --preview"), wait_for=InfoDialog)),
        False,
    ),
    "restore": (Scenario(AUTO_COMPACTION, keys_then_steady("f4", "r", wait_for=ChoiceDialog)), True),
    "recompact": (Scenario(AUTO_COMPACTION, keys_then_steady("f4", "c", wait_for=RecompactDialog)), True),
    "resume": (
        Scenario(sessions_to_resume, keys_then_steady(*typed("/resume"), wait_for=SessionPicker)),
        True,
    ),
    "tree": (Scenario(TREE, keys_then_steady(*typed("/tree"), wait_for=TreeDialog)), True),
    "branch-summary": (
        Scenario(TREE, keys_then_steady(*typed("/tree"), *BRANCH_SUMMARY, wait_for=ChoiceDialog)),
        True,
    ),
    "branch-summary-prompt": (
        Scenario(
            TREE,
            keys_then_steady(*typed("/tree"), *BRANCH_SUMMARY, "down", "down", "enter", wait_for=TextDialog),
        ),
        False,
    ),
    "approval-bash": (
        Scenario(approval_chat, keys_then_steady(*typed("rebuild dist"), wait_for=ApprovalDialog)),
        True,
    ),
    "approval-edit": (
        Scenario(edit_approval_chat, keys_then_steady(*typed("fix greet"), wait_for=ApprovalDialog)),
        False,
    ),
    "confirm-compaction": (
        Scenario(
            chat_that_asks_before_compacting,
            keys_then_steady(*typed("one"), wait_for=ConfirmCompactionDialog),
        ),
        True,
    ),
}
SIZES = {"120x36": (120, 36), "80x24": (80, 24)}
CASES = [
    (name, size) for name, (_, narrow) in DIALOGS.items() for size in SIZES if narrow or size == "120x36"
]


@pytest.mark.parametrize(("dialog", "size"), CASES)
def test_dialog(
    snap_compare: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, dialog: str, size: str
) -> None:
    scenario, _ = DIALOGS[dialog]
    fix_world(monkeypatch, tmp_path)
    # The countdown stands still: the picture shows where it starts.
    start_countdown = ConfirmCompactionDialog.set_interval

    def stopped_countdown(dialog: Any, *args: Any, **kwargs: Any) -> Any:
        return start_countdown(dialog, *args, **{**kwargs, "pause": True})

    monkeypatch.setattr(ConfirmCompactionDialog, "set_interval", stopped_countdown)
    app = scenario.build(tmp_path)
    assert snap_compare(app, terminal_size=SIZES[size], run_before=scenario.run_before)
