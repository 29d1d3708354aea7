"""The hang watcher behind ``libscale watch``.

It polls GPU power from a source (NVML, a growing nvidia-smi log, dcgm-exporter, or a
recorded trace replayed at N x speed), feeds every poll to the C++ ``TriageStream`` (the
same classifier and detector as ``libscale triage``), and acts on what comes back:

* a JSON line per phase change, alert, lost/returned GPU, signal and exit;
* a Prometheus textfile (node_exporter's textfile collector), written atomically;
* a hook command per alert (environment: LIBSCALE_EVENT as JSON, LIBSCALE_ALERT_KIND, ...);
* on an alert kind in ``kill_on`` (default: deadlock): SIGTERM to the job's process group,
  SIGKILL after ``grace_s`` if it is still there.

Safety: signals go only to the process the watcher started (its own process group, held
un-reaped so the IDs cannot be reused) or to the PID it was given (through a pidfd, so a
recycled PID is never hit; its process group only while that process is alive and leads
it). Missing data never triggers an action: a GPU without fresh samples is "lost", and
while any GPU is lost the deadlock clock does not run. ``dry_run`` logs the signals it
would send and sends none (hooks still run: they are how the alert plumbing is tested).
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from typing import IO, Any, Callable, Optional, Sequence

import numpy as np

from . import _core

#: Exit status of ``libscale watch`` when it terminated the job after an alert.
EXIT_TERMINATED = 3


@dataclass
class Poll:
    """Samples of one poll on the source's clock (s)."""

    now_s: float
    time_s: np.ndarray
    gpu: np.ndarray
    power_w: np.ndarray
    utilization_pct: np.ndarray
    power_limit_w: Optional[dict[int, float]] = None
    errors: list[tuple[int, int, str]] = field(default_factory=list)  # (gpu, NVML code, text)


class _TimeGroups:
    """Rows sorted by time and cut at each new timestamp; Poll objects are made on demand,
    so a long trace costs its columns, not an object per timestamp."""

    def __init__(self, cols: dict[str, np.ndarray]) -> None:
        t = np.asarray(cols["time_s"], dtype=np.float64)
        order = np.argsort(t, kind="stable")
        self.t = t[order]
        self.g = np.asarray(cols["gpu"], dtype=np.int32)[order]
        self.p = np.asarray(cols["power_w"], dtype=np.float64)[order]
        self.u = np.asarray(cols["utilization_pct"], dtype=np.float64)[order]
        cuts = np.flatnonzero(np.diff(self.t)) + 1
        self.bounds = np.concatenate(([0], cuts, [self.t.size])) if self.t.size else np.zeros(1, np.int64)

    def __len__(self) -> int:
        return len(self.bounds) - 1

    def time(self, k: int) -> float:
        return float(self.t[self.bounds[k]])

    def __getitem__(self, k: int) -> Poll:
        a, b = self.bounds[k], self.bounds[k + 1]
        return Poll(float(self.t[a]), self.t[a:b], self.g[a:b], self.p[a:b], self.u[a:b])


def _group_by_time(cols: dict[str, np.ndarray]) -> list[Poll]:
    """One Poll per distinct timestamp, in time order (a log chunk holds many polls)."""
    groups = _TimeGroups(cols)
    return [groups[k] for k in range(len(groups))]


class ReplaySource:
    """A recorded trace played at ``speed`` x real time; every distinct timestamp is one
    poll, so a replay meets the detector exactly as the offline triage does."""

    live = False

    def __init__(self, trace: "_core.triage.PowerTrace", *, speed: float = 1.0, name: str = "replay") -> None:
        if not (speed > 0 and np.isfinite(speed)):
            raise ValueError(f"speed = {speed}; it must be a positive factor of real time")
        if len(trace) == 0:
            raise ValueError(f"{trace.report.source}: no samples to replay")
        self.name = name
        self.report = trace.report
        self.speed = float(speed)
        self._polls = _TimeGroups({"time_s": trace.time_s, "gpu": trace.gpu, "power_w": trace.power_w,
                                   "utilization_pct": trace.utilization_pct})
        self._next = 0
        self._t0 = self.first_time_s = self._polls.time(0)
        self._wall0: Optional[float] = None
        self.ended = False

    def clock(self, wall: float) -> float:
        if self._wall0 is None:
            self._wall0 = wall
        return self._t0 + (wall - self._wall0) * self.speed

    def poll(self, wall: float) -> list[Poll]:
        now = self.clock(wall)
        out = []
        while self._next < len(self._polls) and self._polls.time(self._next) <= now:
            out.append(self._polls[self._next])
            self._next += 1
        self.ended = self._next == len(self._polls)
        return out

    def close(self) -> None:
        pass


