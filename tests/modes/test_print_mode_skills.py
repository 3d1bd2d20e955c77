"""Skills of the Agent Skills format, headless: the real CLI in a subprocess against the loopback server.
The skills that parse reach the model's system prompt whole; the one that does not is a `pi-tui:` line on
stderr naming it, and the run goes on."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.modes.test_print_mode import endpoint, run_cli
from tests.support.openai_server import OpenAIServer, text_reply

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "skills"


async def test_project_skills_reach_the_prompt_and_the_broken_one_is_named(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    shutil.copytree(FIXTURES, tmp_path / ".pi-tui" / "skills")
    openai_server.enqueue(text_reply("done"))

    code, out, err = await run_cli("-p", "hello", *endpoint(openai_server), cwd=tmp_path)

    assert (code, out) == (0, "done\n"), err
    [problem] = [line for line in err.splitlines() if "SKILL.md" in line]
    assert problem.startswith("pi-tui: ") and 'skill "broken-indentation" not loaded' in problem
    assert problem.split(": ")[1].endswith("broken-indentation/SKILL.md:6")
    system = openai_server.requests[0].body["messages"][0]["content"]
    for name in ("api-client-update", "release-notes", "sql-review"):
        assert f"<name>{name}</name>" in system
    assert "<name>broken-indentation</name>" not in system
    assert "Checks: locking statements on large tables, missing indexes on new\nforeign keys" in system
    assert "or &apos;schema drift&apos;.</description>" in system
