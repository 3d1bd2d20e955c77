"""`pi-tui --demo`: a scripted model works on a small real project, offline, so every pane has content.

The tools run for real in a throwaway project folder (a read, an edit, a bash command printing
200,000 lines); only the model is scripted. The model's window is small so that the run ends with an
automatic compaction that splits a turn, and one reply fails with a 503 to show a retry.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from pi_tui.ai.scripted import ScriptedProvider, ScriptedReply, ScriptedToolCall
from pi_tui.config.model_config import ModelConfig
from pi_tui.config.settings import CompactionSettings, RetrySettings, Settings
from pi_tui.context.resources import load_resources
from pi_tui.session.runtime import AgentSessionRuntime, RuntimeOptions
from pi_tui.session.services import AgentSessionServices
from pi_tui.session_file.store import SessionStore

DEMO_MODEL = ModelConfig(
    id="demo-model",
    name="Scripted demo model",
    provider="demo",
    base_url="http://demo.invalid/v1",
    context_window=16_000,
    max_tokens=2_000,
    reasoning=True,
)
DEMO_SETTINGS = Settings(
    compaction=CompactionSettings(reserve_tokens=8_000, keep_recent_tokens=2_000),
    retry=RetrySettings(base_delay_ms=1_500, max_retries=3),
)
CHUNK_DELAY_S = 0.012

GREET = """def greet(name):
    return "Hello " + name
"""
TEST_GREET = """from greet import greet


def test_greet():
    assert greet("Ada") == "Hello, Ada!"
"""
README = "# greeter\n\nA tiny project the pi-tui demo works on.\n"

PROMPTS = (
    "What is this project?",
    "The greeting test fails. Fix it, and run the build to check.",
    "What did you change, and what did the build print?",
)


@dataclass
class Demo:
    runtime: AgentSessionRuntime
    prompts: tuple[str, ...]
    project: Path


def _replies() -> list[ScriptedReply]:
    fix = {"oldText": '    return "Hello " + name', "newText": '    return f"Hello, {name}!"'}
    check = 'from greet import greet; assert greet("Ada") == "Hello, Ada!"; print("ok")'
    build = f"python3 -c '{check}' && seq 1 200000"
    return [
        ScriptedReply(tool_calls=[ScriptedToolCall(name="read", arguments={"path": "README.md"})]),
        ScriptedReply(
            text="A tiny Python project, **greeter**: `greet.py` builds a greeting; `test_greet.py` tests it."
        ),
        ScriptedReply(
            thinking="The user says a greeting test fails. I should read the code before changing anything.",
            text="Let me look at the code first.",
            tool_calls=[ScriptedToolCall(name="read", arguments={"path": "greet.py"})],
        ),
        ScriptedReply(
            text="The test expects `Hello, Ada!` but `greet` returns `Hello Ada`. Fixing the format:",
            tool_calls=[ScriptedToolCall(name="edit", arguments={"path": "greet.py", "edits": [fix]})],
        ),
        ScriptedReply(
            text="Now the build, which is chatty:",
            tool_calls=[ScriptedToolCall(name="bash", arguments={"command": build})],
        ),
        ScriptedReply(error="503 Service Unavailable: the demo server is briefly overloaded"),
        ScriptedReply(
            text=(
                "Fixed. `greet` now returns `Hello, Ada!`, the check printed `ok`, and the build counted "
                "to 200,000. Only the last 2,000 lines of that output are in my context; the full output is "
                "in the spill file (see the **Tools** pane, F3)."
            )
        ),
        ScriptedReply(
            text=(
                "## Goal\nFix the failing greeting test in the greeter project.\n\n"
                "## Constraints & Preferences\n(none)\n\n## Progress\n### Done\n"
                "- [x] Read greet.py\n- [x] Changed greet to return `Hello, {name}!`\n\n"
                "### In Progress\n- [ ] Confirm the build\n\n### Blocked\n(none)\n\n"
                "## Key Decisions\n- **f-string**: matches the test's expected punctuation\n\n"
                "## Next Steps\n1. Report the change\n\n## Critical Context\n- greet.py"
            )
        ),
        ScriptedReply(
            text=(
                "## Original Request\nRun the build after the fix.\n\n## Early Progress\n"
                "- Ran the check and a build printing 200,000 lines\n\n## Context for Suffix\n"
                "- The check printed ok; the output ends at 200000"
            )
        ),
        ScriptedReply(
            text=(
                'I changed one line in `greet.py`: `greet` returns `f"Hello, {name}!"` instead of '
                '`"Hello " + name`. The check printed `ok` and the build printed 200,000 lines. '
                "The older part of our conversation was compacted to stay within the window: open the "
                "**Compactions** pane (F4) to read the summary, its diff and its loss audit."
            )
        ),
        *[
            ScriptedReply(
                text=(
                    "This is pi-tui's scripted demo model: it has no more scripted work. Try `/compact "
                    "--preview`, `/tree`, the **Context** pane (F2) or `!ls` to run a shell command yourself."
                )
            )
            for _ in range(20)
        ],
    ]


def demo_folder() -> Path:
    """A new folder for one demo, removed when pi-tui exits: the demo's 200,000-line command output and
    its session left about 1.4 MB in the temporary folder per run (issue #27 item 13)."""
    folder = Path(tempfile.mkdtemp(prefix="pi-tui-demo-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


def create_demo(base: Path) -> Demo:
    """A project under `base` and a runtime whose sessions are filed there too."""
    project = base / "greeter"
    project.mkdir(parents=True, exist_ok=True)
    (project / "greet.py").write_text(GREET)
    (project / "test_greet.py").write_text(TEST_GREET)
    (project / "README.md").write_text(README)

    def services(cwd: Path) -> AgentSessionServices:
        return AgentSessionServices(cwd=cwd, resources=load_resources(cwd, settings=DEMO_SETTINGS))

    provider = ScriptedProvider(_replies())
    provider.delay_s = CHUNK_DELAY_S
    store = SessionStore.create(str(project), base / "sessions")
    runtime = AgentSessionRuntime(
        store,
        RuntimeOptions(model=DEMO_MODEL, api_key=None, stream_fn=provider, services_factory=services),
    )
    return Demo(runtime, PROMPTS, project)