class FollowCsvSource:
    """A growing nvidia-smi CSV log (``nvidia-smi --query-gpu=... -lms 500 -f FILE``), read
    like ``tail -f``: what the file holds at start is history (only its header and its
    last timestamp are read), new complete lines are polled. The clock is the log's own
    (nvidia-smi writes local time), extrapolated by wall time since the last new line, so
    a log that stops growing makes its GPUs lost, never hung; it is None until the log
    has a timestamp."""

    live = True
    ended = False

    def __init__(self, path: str, *, history_bytes: int = 1 << 20) -> None:
        self.name = f"nvidia-smi log {path}"
        self.path = path
        self._f: IO[bytes] = open(path, "rb")  # noqa: SIM115 (kept open while following)
        self._reader = _core.triage.NvidiaSmiCsvReader(path)
        self._last_t: Optional[float] = None
        self._last_wall = time.time()
        self.first_time_s: Optional[float] = None
        size = os.fstat(self._f.fileno()).st_size
        head = self._f.read(min(size, history_bytes))
        if size > len(head):  # a long log: its header is at the top, its clock at the end
            self._f.seek(size - history_bytes)
            tail = self._f.read()
        else:
            tail = head
        end = size - (len(tail) - (tail.rfind(b"\n") + 1))  # after the last complete line
        # The last header (a header missing columns fails here, before any launch), then the
        # last lines for the clock: read, not pushed, and later lines must come after them.
        headers = [ln for ln in head.splitlines() if b"power.draw" in ln]
        lines = [ln for ln in tail[: tail.rfind(b"\n") + 1].splitlines()[-64:] if b"power.draw" not in ln]
        t = self._reader.feed(b"".join(ln + b"\n" for ln in headers[-1:] + lines))["time_s"]
        if len(t):
            self._last_t = self.first_time_s = float(np.max(t))
        self._f.seek(max(end, 0))

    @property
    def report(self) -> "_core.triage.ParseReport":
        return self._reader.report

    def clock(self, wall: float) -> Optional[float]:
        return None if self._last_t is None else self._last_t + (wall - self._last_wall)

    def poll(self, wall: float) -> list[Poll]:
        if os.fstat(self._f.fileno()).st_size < self._f.tell():  # truncated or rotated in place
            self._f.seek(0)
        chunk = self._f.read()
        if not chunk:
            return []
        polls = _group_by_time(self._reader.feed(chunk))
        if polls:
            self._last_t = polls[-1].now_s
            self._last_wall = wall
        return polls

    def close(self) -> None:
        self._f.close()


class DcgmSource:
    """dcgm-exporter on this machine: one GET of its /metrics per poll, stamped with the
    wall clock (a failed scrape is reported and yields no data)."""

    live = True
    ended = False

    def __init__(self, url: str, *, timeout_s: float = 2.0) -> None:
        self.name = f"dcgm-exporter {url}"
        self.url = url
        self.timeout_s = timeout_s
        self._parser = _core.triage.DcgmScrapeParser(url)
        self.last_error: Optional[str] = None

    @property
    def report(self) -> "_core.triage.ParseReport":
        return self._parser.report

    def clock(self, wall: float) -> float:
        return wall

    def poll(self, wall: float) -> list[Poll]:
        try:
            with urllib.request.urlopen(self.url, timeout=self.timeout_s) as r:  # noqa: S310 (a local URL by design)
                text = r.read().decode("utf-8", "replace")
        except Exception as e:  # noqa: BLE001 (URLError, timeouts, IncompleteRead, BadStatusLine...)
            self.last_error = f"{self.url}: {type(e).__name__}: {e}"
            return []
        self.last_error = None
        cols = self._parser.parse(text, wall)
        if len(cols["time_s"]) == 0:
            return []
        return [Poll(wall, np.asarray(cols["time_s"]), np.asarray(cols["gpu"]), np.asarray(cols["power_w"]),
                     np.asarray(cols["utilization_pct"]))]

    def close(self) -> None:
        pass


