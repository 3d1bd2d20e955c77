"""Real git repositories for tests: clones, submodules and linked worktrees made by the `git` binary,
isolated from the user's and the system's git configuration."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

# No configuration is read from here: the tests see git's defaults, whatever the machine's set-up.
NO_HOME = "/nonexistent/git-test-home"


USER_CONFIG = ("HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL")
"""What git reads the user's configuration from: isolated unless a test sets them up itself."""


def git_env(user_config: bool = False) -> dict[str, str]:
    isolated = {"HOME": NO_HOME, "XDG_CONFIG_HOME": NO_HOME, "GIT_CONFIG_GLOBAL": os.devnull}
    if user_config:
        isolated = {name: os.environ[name] for name in USER_CONFIG if name in os.environ}
    return {
        **os.environ,
        **isolated,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "Test",
        "GIT_AUTHOR_EMAIL": "test@example.invalid",
        "GIT_COMMITTER_NAME": "Test",
        "GIT_COMMITTER_EMAIL": "test@example.invalid",
        # Submodules from a local path are refused by default since git 2.38.
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": "protocol.file.allow",
        "GIT_CONFIG_VALUE_0": "always",
    }


def git(cwd: Path, *args: str, user_config: bool = False) -> str:
    """Run git in `cwd`; `user_config`: with the user's configuration as the test's environment names it."""
    env = git_env(user_config)
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed in {cwd}: {done.stderr}")
    return done.stdout


def write_files(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def committed_repo(path: Path, files: dict[str, str], *, branch: str = "main") -> Path:
    """A new repository at `path` whose first commit holds `files`."""
    path.mkdir(parents=True)
    git(path, "init", "--quiet", f"--initial-branch={branch}")
    write_files(path, files)
    git(path, "add", "--all")
    git(path, "commit", "--quiet", "--message", "first")
    return path


def visible_to_git(work_tree: Path, user_config: bool = False) -> set[str]:
    """The files git tracks or would offer to add in `work_tree` (its ignore rules applied)."""
    listed = git(
        work_tree, "ls-files", "--cached", "--others", "--exclude-standard", "-z", user_config=user_config
    )
    return {name for name in listed.split("\0") if name and not (work_tree / name).is_dir()}
