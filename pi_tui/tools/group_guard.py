"""The process groups of running commands die with pi-tui, even when pi-tui is killed with SIGKILL.

pi-tui kills a command's group itself on abort, timeout, cancellation and exit; a SIGKILLed pi-tui can do
nothing. So one small `sh` per pi-tui process (the guard) keeps the list of running groups: a group is
listed when its command starts and withdrawn when the command is over. The guard reads the list from a
pipe whose only writer is pi-tui; when pi-tui dies, however it dies, the kernel closes that pipe, the
guard reads end of file and kills every group still listed.

Why not the parent-death signal (`prctl(PR_SET_PDEATHSIG)`): it reaches the shell alone, not what the
shell forks (`sleep 1000; echo done` keeps its `sleep`), it fires when the *thread* that spawned the shell
ends rather than the process, and setting it needs a `preexec_fn`, which is unsafe while other threads
run and turns every spawn into a full fork of pi-tui. The guard covers the whole group, does not
depend on threads and costs one process for the whole run.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import subprocess
import threading

GUARD_SCRIPT = r"""
groups=' '
while read -r change group; do
  case $change in
    +) groups="$groups$group " ;;
    -) case $groups in *" $group "*) groups="${groups%% $group *} ${groups#* $group }" ;; esac ;;
  esac
done
for group in $groups; do
  case $group in *[!0-9]* | 0 | 1) ;; *) kill -s KILL -- "-$group" 2>/dev/null ;; esac
done
"""
"""Lines `+ <pgid>` list a group, `- <pgid>` withdraw it; at end of input every listed group is killed
(never `-1`, which `kill` would take for every process)."""

EXIT_WAIT_SECONDS = 2.0


class GroupGuard:
    """pi-tui's side of the guard: started at the first command, restarted if something killed it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._groups: set[int] = set()
        self._process: subprocess.Popen[bytes] | None = None
        self._registered_exit = False

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def watch(self, group: int) -> None:
        """Kill `group` if pi-tui dies before `release(group)`."""
        with self._lock:
            self._groups.add(group)
            self._send(f"+ {group}\n")

    def release(self, group: int) -> None:
        with self._lock:
            self._groups.discard(group)
            if self._process is not None:
                self._send(f"- {group}\n")

    def _send(self, line: str) -> None:
        process = self._process
        if process is not None and process.stdin is not None and process.poll() is None:
            try:
                process.stdin.write(line.encode())
                process.stdin.flush()
                return
            except OSError:
                pass
        # No guard yet, or something killed it: a new one gets the whole list (this change included).
        self._process = None
        if process is not None:
            with contextlib.suppress(OSError):
                process.kill()  # if it lingers, it must not kill the running groups at end of input
            _dispose(process)
        self._start()

    def _start(self) -> None:
        shell = "/bin/sh" if os.path.exists("/bin/sh") else shutil.which("sh") or "sh"
        try:
            # Its own session: a terminal's Ctrl+C reaches pi-tui, not the guard that outlives it.
            process = subprocess.Popen(
                [shell, "-c", GUARD_SCRIPT],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        except OSError:  # no shell to guard with: the command itself will fail to start the same way
            return
        self._process = process
        if not self._registered_exit:
            self._registered_exit = True
            atexit.register(self.close)
        assert process.stdin is not None
        with contextlib.suppress(OSError):
            process.stdin.write("".join(f"+ {group}\n" for group in sorted(self._groups)).encode())
            process.stdin.flush()

    def close(self) -> None:
        """End of input for the guard (it kills what is still listed), then reap it."""
        with self._lock:
            process, self._process = self._process, None
        if process is not None:
            _dispose(process)


def _dispose(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(OSError):
        if process.stdin is not None:
            process.stdin.close()
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(EXIT_WAIT_SECONDS)


group_guard = GroupGuard()
"""The one guard of this process."""
