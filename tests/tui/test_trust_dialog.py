"""The start-up question when a project's settings choose how commands run (docs/reliability.md, section 13):
t trusts (remembered, the keys apply at once), n / Esc leave them ignored; the approval dialog then
names the shell and prefix a command runs with."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from textual.widgets import Static

from pi_tui.ai.scripted import ScriptedProvider, ScriptedReply, ScriptedToolCall
from pi_tui.config.project_trust import trusted_projects_path
from pi_tui.context.resources import load_resources
from pi_tui.session.approval import describe_shell
from pi_tui.session.runtime import AgentSessionRuntime, RuntimeOptions
from pi_tui.session.services import AgentSessionServices
from pi_tui.session_file.store import SessionStore
from pi_tui.tools.shell_run import resolve_shell
from pi_tui.tui.app import PiTuiApp
from pi_tui.tui.screens.approval_dialog import ApprovalDialog
from pi_tui.tui.screens.trust_dialog import TrustProjectDialog
from tests.support.waiting import until

from .chat_fixtures import MODEL
from .pilot_helpers import settle

SIZE = (120, 40)


def trust_app(tmp_path: Path, replies: list[ScriptedReply]) -> tuple[PiTuiApp, AgentSessionRuntime, Path]:
    home = Path(os.environ["PI_TUI_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "settings.json").write_text(json.dumps({"approval": True}))
    project = tmp_path / "project"
    (project / ".pi-tui").mkdir(parents=True)
    prefix = "export MARK=from-prefix"
    (project / ".pi-tui" / "settings.json").write_text(
        json.dumps({"approval": False, "shellPath": "/bin/sh", "shellCommandPrefix": prefix})
    )

    def services(cwd: Path) -> AgentSessionServices:
        return AgentSessionServices(cwd, load_resources(cwd, home=tmp_path, include_builtin=False))

    options = RuntimeOptions(
        model=MODEL, api_key="unused", stream_fn=ScriptedProvider(replies), services_factory=services
    )
    runtime = AgentSessionRuntime(SessionStore.create(str(project), tmp_path / "sessions"), options)
    app = PiTuiApp(
        cwd=project,
        session_root=tmp_path / "sessions",
        pi_session_root=tmp_path / "pi",
        setup_notice="",
        runtime=runtime,
    )
    return app, runtime, project


async def trust_dialog(app: Any) -> TrustProjectDialog:
    await until(
        lambda: isinstance(app.screen, TrustProjectDialog) and bool(app.screen.query("#trust-body")),
        what="the trust dialog, composed",
    )
    assert isinstance(app.screen, TrustProjectDialog)
    return app.screen


def bash(command: str) -> ScriptedReply:
    return ScriptedReply(tool_calls=[ScriptedToolCall(name="bash", arguments={"command": command})])


async def test_trusting_applies_the_project_keys_and_remembers_them(tmp_path: Path) -> None:
    app, runtime, project = trust_app(tmp_path, [bash("echo $MARK"), ScriptedReply(text="ok")])
    async with app.run_test(size=SIZE) as pilot:
        dialog = await trust_dialog(app)
        body = str(dialog.query_one("#trust-body", Static).render())
        assert "approval" not in body and 'shellPath: "/bin/sh"' in body  # a project cannot lower it
        assert 'shellCommandPrefix: "export MARK=from-prefix"' in body
        assert runtime.session.approval.enabled  # until trusted, the user's approval holds

        await pilot.press("t")
        await until(lambda: runtime.session.resources.untrusted_project is None, what="settings re-read")
        session = runtime.session
        assert session.resources.settings.shell_path == "/bin/sh"
        assert session.approval.mode == "edits"  # trusted or not, the project's false lowers nothing
        record = json.loads(trusted_projects_path().read_text())["projects"][str(project.resolve())]
        assert len(record["sha256"]) == 64

        await pilot.press(*"go", "enter")
        await until(lambda: isinstance(app.screen, ApprovalDialog), pilot=pilot, what="the approval question")
        await pilot.press("y")
        await until(lambda: not session.is_running, pilot=pilot, what="the run to end")
        results = [m for m in session.agent.state.messages if getattr(m, "role", "") == "toolResult"]
        assert "from-prefix" in results[0].content[0].text  # the trusted prefix ran


async def test_not_now_keeps_the_keys_ignored_and_the_approval_names_the_shell(tmp_path: Path) -> None:
    app, runtime, _ = trust_app(tmp_path, [bash("touch asked.txt"), ScriptedReply(text="ok")])
    async with app.run_test(size=SIZE) as pilot:
        await trust_dialog(app)
        await pilot.press("n")
        await until(lambda: not isinstance(app.screen, TrustProjectDialog), what="the dialog to close")
        assert runtime.session.resources.settings.shell_path is None
        assert not trusted_projects_path().exists()

        await pilot.press(*"go", "enter")
        await until(lambda: isinstance(app.screen, ApprovalDialog), pilot=pilot, what="the approval question")
        shell = str(app.screen.query_one("#approval-shell", Static).render())
        assert shell == f"runs in: {resolve_shell(None)}"  # the user's shell, not the project's; no prefix
        await pilot.press("n")
        await settle(pilot)


def test_the_approval_question_names_a_chosen_shell_and_its_prefix() -> None:
    text = describe_shell("/bin/sh", "set -e\nexport A=1")
    assert text == "runs in: /bin/sh\nafter the prefix (shellCommandPrefix):\nset -e\nexport A=1"
    assert "not found" in describe_shell("/no/such/shell", None)
