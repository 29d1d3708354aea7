"""The process the watcher guards: launched in its own process group (held un-reaped, so its
PID and group ID cannot be reused while the watch runs) or attached by PID through a pidfd
(a recycled PID is never signalled). Signals reach the whole group only when that is safe."""

from __future__ import annotations

import os
import select
import signal
import subprocess
from collections.abc import Sequence


def _group_members(pgid: int) -> list[int]:
    """Live (not zombie) processes of a process group, from /proc."""
    members = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] not in (b"Z", b"X"):
            members.append(int(d))
    return members


class Job:
    """The process watched: launched (own session and process group, never reaped before
    the watch ends, so its PID and group ID cannot be reused) or attached by PID (through
    a pidfd; its group is signalled only while it leads it and the watcher is not in it)."""

    def __init__(self, *, command: Sequence[str] | None = None, pid: int | None = None) -> None:
        if (command is None) == (pid is None):
            raise ValueError("give a command to launch or a pid to attach to, not both")
        self.launched = command is not None
        self.pidfd: int | None = None
        self.exit_status: int | None = None
        self._exited = False
        if command is not None:
            if not command:
                raise ValueError("command: empty; give the program to run after --")
            self.proc: subprocess.Popen[bytes] | None = subprocess.Popen(list(command), start_new_session=True)
            self.pid = self.proc.pid
            self.pgid: int | None = self.pid
            try:
                self.pidfd = os.pidfd_open(self.pid)
            except (AttributeError, OSError):
                self.pidfd = None  # safe without: the child is ours and stays un-reaped
            return
        self.proc = None
        assert pid is not None  # exactly one of command and pid, checked above
        self.pid = int(pid)
        if self.pid <= 1:
            raise ValueError(f"pid = {self.pid}; it must be a process id above 1")
        # The pidfd first: from here on a recycled PID cannot be confused with the job.
        try:
            self.pidfd = os.pidfd_open(self.pid)
        except ProcessLookupError:
            raise ValueError(f"pid = {self.pid}: no such process") from None
        except AttributeError:
            raise ValueError(f"pid = {self.pid}: this Python or kernel has no pidfd_open (Linux >= 5.3), which "
                             "attaching needs to be safe against PID reuse; launch the job under "
                             "`libscale watch -- CMD` instead") from None
        except OSError as e:
            raise ValueError(f"pid = {self.pid}: cannot open a pidfd ({e})") from None
        try:
            signal.pidfd_send_signal(self.pidfd, 0)
        except PermissionError:
            os.close(self.pidfd)
            raise ValueError(f"pid = {self.pid}: not permitted to signal it (another user's process)") from None
        pg = os.getpgid(self.pid)
        # Only a process that leads its group, in a group without the watcher, has its
        # group signalled: otherwise the group may hold the user's shell or the watcher.
        self.pgid = pg if pg == self.pid and pg != os.getpgrp() else None

    def alive(self) -> bool:
        """Whether the job's main process (the leader) is still running."""
        if self._exited:
            return False
        if self.launched:
            # WNOWAIT: look without reaping, so the PID and process group stay ours.
            info = os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            self._exited = info is not None
        else:
            assert self.pidfd is not None
            r, _, _ = select.select([self.pidfd], [], [], 0)
            self._exited = bool(r)
        return not self._exited

    def members(self) -> list[int]:
        """Live processes the job's signals reach (its group, or the process)."""
        if self.pgid is not None:
            return _group_members(self.pgid)
        return [self.pid] if self.alive() else []

    def signal(self, sig: int) -> str:
        """Sends `sig` to the job's process group (or the process); says what it did."""
        if self.pgid is not None:
            # The group outlives its leader when workers ignore SIGTERM: signal it while it
            # has members (its ID is not reused while it has any).
            if not self.members():
                return "not sent: the job's process group has exited"
            os.killpg(self.pgid, sig)
            return f"sent to process group {self.pgid}"
        if not self.alive():
            return "not sent: the job has exited"
        assert self.pidfd is not None
        signal.pidfd_send_signal(self.pidfd, sig)
        return f"sent to process {self.pid} (it does not lead its process group)"

    def wait_fd(self) -> int | None:
        """A descriptor readable when the leader exits (None once it has)."""
        return self.pidfd if not self._exited else None

    def reap(self) -> int | None:
        """The exit status, shell style (128 + signal when killed); None when attached."""
        if self.proc is not None:
            rc = self.proc.wait()
            self.exit_status = 128 - rc if rc < 0 else rc
        if self.pidfd is not None:
            os.close(self.pidfd)
            self.pidfd = None
        return self.exit_status

