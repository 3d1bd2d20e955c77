"""Whether a process group still has a live member, read from /proc (Linux).

A killed process stays a zombie until its parent reaps it, and an orphan's new parent may take its
time: a zombie runs nothing, so it does not count as alive here."""

from __future__ import annotations

from pathlib import Path

HAS_PROC = Path("/proc/self/stat").exists()


def group_members(pgid: int) -> list[tuple[int, str]]:
    """(pid, command name) of the live (not zombie) processes in group `pgid`."""
    members = []
    for folder in Path("/proc").iterdir():
        if not folder.name.isdigit():
            continue
        try:
            text = (folder / "stat").read_text()
        except OSError:  # the process ended while the folder was listed
            continue
        # `pid (comm) state ppid pgrp ...`: comm may hold spaces and parentheses, so split at the last ')'.
        name = text[text.index("(") + 1 : text.rindex(")")]
        state, _, group = text[text.rindex(")") + 2 :].split()[:3]
        if state != "Z" and int(group) == pgid:
            members.append((int(folder.name), name))
    return members


def group_alive(pgid: int) -> bool:
    return bool(group_members(pgid))


def process_ended(pid: int) -> bool:
    """Gone, or a zombie its parent has not reaped yet."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return text[text.rindex(")") + 2 :].split()[0] == "Z"