class NvmlPollSource:
    """NVML through the driver's libnvidia-ml.so.1 (loaded at run time). ``power``:
    "average" (nvmlDeviceGetPowerUsage, a 1 s average on Ampere and newer) or "instant"
    (field 186). A GPU whose read fails (e.g. fallen off the bus) gives no sample; its
    error is reported and it turns lost after stale_after_s."""

    live = True
    ended = False

    def __init__(self, gpus: Sequence[int] = (), *, power: str = "average") -> None:
        if power not in ("average", "instant"):
            raise ValueError(f"power = {power!r}; valid: average, instant")
        self._nvml = _core.triage.NvmlSource(list(gpus))
        self._key = "power_w" if power == "average" else "power_instant_w"
        if power == "instant":
            first = self._nvml.poll()
            ok = np.asarray(first["error"]) == 0
            if ok.any() and np.isnan(np.asarray(first["power_instant_w"])[ok]).all():
                raise ValueError("--nvml-power instant: this driver or GPU does not report the instantaneous "
                                 "power field (NVML_FI_DEV_POWER_INSTANT, 186); use --nvml-power average")
        self.name = f"NVML ({self._nvml.library_path}, {len(self._nvml.gpus())} GPUs, {power} power)"
        self.report = None

    def gpus(self) -> list[dict[str, Any]]:
        return list(self._nvml.gpus())

    def clock(self, wall: float) -> float:
        return wall

    def poll(self, wall: float) -> list[Poll]:
        s = self._nvml.poll()
        err = np.asarray(s["error"])
        errors = [(int(g), int(c), str(txt)) for g, c, txt in zip(s["index"], err, s["error_text"]) if c != 0]
        limits = {int(g): float(w) for g, w in zip(s["index"], s["power_limit_w"]) if np.isfinite(w)}
        t = np.asarray(s["time_s"], dtype=np.float64)
        return [Poll(float(t.max()) if t.size else wall, t, np.asarray(s["index"], dtype=np.int32),
                     np.asarray(s[self._key], dtype=np.float64), np.asarray(s["utilization_pct"], dtype=np.float64),
                     limits, errors)]

    def close(self) -> None:
        del self._nvml


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

    def __init__(self, *, command: Optional[Sequence[str]] = None, pid: Optional[int] = None) -> None:
        if (command is None) == (pid is None):
            raise ValueError("give a command to launch or a pid to attach to, not both")
        self.launched = command is not None
        self.pidfd: Optional[int] = None
        self.exit_status: Optional[int] = None
        self._exited = False
        if command is not None:
            if not command:
                raise ValueError("command: empty; give the program to run after --")
            self.proc: Optional[subprocess.Popen[bytes]] = subprocess.Popen(list(command), start_new_session=True)
            self.pid = self.proc.pid
            self.pgid: Optional[int] = self.pid
            try:
                self.pidfd = os.pidfd_open(self.pid)
            except (AttributeError, OSError):
                self.pidfd = None  # safe without: the child is ours and stays un-reaped
            return
        self.proc = None
        self.pid = int(pid)  # type: ignore[arg-type]
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

    def wait_fd(self) -> Optional[int]:
        """A descriptor readable when the leader exits (None once it has)."""
        return self.pidfd if not self._exited else None

    def reap(self) -> Optional[int]:
        """The exit status, shell style (128 + signal when killed); None when attached."""
        if self.proc is not None:
            rc = self.proc.wait()
            self.exit_status = 128 - rc if rc < 0 else rc
        if self.pidfd is not None:
            os.close(self.pidfd)
            self.pidfd = None
        return self.exit_status


