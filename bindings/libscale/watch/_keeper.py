"""The keeper: the small process between the watcher and each command it launches (the job,
each hook), and the process-tree helpers the watcher shares with it. Standard library only:
it runs as ``python -I -S _keeper.py LIFELINE_FD STATUS_FD GRACE_S -- CMD ARGS``.

Why a process of its own. The job must never outlive its watcher, and a watcher killed by
SIGKILL runs no code, so something else must act:

* ``PR_SET_PDEATHSIG`` alone (the kernel signals a process when its parent dies) covers one
  process: it is not inherited across fork(2), so a launcher's workers (torchrun's, a shell
  script's) would run on; it fires when the *thread* that forked the child exits, not the
  process (prctl(2)), so a watcher started from a short-lived thread would kill its own job;
  and exec of a set-user-ID program clears it (prctl(2)). See
  https://man7.org/linux/man-pages/man2/prctl.2.html.
* ``PR_SET_CHILD_SUBREAPER`` on the watcher itself would keep orphaned descendants findable
  while the watcher lives, but not after it is killed, and in a program that uses the
  watcher as a library it would change how that program's other children are reaped.

So the keeper, a single-threaded process started (without ``preexec_fn``, which the CPython
docs call unsafe in the presence of threads: https://docs.python.org/3/library/subprocess.html#subprocess.Popen)
in a session of its own, is a subreaper: every process the command forks, even after
``setsid`` or a double fork, re-parents to the keeper when its parent exits, so walking the
tree down from the keeper finds the whole job. It watches a "lifeline" pipe whose only
write end the watcher holds: end of file there means the watcher is gone, however it ended
(SIGKILL included), and the keeper then ends the tree itself (SIGTERM, GRACE_S, SIGKILL).
The command it forks gets ``PR_SET_PDEATHSIG = SIGKILL`` before exec, so a keeper killed by
SIGKILL takes the command with it; the keeper forks from its only thread, which lives as
long as the keeper, so the thread caveat does not apply, and the child checks
``getppid()`` after the prctl to close the race where the keeper died first.

What the keeper tells the watcher, one line each on STATUS_FD: ``started PID``, or
``error ERRNO MESSAGE`` when the command could not be executed, then ``exit STATUS`` (the
raw wait status) when the command ends. It exits once the command and every process it
left have ended (the watcher ends the leftovers), with the command's status (shell style).
Signals sent to the job's process group reach the keeper too: it holds them blocked, so
only the job acts on them.

Limits. A keeper killed by SIGKILL (by hand, or by the OOM killer, which its few MiB make
an unlikely pick) takes the command with it, but the processes that left the command's
session are then found by nobody. The lifeline's write end is close-on-exec and no other
child of the watcher gets it (subprocess closes every other descriptor), but a child the
watcher's program forks without exec (multiprocessing's "fork") holds it until it exits.

Process trees are read from one scan of every ``/proc/PID/stat`` (the parent of each
process), not from ``/proc/PID/task/TID/children``: that file exists only with
CONFIG_PROC_CHILDREN (which not every kernel has), and its
manual page says it may omit live children while others exit, which is what they do while
a tree is being killed ("most code should probably not use this interface",
https://man7.org/linux/man-pages/man5/proc_tid_children.5.html). No scan is atomic either:
signalling repeats until a pass finds nobody new, and the keeper goes on until nobody is
left. A process is signalled through a pidfd opened and then checked against the start
time seen in the scan, so a PID reused meanwhile is never hit (pidfd_open(2)).
"""

from __future__ import annotations

import ctypes
import os
import select
import signal
import sys
import time
from collections.abc import Iterable
from typing import NamedTuple, NoReturn

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
PR_SET_CHILD_SUBREAPER = 36

# The signals the keeper holds blocked: every asynchronous one whose default would end it.
# Not SIGCHLD (it wakes the keeper), nor the ones that cannot be blocked (SIGKILL, SIGSTOP)
# or that the kernel forces on a fault (signal(7): blocking them is undefined).
_SYNCHRONOUS = {signal.SIGSEGV, signal.SIGBUS, signal.SIGFPE, signal.SIGILL, signal.SIGTRAP, signal.SIGSYS,
                signal.SIGABRT}
_HELD = signal.valid_signals() - _SYNCHRONOUS - {signal.SIGKILL, signal.SIGSTOP, signal.SIGCHLD}


