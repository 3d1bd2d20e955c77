"""What a working directory determines.

`AgentSessionServices` bundles the resources (settings, context files, skills, templates) of one cwd.
A session always gets the services of *its own* cwd (the header's), not of the directory pi-tui was
started in: resuming project B's session while standing in A must load B's AGENTS.md and settings.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from pi_tui.context.resources import Resources, load_resources


@dataclass(frozen=True)
class AgentSessionServices:
    cwd: Path
    resources: Resources

    @classmethod
    def for_cwd(cls, cwd: str | os.PathLike[str]) -> AgentSessionServices:
        path = Path(cwd)
        return cls(cwd=path, resources=load_resources(path))
