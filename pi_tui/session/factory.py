"""Build the session runtime a front end asked for: model, session file, services of the session's cwd.

Problems come back as text lines, not exceptions, so the TUI can show them in its setup notice and
the headless modes can print them to stderr.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pi_tui.ai.messages import ThinkingLevel
from pi_tui.ai.stream import StreamFunction
from pi_tui.config.approval_mode import ApprovalSetting
from pi_tui.config.bounds import reserve_notes
from pi_tui.config.models import resolve_model
from pi_tui.config.project_trust import trust_project_settings
from pi_tui.config.settings_files import load_settings
from pi_tui.session.runtime import AgentSessionRuntime, RuntimeOptions, recorded_model
from pi_tui.session.services import AgentSessionServices
from pi_tui.session.store_opening import SessionChoice, SessionOpenError, open_store


@dataclass(frozen=True)
class ModelChoice:
    ref: str | None = None
    base_url: str | None = None
    api_key: str | None = None


@dataclass
class RuntimeSetup:
    runtime: AgentSessionRuntime | None
    problems: list[str] = field(default_factory=list)
    """Every warning and error met on the way, one line each; `runtime` is None when one was fatal."""


def create_runtime(
    cwd: str,
    *,
    model: ModelChoice,
    choice: SessionChoice,
    thinking: ThinkingLevel | None = None,
    tools: Sequence[str] | None = None,
    stream_fn: StreamFunction | None = None,
    cwd_override: bool = False,
    approve: ApprovalSetting = False,
    trust_project: bool = False,
) -> RuntimeSetup:
    """`trust_project` (`--trust-project`): trust the session's project settings file as it is now."""
    problems: list[str] = []
    ref = model.ref or load_settings(cwd).settings.default_model
    resolution = resolve_model(ref, model.base_url, model.api_key)
    problems += [str(diagnostic) for diagnostic in resolution.diagnostics]
    if resolution.model is None:
        return RuntimeSetup(None, problems)
    try:
        store = open_store(choice, cwd, cwd_override=cwd_override)
    except SessionOpenError as error:
        return RuntimeSetup(None, [*problems, str(error)])
    chosen_model, api_key = resolution.model, resolution.api_key
    # A continued session keeps its own model when nothing was asked for explicitly and that model is
    # configured with a key, as in pi; otherwise the default applies.
    if model.ref is None and model.base_url is None and store.entries:
        restored = recorded_model(store)
        if restored is not None:
            chosen_model, api_key = restored
    if trust_project:
        try:
            trust_project_settings(store.cwd)
        except OSError as error:
            problems.append(f"cannot record the trust in this project: {error}")
    services = AgentSessionServices.for_cwd(Path(store.cwd))
    resources = services.resources
    problems += resources.problems()
    problems += reserve_notes(resources.settings, chosen_model.context_window, chosen_model.ref)
    options = RuntimeOptions(
        model=chosen_model,
        api_key=api_key,
        thinking_level=thinking,
        tool_names=tools,
        stream_fn=stream_fn,
        approve=approve,
    )
    return RuntimeSetup(AgentSessionRuntime(store, options, services), problems)
