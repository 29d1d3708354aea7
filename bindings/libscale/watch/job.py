"""The processes the watcher guards. A launched command runs under a keeper (``_keeper.py``:
a subreaper holding the command's whole process tree, tied to the watcher's life by a pipe),
so every process of the job is found at kill time, even after ``setsid`` or a double fork,
and the job never outlives the watcher, however the watcher ends. A job attached by PID is
signalled through a pidfd (a recycled PID is never hit), its process group only when that
is safe, and its descendants that are still below it."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from typing import IO

from .._core import spec as _spec
from . import _keeper


def _default_grace_s() -> float:
    grace: float = _spec.make_options("watch", {}).grace_s
    return grace


def _group_members(pgid: int) -> list[int]:
    """Live (not zombie) processes of a process group, from /proc."""
    return sorted(pid for pid, p in _keeper.processes().items() if p.pgrp == pgid and p.state not in ("Z", "X"))


def _own_tree() -> set[int]:
    """This process and everything under it (its keepers, their commands, hooks): never
    part of an attached job, even when the job is this process's ancestor."""
    me = os.getpid()
    return {me, *_keeper.descendants(me)}


def _pids(pids: Sequence[int], limit: int = 12) -> str:
    shown = ", ".join(map(str, pids[:limit]))
    return shown + (f" and {len(pids) - limit} more" if len(pids) > limit else "")


Stream = int | IO[bytes] | IO[str] | None