class Proc(NamedTuple):
    """A process as /proc/PID/stat shows it (fields 3-6 and 22 of proc(5))."""

    state: str  # R, S, D, T, t, Z, X, ...
    ppid: int
    pgrp: int
    session: int
    start: int  # clock ticks after boot: with the PID, identifies the process


def stat(pid: int) -> Proc | None:
    """The process with this PID, None when there is none."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
    except OSError:
        return None
    fields = data.rsplit(b")", 1)[1].split()  # the command name may hold spaces and ')'
    try:
        return Proc(fields[0].decode(), int(fields[1]), int(fields[2]), int(fields[3]), int(fields[19]))
    except (IndexError, ValueError):
        return None


def processes() -> dict[int, Proc]:
    """Every process on the machine (one pass over /proc)."""
    table: dict[int, Proc] = {}
    for d in os.listdir("/proc"):
        if d.isdigit() and (p := stat(int(d))) is not None:
            table[int(d)] = p
    return table


def descendants(root: int, *, prune: Iterable[int] = ()) -> dict[int, Proc]:
    """The live (not zombie) descendants of root, root itself excluded; a PID in prune is
    left out with everything under it."""
    skip = set(prune)
    found: dict[int, Proc] = {}
    table = processes()
    kids: dict[int, list[int]] = {}
    for pid, p in table.items():
        kids.setdefault(p.ppid, []).append(pid)
    queue = [root]
    while queue:
        for c in kids.get(queue.pop(), ()):
            if c in skip or c in found:
                continue
            queue.append(c)
            if table[c].state not in ("Z", "X"):
                found[c] = table[c]
    return found


def send(pid: int, start: int, sig: int) -> str:
    """sig to the process pid if it is still the one that started at `start` (a PID reused
    since the walk is never hit): "sent", "gone" or "denied"."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return "gone"
    except (AttributeError, OSError):  # no pidfd (Linux < 5.3): check, then kill (a reuse window of a few us)
        p = stat(pid)
        if p is None or p.start != start or p.state in ("Z", "X"):
            return "gone"
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            return "gone"
        except PermissionError:
            return "denied"
        return "sent"
    try:
        p = stat(pid)  # read after the pidfd was opened: the same start time, the same process
        if p is None or p.start != start or p.state in ("Z", "X"):
            return "gone"
        signal.pidfd_send_signal(fd, sig)
        return "sent"
    except ProcessLookupError:
        return "gone"
    except PermissionError:  # e.g. a set-user-ID program the job ran
        return "denied"
    finally:
        os.close(fd)


def signal_tree(root: int, sig: int, *, prune: Iterable[int] = (), skip: Iterable[int] = ()) \
        -> tuple[list[int], list[int]]:
    """sig to every live descendant of root, walking the tree again until a pass finds no
    process it has not signalled (one forked meanwhile is caught by the next pass). A
    stopped process also gets SIGCONT after a terminating signal, or it could not act on it.
    prune: PIDs left out with their subtrees; skip: PIDs not signalled (already were), their
    descendants are. Returns the PIDs signalled and those it was not permitted to signal."""
    prune = list(prune)
    skipped = set(skip)
    done: dict[int, int] = {}
    denied: set[int] = set()
    for _ in range(16):
        new = {pid: p for pid, p in descendants(root, prune=prune).items() if done.get(pid) != p.start}
        if not new:
            break
        for pid, p in new.items():
            done[pid] = p.start
            if pid in skipped:
                continue
            result = send(pid, p.start, sig)
            if result == "denied":
                denied.add(pid)
            elif result == "sent" and p.state == "T" and sig not in (signal.SIGKILL, signal.SIGSTOP):
                send(pid, p.start, signal.SIGCONT)
    return sorted(set(done) - denied - skipped), sorted(denied)


# -- the keeper process ---------------------------------------------------------------------

