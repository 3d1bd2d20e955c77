"""Start the interactive application (kept apart from the app so the CLI can import it cheaply)."""

from __future__ import annotations

import os
from pathlib import Path

from pi_tui.config.paths import pi_sessions_root, sessions_root
from pi_tui.config.setup_status import describe_model_setup


def run_interactive(*, session_dir: str | None = None) -> int:
    from pi_tui.tui.app import PiTuiApp

    app = PiTuiApp(
        cwd=Path(os.getcwd()),
        session_root=sessions_root(session_dir),
        pi_session_root=pi_sessions_root(),
        setup_notice=describe_model_setup(os.environ).text,
    )
    app.run()
    return app.return_code or 0