class Launched:
    """A command run under a keeper: ``pid`` is the command's; the keeper (``keeper.pid``)
    leads the session and process group both are in, re-parents every orphan of the tree
    to itself, and reports the command's exit. Closing the lifeline (``close()``), or the
    end of this process, makes the keeper end the tree: SIGTERM, then SIGKILL after grace_s."""

    def __init__(self, command: Sequence[str], *, grace_s: float, env: Mapping[str, str] | None = None,
                 stdin: Stream = None, stdout: Stream = None, start_timeout_s: float = 120.0) -> None:
        command = [os.fspath(c) for c in command]
        if not command:
            raise ValueError("command: empty; give the program to run after --")
        if not sys.executable:
            raise OSError("cannot start the keeper: this Python does not know its own executable (sys.executable)")
        lifeline_r, self._lifeline = os.pipe()  # both ends close-on-exec (PEP 446): no other child holds them
        status_r, status_w = os.pipe()
        try:
            self.keeper = subprocess.Popen(
                [sys.executable, "-I", "-S", _keeper.__file__, str(lifeline_r), str(status_w), repr(float(grace_s)),
                 "--", *command], start_new_session=True, pass_fds=(lifeline_r, status_w), env=env, stdin=stdin,
                stdout=stdout)
        except BaseException:
            os.close(self._lifeline)
            os.close(status_r)
            raise
        finally:
            os.close(lifeline_r)
            os.close(status_w)
        self._status = status_r
        self._buffer = b""
        self._closed = False
        self.wait_status: int | None = None  # the command's raw wait status, once it has exited
        self.exited = False
        self.keeper_lost: str | None = None  # set when the keeper ended before the command's exit was told
        line = self._first_line(start_timeout_s)
        if line.startswith("started "):
            self.pid = int(line.split()[1])
            os.set_blocking(self._status, False)
            return
        self.close()
        self._wait_keeper(5.0)
        os.close(self._status)
        if line.startswith("error "):
            code, _, text = line[len("error "):].partition(" ")
            errno = int(code) if code.isdigit() else 0
            if errno:
                raise OSError(errno, os.strerror(errno), command[0])
            raise OSError(f"{command[0]}: cannot be started: {text}")
        raise OSError(f"{command[0]}: the keeper process did not start it ({line or 'no answer'})")

    def _first_line(self, timeout_s: float) -> str:
        deadline = time.monotonic() + timeout_s
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._status], [], [], left)[0]:
                self.keeper.kill()  # it hangs: it has started nothing yet, or its PDEATHSIG ends that
                return "timed out"
            chunk = os.read(self._status, 4096)
            if not chunk:
                break
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode("utf-8", "replace")

    def fileno(self) -> int:
        """Readable when the keeper has news (the command's exit, or its own end)."""
        return self._status

    def poll(self) -> bool:
        """Whether the command has exited (reads what the keeper said)."""
        if self.exited or self._status < 0:
            return self.exited
        try:
            while chunk := os.read(self._status, 4096):
                self._buffer += chunk
            eof = True
        except BlockingIOError:
            eof = False
        while b"\n" in self._buffer:
            line, _, self._buffer = self._buffer.partition(b"\n")
            if line.startswith(b"exit "):
                self.wait_status = int(line.split()[1])
                self.exited = True
        if eof and not self.exited:
            # The keeper ended without telling: killed (SIGKILL, the OOM killer). Its
            # command was killed with it (PR_SET_PDEATHSIG).
            self.exited = True
            # The end of file comes as the keeper exits, a moment before its status can be read.
            rc = self._keeper_rc()
            deadline = time.monotonic() + 5.0
            while rc is None and time.monotonic() < deadline:
                time.sleep(0.005)
                rc = self._keeper_rc()
            self.keeper_lost = (f"the keeper (PID {self.keeper.pid}) ended ({_describe(rc)}) before the command; "
                                "the command was killed with it (PR_SET_PDEATHSIG)")
        return self.exited

    def _keeper_rc(self) -> int | None:
        """The keeper's status (Popen style) without reaping it: while it is un-reaped its PID
        (and so its session ID) cannot be reused."""
        if self.keeper.returncode is not None:
            return self.keeper.returncode
        try:
            info = os.waitid(os.P_PID, self.keeper.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:  # reaped by someone else
            return -1
        if info is None:
            return None
        return info.si_status if info.si_code == os.CLD_EXITED else -info.si_status

    def members(self) -> dict[int, _keeper.Proc]:
        """The live processes of the tree (the keeper excluded)."""
        if self._keeper_rc() is None:
            return _keeper.descendants(self.keeper.pid)
        # The keeper is gone (it is not reaped before finish(), so its PID still names the
        # session): what is left of the job is in that session, unless it left with setsid.
        sid = self.keeper.pid
        return {pid: p for pid, p in _keeper.processes().items() if p.session == sid and p.state not in ("Z", "X")}

    def signal(self, sig: int) -> tuple[list[int], list[int]]:
        """sig to every live process of the tree; the PIDs signalled, and those not permitted."""
        if self._keeper_rc() is None:
            return _keeper.signal_tree(self.keeper.pid, sig)
        sent: list[int] = []
        denied: list[int] = []
        for pid, p in self.members().items():
            result = _keeper.send(pid, p.start, sig)
            if result == "sent":
                sent.append(pid)
            elif result == "denied":
                denied.append(pid)
        return sent, denied

    def close(self) -> None:
        """Cuts the lifeline: the keeper ends whatever is left of the tree, then exits."""
        if not self._closed:
            self._closed = True
            os.close(self._lifeline)

    def _wait_keeper(self, timeout_s: float) -> int | None:
        try:
            return self.keeper.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            return None

    def finish(self, timeout_s: float) -> bool:
        """Closes the lifeline and waits up to timeout_s for the keeper; True when it has exited
        (else it stays, holding what is left, e.g. a process in uninterruptible sleep)."""
        self.close()
        done = self._wait_keeper(timeout_s) is not None
        if done and self._status >= 0:
            self.poll()
            os.close(self._status)
            self._status = -1
        return done

    def shell_status(self) -> int | None:
        """The command's exit status, shell style (128 + N when killed by signal N)."""
        if self.wait_status is not None:
            return _keeper.shell_status(self.wait_status)
        rc = self._keeper_rc()
        if rc is None:
            return None
        return 128 - rc if rc < 0 else rc


def _describe(rc: int | None) -> str:
    if rc is None:
        return "still running"
    if rc < 0:
        return f"killed by {signal.Signals(-rc).name}"
    return f"exit status {rc}"


#: The largest process id Linux can hand out on a 64-bit kernel (include/linux/threads.h
#: PID_MAX_LIMIT, 4 × 1024 × 1024): a larger one names no process, and pidfd_open's C int would
#: overflow on it.
_PID_MAX_LIMIT = 4 * 1024 * 1024


class Job:
    """The process watched: launched (under a keeper, in a session and process group of its
    own; its whole tree is signalled, and ended when the watcher ends) or attached by PID
    (through a pidfd; its group is signalled only while it leads it and the watcher is not
    in it, and its current descendants, the watcher's own processes excepted).

    grace_s (launched): the keeper's SIGTERM-to-SIGKILL delay when the watcher is gone
    (default: the watch option's default)."""

    def __init__(self, *, command: Sequence[str] | None = None, pid: int | None = None,
                 grace_s: float | None = None) -> None:
        if (command is None) == (pid is None):
            raise ValueError("give a command to launch or a pid to attach to, not both")
        self.launched = command is not None
        self.pidfd: int | None = None
        self.exit_status: int | None = None
        self._exited = False
        self.tree: Launched | None = None
        if command is not None:
            if not command:
                raise ValueError("command: empty; give the program to run after --")
            self.tree = Launched(command, grace_s=_default_grace_s() if grace_s is None else grace_s)
            self.pid = self.tree.pid
            self.pgid: int | None = self.tree.keeper.pid
            self.keeper_pid: int | None = self.tree.keeper.pid
            return
        self.keeper_pid = None
        assert pid is not None  # exactly one of command and pid, checked above
        self.pid = int(pid)
        if not 1 < self.pid <= _PID_MAX_LIMIT:
            raise ValueError(f"pid = {self.pid}; it must be a process id above 1 and at most {_PID_MAX_LIMIT:,} "
                             "(Linux's PID_MAX_LIMIT)")
        if self.pid == os.getpid():
            raise ValueError(f"pid = {self.pid} is this watcher's own process; give the job's")
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

    @property
    def keeper_lost(self) -> str | None:
        """Why the job's keeper ended before the job's main process (None: it did not)."""
        return self.tree.keeper_lost if self.tree is not None else None

    def alive(self) -> bool:
        """Whether the job's main process is still running."""
        if self._exited:
            return False
        if self.tree is not None:
            self._exited = self.tree.poll()
        else:
            assert self.pidfd is not None
            r, _, _ = select.select([self.pidfd], [], [], 0)
            self._exited = bool(r)
        return not self._exited

    def members(self) -> list[int]:
        """Live processes of the job: launched, its whole tree; attached, the process (while
        alive), its group (when signalled) and its descendants."""
        if self.tree is not None:
            return sorted(self.tree.members())
        out = set(_group_members(self.pgid)) if self.pgid is not None else set()
        if self.alive():
            out.add(self.pid)
            out.update(_keeper.descendants(self.pid, prune=_own_tree()))
        return sorted(out)

    def describe(self) -> str:
        """What a signal reaches, in words."""
        if self.tree is not None:
            return f"every process of the job (the tree under its keeper, PID {self.tree.keeper.pid})"
        return f"process group {self.pgid}" if self.pgid is not None else f"process {self.pid}"

    def signal(self, sig: int) -> str:
        """Sends sig to the job (see describe()); says what it did."""
        if self.tree is not None:
            sent, denied = self.tree.signal(sig)
            if not sent and not denied:
                return "not sent: the job has no processes left"
            out = f"sent to {len(sent)} process{'es' * (len(sent) != 1)} of the job (PIDs {_pids(sent)})"
            return out + (f"; not permitted for PIDs {_pids(denied)}" if denied else "")
        alive = self.alive()
        if self.pgid is not None:
            # The group outlives its leader when workers ignore SIGTERM: signal it while it
            # has members (its ID is not reused while it has any).
            if not _group_members(self.pgid):
                return "not sent: the job's process group has exited"
            os.killpg(self.pgid, sig)
            out = f"sent to process group {self.pgid}"
        else:
            if not alive:
                return "not sent: the job has exited"
            assert self.pidfd is not None
            signal.pidfd_send_signal(self.pidfd, sig)
            out = f"sent to process {self.pid} (it does not lead its process group)"
        if alive:  # descendants that left the group (setsid) and are still below the process
            group = set(_group_members(self.pgid)) if self.pgid is not None else set()
            outside, denied = _keeper.signal_tree(self.pid, sig, prune=_own_tree(), skip=group)
            if outside:
                out += f", and to {len(outside)} of its descendants outside it (PIDs {_pids(outside)})"
            if denied:
                out += f"; not permitted for PIDs {_pids(denied)}"
        return out

    def wait_fd(self) -> int | None:
        """A descriptor readable when the main process exits (None once it has)."""
        if self._exited:
            return None
        return self.tree.fileno() if self.tree is not None else self.pidfd

    def reap(self, timeout_s: float = 10.0) -> int | None:
        """The exit status, shell style (128 + signal when killed); None when attached.
        Launched: cuts the keeper's lifeline (it ends anything left) and waits up to
        timeout_s for it."""
        if self.tree is not None:
            self.tree.finish(timeout_s)
            self.exit_status = self.tree.shell_status()
        if self.pidfd is not None:
            os.close(self.pidfd)
            self.pidfd = None
        return self.exit_status

    def abandon(self) -> None:
        """The watch cannot go on: a launched job's keeper ends the tree itself (SIGTERM,
        SIGKILL after grace_s); an attached job is left as it is."""
        if self.tree is not None:
            self.tree.close()
