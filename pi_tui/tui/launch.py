"""Start the interactive application (kept apart from the app so the CLI can import it cheaply)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from pi_tui.ai.messages import ThinkingLevel
from pi_tui.config.approval_mode import ApprovalSetting
from pi_tui.config.models import NO_MODEL_MESSAGE
from pi_tui.config.paths import pi_sessions_root, sessions_root
from pi_tui.config.setup_status import SetupStatus, describe_model_setup
from pi_tui.session.factory import ModelChoice, RuntimeSetup, create_runtime
from pi_tui.session.store_opening import SessionChoice


def run_interactive(
    *,
    model: ModelChoice,
    choice: SessionChoice,
    thinking: ThinkingLevel | None = None,
    tools: Sequence[str] | None = None,
    messages: Sequence[str] = (),
    cwd_override: bool = False,
    open_resume: bool = False,
    approve: ApprovalSetting = False,
    trust_project: bool = False,
) -> int:
    """With a usable model: the chat on a new (or the chosen) session; without: the start page, which
    explains the setup and still browses existing sessions."""
    from pi_tui.tui.app import PiTuiApp

    cwd = os.getcwd()
    setup = create_runtime(
        cwd,
        model=model,
        choice=choice,
        thinking=thinking,
        tools=tools,
        cwd_override=cwd_override,
        approve=approve,
        trust_project=trust_project,
    )

    notice = setup_notice(describe_model_setup(os.environ), setup)
    app = PiTuiApp(
        cwd=Path(cwd),
        session_root=sessions_root(choice.session_dir),
        pi_session_root=pi_sessions_root(),
        setup_notice=notice,
        runtime=setup.runtime,
        startup_warnings=setup.problems if setup.runtime is not None else [],
        initial_messages=list(messages),
        open_resume=open_resume,
        tune_gc=True,
    )
    app.run()
    return app.return_code or 0


def setup_notice(status: SetupStatus, setup: RuntimeSetup) -> str:
    """The start page's notice: how to set a model up, then what stopped the chat from opening."""
    if setup.runtime is not None:
        return status.text
    problems = setup.problems
    if not status.configured:  # the setup help already says it, in more words
        problems = [problem for problem in problems if NO_MODEL_MESSAGE not in problem]
    return "\n".join([status.text, *problems])


def run_demo() -> int:
    """`pi-tui --demo`: the chat on a scripted session in a throwaway project (removed when pi-tui exits)."""
    from pi_tui.session.demo import create_demo, demo_folder
    from pi_tui.tui.app import PiTuiApp

    demo = create_demo(demo_folder())
    app = PiTuiApp(
        cwd=demo.project,
        session_root=sessions_root(),
        pi_session_root=pi_sessions_root(),
        setup_notice="",
        runtime=demo.runtime,
        initial_messages=list(demo.prompts),
        demo=True,
        tune_gc=True,
    )
    app.run()
    return app.return_code or 0