def prometheus_text(stream: "_core.triage.TriageStream", *, source: str, now_s: float) -> str:
    """node_exporter textfile-collector exposition of the stream's state."""
    phases = list(_core.triage.PHASE_NAMES)
    lines = [
        "# HELP libscale_watch_gpu_power_watts Smoothed board power of the GPU.",
        "# TYPE libscale_watch_gpu_power_watts gauge",
    ]
    gpus = [g for g in stream.gpus() if g.samples > 0]
    for g in gpus:
        if g.present:
            lines.append(f'libscale_watch_gpu_power_watts{{gpu="{g.gpu}"}} {g.power_w:.6g}')
    lines += ["# HELP libscale_watch_gpu_phase 1 for the GPU's current phase, 0 for the others.",
              "# TYPE libscale_watch_gpu_phase gauge"]
    for g in gpus:
        for ph in phases:
            lines.append(f'libscale_watch_gpu_phase{{gpu="{g.gpu}",phase="{ph}"}} {int(g.present and g.phase == ph)}')
    lines += ["# HELP libscale_watch_gpu_seconds_in_phase Seconds since the GPU entered its phase.",
              "# TYPE libscale_watch_gpu_seconds_in_phase gauge"]
    for g in gpus:
        lines.append(f'libscale_watch_gpu_seconds_in_phase{{gpu="{g.gpu}"}} {max(0.0, now_s - g.phase_since_s):.6g}')
    lines += ["# HELP libscale_watch_gpu_present 1 while the GPU has fresh samples.",
              "# TYPE libscale_watch_gpu_present gauge"]
    for g in gpus:
        lines.append(f'libscale_watch_gpu_present{{gpu="{g.gpu}"}} {int(g.present)}')
    job = stream.job_phase
    lines += ["# HELP libscale_watch_job_phase 1 for the job's current phase.", "# TYPE libscale_watch_job_phase gauge"]
    for ph in phases:
        lines.append(f'libscale_watch_job_phase{{phase="{ph}"}} {int(job == ph)}')
    lines += ["# HELP libscale_watch_job_seconds_in_phase Seconds since the job entered its phase.",
              "# TYPE libscale_watch_job_seconds_in_phase gauge",
              f"libscale_watch_job_seconds_in_phase {max(0.0, now_s - stream.job_phase_since_s) if job else 0:.6g}",
              "# HELP libscale_watch_alerts_total Alerts raised since the watcher started.",
              "# TYPE libscale_watch_alerts_total counter"]
    for kind, n in stream.alert_counts.items():
        lines.append(f'libscale_watch_alerts_total{{kind="{kind}"}} {n}')
    src = source.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    lines += ["# HELP libscale_watch_last_sample_seconds Source clock of the last poll.",
              "# TYPE libscale_watch_last_sample_seconds gauge",
              f'libscale_watch_last_sample_seconds{{source="{src}"}} {now_s:.6f}']
    return "\n".join(lines) + "\n"


def write_atomic(path: str, text: str) -> None:
    """Temporary file in the same directory, then rename: a reader never sees half a file."""
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".libscale-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


@dataclass
class Actions:
    kill_on: frozenset[str] = frozenset({"deadlock"})
    grace_s: float = 30.0
    dry_run: bool = False
    hook: Optional[str] = None
    prometheus_textfile: Optional[str] = None
    prometheus_interval_s: float = 5.0
    checkpoint_marker: Optional[str] = None
    checkpoint_duration_s: float = 0.0  # how long after a touch of the marker saves are expected