def _prctl(option: int, value: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(ctypes.c_int(option), ctypes.c_ulong(value), ctypes.c_ulong(0), ctypes.c_ulong(0),
                  ctypes.c_ulong(0)) != 0:
        e = ctypes.get_errno()
        raise OSError(e, f"prctl({option}): {os.strerror(e)}")


def _exec_child(command: list[str], err_w: int, keeper: int) -> NoReturn:
    """In the forked child: undo what the keeper set for itself, arm PDEATHSIG, exec."""
    try:
        signal.set_wakeup_fd(-1)
        # Python ignores SIGPIPE and SIGXFSZ; an ignored signal stays ignored across exec,
        # so set them back as subprocess does (restore_signals).
        for s in (signal.SIGCHLD, signal.SIGPIPE, signal.SIGXFSZ):
            signal.signal(s, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_SETMASK, ())
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != keeper:  # the keeper died before the prctl: nobody would signal us
            os._exit(1)
        os.execvp(command[0], command)
    except OSError as e:
        message = f"{e.errno or 0} {e.strerror or e}"
    except BaseException as e:
        message = f"0 {type(e).__name__}: {e}"
    try:
        os.write(err_w, message.encode("utf-8", "replace"))
    finally:
        os._exit(127)


def _reap(command: int, on_exit: list[int]) -> bool:
    """Reaps every child that has exited (the command, and orphans re-parented here);
    the command's wait status is appended to on_exit. True while children remain."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return False
        if pid == 0:
            return True
        if pid == command:
            on_exit.append(status)


def shell_status(status: int) -> int:
    """A wait status as a shell shows it: the exit code, or 128 + N when killed by signal N."""
    code = os.waitstatus_to_exitcode(status)
    return 128 - code if code < 0 else code


def main(argv: list[str]) -> int:
    lifeline, status_fd, grace_s = int(argv[0]), int(argv[1]), float(argv[2])
    command = argv[4:] if argv[3:4] == ["--"] else argv[3:]
    for fd in (lifeline, status_fd):
        os.set_inheritable(fd, False)  # the command gets neither

    def tell(line: str) -> None:
        try:
            os.write(status_fd, (line + "\n").encode("utf-8", "replace"))
        except OSError:  # the watcher is gone; the lifeline says so too
            pass

    me = os.getpid()
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.signal(signal.SIGCHLD, lambda _s, _f: None)
    signal.set_wakeup_fd(wake_w, warn_on_full_buffer=False)
    signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
    if select.select([lifeline], [], [], 0)[0]:  # the watcher is already gone: start nothing
        tell("error 0 the watcher exited before the command could start")
        return 1
    err_r, err_w = os.pipe()  # close-on-exec (PEP 446): end of file once the exec succeeded
    pid = os.fork()
    if pid == 0:
        os.close(err_r)
        _exec_child(command, err_w, me)
    os.close(err_w)
    failure = b""
    while chunk := os.read(err_r, 4096):
        failure += chunk
    os.close(err_r)
    if failure:
        os.waitpid(pid, 0)
        tell("error " + failure.decode("utf-8", "replace"))
        return 127
    tell(f"started {pid}")
    # The keeper keeps neither the job's input nor its output open (a reader of the job's
    # output sees the end when the job's processes have closed it); stderr stays for its errors.
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    os.close(devnull)

    exited: list[int] = []
    told = False
    watcher_gone = False
    while True:
        remaining = _reap(pid, exited)
        if exited and not told:
            tell(f"exit {exited[0]}")
            told = True
        if not remaining:
            return shell_status(exited[0]) if exited else 1
        if watcher_gone:
            _end_tree(me, grace_s, wake_r, pid, exited)
            continue
        ready = select.select([lifeline, wake_r], [], [])[0]
        _drain(wake_r)
        if lifeline in ready and not os.read(lifeline, 64):
            watcher_gone = True


def _drain(fd: int) -> None:
    try:
        while os.read(fd, 512):
            pass
    except BlockingIOError:
        pass


def _end_tree(me: int, grace_s: float, wake_r: int, command: int, exited: list[int]) -> None:
    """The watcher is gone: SIGTERM to every process under the keeper, SIGKILL to those
    left after grace_s, repeated (with the reaping) until none is left; a process stuck in
    uninterruptible sleep keeps the keeper here, reaping, until it ends."""
    signal_tree(me, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline:
        _reap(command, exited)
        if not descendants(me):
            return
        select.select([wake_r], [], [], 0.1)
        _drain(wake_r)
    pause = 0.05
    while True:
        signal_tree(me, signal.SIGKILL)
        _reap(command, exited)
        if not descendants(me):
            return
        time.sleep(pause)
        pause = min(pause * 2, 1.0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