class Watcher:
    """Poll, classify, act. ``run()`` returns the exit status: the job's own (launched),
    0 (attached or monitor-only), or EXIT_TERMINATED when it terminated the job."""

    def __init__(self, source: Any, stream: "_core.triage.TriageStream", *, job: Optional[Job] = None,
                 actions: Optional[Actions] = None, interval_s: float = 0.5,
                 events: Callable[[dict[str, Any]], None] = print) -> None:
        if not (interval_s > 0 and np.isfinite(interval_s)):
            raise ValueError(f"interval_s = {interval_s}; it must be a positive, finite number of seconds")
        self.source = source
        self.stream = stream
        self.job = job
        self.actions = actions or Actions()
        if not (self.actions.grace_s >= 0 and np.isfinite(self.actions.grace_s)):
            raise ValueError(f"grace_s = {self.actions.grace_s}; it must be a finite number of seconds >= 0")
        self.interval_s = interval_s
        if hasattr(source, "gpus"):  # the GPUs the job has: one failing from its first read is missing data
            stream.expect_gpus([int(g["index"]) for g in source.gpus()])
        self._emit_fn = events
        self._events_broken = False
        self._acted = False  # a kill_on alert has been acted on (once per watch)
        self._terminated_by: Optional[str] = None
        self._kill_at: Optional[float] = None
        self._hooks: list[subprocess.Popen[bytes]] = []
        self._marker_mtime: Optional[float] = None
        self._last_prom = -np.inf
        self._errors_seen: dict[int, int] = {}
        self._source_error: Optional[str] = None
        self._stop_signal: Optional[int] = None
        self._forwarded = 0
        self._limits: dict[int, float] = {}
        self.polls = 0

    # -- output -------------------------------------------------------------------------
    def _emit(self, event: str, t_s: Optional[float], **data: Any) -> None:
        # A dead reader of the events (a closed pipe, a full disk) must not end the watch:
        # the job would run on unprotected.
        if self._events_broken:
            return
        try:
            self._emit_fn({"event": event, "time_s": t_s, "wall_time_s": time.time(), **data})
        except Exception as e:  # noqa: BLE001
            self._events_broken = True
            try:
                print(f"libscale watch: events can no longer be written ({type(e).__name__}: {e}); "
                      "watching on without them", file=sys.stderr, flush=True)
            except Exception:  # noqa: BLE001
                pass

    def _run_hook(self, record: dict[str, Any]) -> None:
        if not self.actions.hook:
            return
        env = dict(os.environ)
        env["LIBSCALE_EVENT"] = json.dumps(record)
        env["LIBSCALE_ALERT_KIND"] = str(record.get("kind", ""))
        env["LIBSCALE_ALERT_MESSAGE"] = str(record.get("message", ""))
        env["LIBSCALE_JOB_PID"] = str(self.job.pid) if self.job else ""
        try:
            self._hooks.append(subprocess.Popen(self.actions.hook, shell=True, env=env, stdout=sys.stderr,
                                                stdin=subprocess.DEVNULL))
        except (OSError, ValueError) as e:
            self._emit("hook_error", record.get("time_s", 0.0), error=str(e))

    # -- acting -------------------------------------------------------------------------
    def _signal(self, sig: int, t_s: Optional[float], reason: str) -> bool:
        """Signals the job (or says what it would send); True when a signal was sent."""
        name = signal.Signals(sig).name
        if self.job is None:
            self._emit("signal", t_s, signal=name, sent=False, reason=reason, result="no job to signal (monitor only)")
            return False
        if self.actions.dry_run:
            target = f"process group {self.job.pgid}" if self.job.pgid is not None else f"process {self.job.pid}"
            self._emit("signal", t_s, signal=name, sent=False, reason=reason, result=f"dry run: would send to {target}")
            return False
        try:
            result = self.job.signal(sig)
        except OSError as e:
            result = f"failed: {e}"
        sent = result.startswith("sent")
        self._emit("signal", t_s, signal=name, sent=sent, reason=reason, result=result)
        return sent

    def _on_update(self, up: dict[str, Any]) -> None:
        t = up["time_s"]
        for c in up["changes"]:
            self._emit("phase", c.start_s, gpu=c.gpu if c.gpu >= 0 else None, job=c.gpu < 0,
                       **({} if c.first else {"from": c.from_phase}), to=c.to_phase,
                       detected_s=c.detected_s, power_w=round(c.power_w, 2))
        for g in up["lost"]:
            self._emit("gpu_lost", t, gpu=g, message=f"GPU {g}: no fresh samples; no action is taken on missing data")
        for g in up["returned"]:
            self._emit("gpu_returned", t, gpu=g)
        for a in up["alerts"]:
            record = {"event": "alert", "time_s": a.time_s, "kind": a.kind, "gpus": list(a.gpus), "message": a.message}
            self._emit("alert", a.time_s, kind=a.kind, gpus=list(a.gpus), message=a.message)
            self._run_hook(record)
            if a.kind in self.actions.kill_on and not self._acted:
                self._acted = True
                if self._signal(signal.SIGTERM, a.time_s, f"{a.kind} alert"):
                    self._terminated_by = a.kind
                    self._kill_at = time.monotonic() + self.actions.grace_s

    def _check_marker(self, wall: float) -> None:
        path = self.actions.checkpoint_marker
        if not path:
            return
        try:
            mtime = os.stat(path).st_mtime
        except OSError:
            return
        start = self.source.clock(mtime)
        if mtime == self._marker_mtime or start is None:  # None: the source has no clock yet; look again later
            return
        self._marker_mtime = mtime
        end = start + max(self.actions.checkpoint_duration_s, self.interval_s)
        self.stream.add_checkpoint_window(start, end)
        self._emit("checkpoint_declared", start, until_s=end, marker=path)

    def _report_errors(self, poll: Poll) -> None:
        now_bad = {g: c for g, c, _ in poll.errors}
        texts = {g: t for g, _, t in poll.errors}
        for g, c in now_bad.items():
            if self._errors_seen.get(g) != c:
                self._emit("source_error", poll.now_s, gpu=g, nvml_return=c,
                           message=f"GPU {g}: NVML returned {c} ({texts[g]}); its readings are skipped")
        self._errors_seen = now_bad

    def _write_prometheus(self, now_s: Optional[float], force: bool = False) -> None:
        path = self.actions.prometheus_textfile
        if not path or now_s is None:
            return
        mono = time.monotonic()
        if not force and mono - self._last_prom < self.actions.prometheus_interval_s:
            return
        self._last_prom = mono
        try:
            write_atomic(path, prometheus_text(self.stream, source=self.source.name, now_s=now_s))
        except OSError as e:
            self._emit("prometheus_error", now_s, error=str(e))

    # -- loop ---------------------------------------------------------------------------
    def _on_signal(self, signum: int, _frame: Any) -> None:
        # Launched: pass it on to the job, as torchrun passes it to its workers, and end
        # with the job; a third signal kills the job's group. Attached or monitoring: stop.
        if self.job is not None and self.job.launched and self.job.members():
            self._forwarded += 1
            try:
                self.job.signal(signal.SIGKILL if self._forwarded >= 3 else signum)
            except OSError:
                pass
        else:
            self._stop_signal = signum

    def run(self) -> int:
        handled = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
        previous = {s: signal.signal(s, self._on_signal) for s in handled}
        try:
            return self._loop()
        except BaseException as e:
            if self.job is not None and self.job.alive():
                print(f"libscale watch: error: {type(e).__name__}: {e}; the job (PID {self.job.pid}) keeps running, "
                      "unwatched", file=sys.stderr, flush=True)
            raise
        finally:
            for s, h in previous.items():
                signal.signal(s, h)
            self.source.close()

    def _poll_source(self, wall: float) -> list[Poll]:
        try:
            polls = self.source.poll(wall)
            err = getattr(self.source, "last_error", None)
        except Exception as e:  # noqa: BLE001 (a bad line, a vanished file: no data, never a crash)
            polls, err = [], f"{self.source.name}: {type(e).__name__}: {e}"
        if err and err != self._source_error:
            self._emit("source_error", self.source.clock(wall), message=err)
        self._source_error = err
        return polls

    def _done(self) -> bool:
        if self.job is None:
            return bool(self.source.ended)
        if self.job.alive():
            return False
        # The leader is gone. While a termination is under way, wait out the grace for the
        # rest of its group (workers that ignore SIGTERM), then SIGKILL them.
        return self._kill_at is None or not self.job.members()

    def _loop(self) -> int:
        start = {"source": self.source.name, "bands": self.stream.bands.label,
                 "deadlock_after_s": self.stream.deadlock_after_s, "kill_on": sorted(self.actions.kill_on),
                 "dry_run": self.actions.dry_run}
        if self.job is not None:
            start.update(pid=self.job.pid, process_group=self.job.pgid, launched=self.job.launched)
        wall = time.time()
        now_s: Optional[float] = self.source.clock(wall)
        self._emit("start", now_s, **start)
        ended_reported = False
        replay_step = self.interval_s / getattr(self.source, "speed", 1.0)
        next_tick = time.monotonic()
        while True:
            wall = time.time()
            polls = self._poll_source(wall)
            self.polls += 1
            for p in polls:
                if p.power_limit_w and p.power_limit_w != self._limits:
                    for g, w in p.power_limit_w.items():
                        if self._limits.get(g) != w:
                            self.stream.set_power_limit_w(g, w)
                    self._limits = dict(p.power_limit_w)
                if p.errors or self._errors_seen:
                    self._report_errors(p)
                self._on_update(self.stream.push(p.time_s, p.gpu, p.power_w, p.utilization_pct, now_s=p.now_s))
                now_s = p.now_s
            clock = self.source.clock(wall)
            if not polls and clock is not None and (self.source.live or self.source.ended):
                now_s = max(now_s if now_s is not None else clock, clock)
                self._on_update(self.stream.advance(now_s))
            self._check_marker(wall)
            if self.source.ended and not ended_reported:
                ended_reported = True
                report = getattr(self.source, "report", None)
                self._emit("source_ended", now_s, message=f"{self.source.name}: no more samples; watching the job "
                           "without data (no action on missing data)" if self.job else f"{self.source.name}: done",
                           parse=report.summary() if report is not None else None)
            self._write_prometheus(now_s)
            self._hooks = [h for h in self._hooks if h.poll() is None]
            if self._kill_at is not None and time.monotonic() >= self._kill_at:
                self._kill_at = None
                if self.job is not None and self.job.members():
                    self._signal(signal.SIGKILL, now_s, f"still running {self.actions.grace_s:g} s after SIGTERM")
            if self._done():
                break
            if self._stop_signal is not None and self._kill_at is None:
                self._emit("stopped", now_s, signal=signal.Signals(self._stop_signal).name)
                self._write_prometheus(now_s, force=True)
                return 128 + self._stop_signal
            # a fixed schedule (not a sleep after the work), so polls stay at 1 / interval_s
            step = replay_step if not self.source.live and not self.source.ended else self.interval_s
            next_tick = max(next_tick + step, time.monotonic() - step)
            if self._kill_at is not None:
                next_tick = min(next_tick, self._kill_at)
            fd = self.job.wait_fd() if self.job is not None else None
            select.select([fd] if fd is not None else [], [], [], max(next_tick - time.monotonic(), 0.0005))
        self._write_prometheus(now_s, force=True)
        status = self.job.reap() if self.job is not None else None
        for h in self._hooks:
            try:
                h.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        rc = EXIT_TERMINATED if self._terminated_by else (status or 0)
        self._emit("exit", now_s, job_status=status, terminated_by=self._terminated_by, exit_status=rc)
        return rc


def catalog_hardware_of(gpus: Sequence[dict[str, Any]]) -> Optional[str]:
    """The catalog hardware whose name appears in the NVML names of all the GPUs
    ("NVIDIA H200" -> h200; "NVIDIA B300 SXM6 AC" -> b300), else None."""
    names = {str(g.get("name", "")).lower() for g in gpus}
    if not names:
        return None
    best: Optional[str] = None
    for hw in _core.io.hardware_names():
        if all(hw.lower() in n.replace("-", " ").split() for n in names):
            best = hw
    return best
