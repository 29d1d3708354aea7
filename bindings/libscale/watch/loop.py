"""The watch loop: poll a :class:`~.sources.PowerSource`, feed every poll to the C++
``TriageStream`` (the classifier and detector of ``libscale triage``), and act on what comes
back: JSON events, an atomically written Prometheus textfile, a hook per alert, and
SIGTERM (then SIGKILL after grace_s) to the job on an alert kind in kill_on. Its settings
are the core's watch option table (``libscale.options.options("watch")``), checked there."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .. import _core
from .. import options as _options
from .._core import spec as _spec
from .._files import write_atomic
from .job import Job
from .sources import Poll, PowerSource

#: Exit status of ``libscale watch`` when it terminated the job after an alert.
EXIT_TERMINATED = 3


def watch_options(options: _core.triage.WatchOptions | None = None, **changes: Any) -> _core.triage.WatchOptions:
    """OPTIONS (default: the core's defaults) with CHANGES applied; the core checks each
    (ValueError naming the option, the value and what is valid; TypeError for an unknown one)."""
    values = {} if options is None else dict(_spec.option_values("watch", options))
    values.update(changes)
    result: _core.triage.WatchOptions = _spec.make_options("watch", values)
    return result


def prometheus_text(stream: _core.triage.TriageStream, *, source: str, now_s: float) -> str:
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


@dataclass(frozen=True)
class Actions:
    """What the watcher runs and writes besides signalling the job: paths and a command,
    which are not watch options (kill_on, grace_s, dry_run and the intervals are)."""

    hook: str | None = None  # shell command per alert
    prometheus_textfile: str | None = None
    checkpoint_marker: str | None = None  # a file the trainer touches when a save starts
    checkpoint_duration_s: float = 0.0  # how long after a touch of the marker saves are expected


class Watcher:
    """Poll, classify, act. ``run()`` returns the exit status: the job's own (launched),
    0 (attached or monitor-only), or EXIT_TERMINATED when it terminated the job.

    OPTIONS (a ``WatchOptions``) and keyword WATCH_OPTIONS (``interval_s=0.05``) give the
    watch options, checked by the core; the keywords win."""

    def __init__(self, source: PowerSource, stream: _core.triage.TriageStream, *, job: Job | None = None,
                 actions: Actions | None = None, options: _core.triage.WatchOptions | None = None,
                 events: Callable[[dict[str, Any]], None] = print, **watch_option_values: Any) -> None:
        self.options = watch_options(options, **watch_option_values)
        self.kill_on = frozenset(_core.triage.alert_kinds(self.options.kill_on))
        self.source = source
        self.stream = stream
        self.job = job
        self.actions = actions or Actions()
        gpus = getattr(source, "gpus", None)
        if gpus is not None:  # the GPUs the job has: one failing from its first read is missing data
            stream.expect_gpus([int(g["index"]) for g in gpus()])
        self._emit_fn = events
        self._events_broken = False
        self._acted = False  # a kill_on alert has been acted on (once per watch)
        self._terminated_by: str | None = None
        self._kill_at: float | None = None
        self._hooks: list[subprocess.Popen[bytes]] = []
        self._marker_mtime: float | None = None
        self._last_prom = -float("inf")
        self._errors_seen: dict[int, int] = {}
        self._source_error: str | None = None
        self._stop_signal: int | None = None
        self._forwarded = 0
        self._limits: dict[int, float] = {}
        self.polls = 0

    # -- output -------------------------------------------------------------------------
    def _emit(self, event: str, t_s: float | None, **data: Any) -> None:
        # A dead reader of the events (a closed pipe, a full disk) must not end the watch:
        # the job would run on unprotected.
        if self._events_broken:
            return
        try:
            self._emit_fn({"event": event, "time_s": t_s, "wall_time_s": time.time(), **data})
        except Exception as e:  # whatever the writer raises
            self._events_broken = True
            try:
                print(f"libscale watch: events can no longer be written ({type(e).__name__}: {e}); "
                      "watching on without them", file=sys.stderr, flush=True)
            except Exception:  # stderr may be gone too: nothing left to tell
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
    def _signal(self, sig: int, t_s: float | None, reason: str) -> bool:
        """Signals the job (or says what it would send); True when a signal was sent."""
        name = signal.Signals(sig).name
        if self.job is None:
            self._emit("signal", t_s, signal=name, sent=False, reason=reason, result="no job to signal (monitor only)")
            return False
        if self.options.dry_run:
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
            if a.kind in self.kill_on and not self._acted:
                self._acted = True
                if self._signal(signal.SIGTERM, a.time_s, f"{a.kind} alert"):
                    self._terminated_by = a.kind
                    self._kill_at = time.monotonic() + self.options.grace_s

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
        end = start + max(self.actions.checkpoint_duration_s, self.options.interval_s)
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

    def _write_prometheus(self, now_s: float | None, force: bool = False) -> None:
        path = self.actions.prometheus_textfile
        if not path or now_s is None:
            return
        mono = time.monotonic()
        if not force and mono - self._last_prom < self.options.prometheus_interval_s:
            return
        self._last_prom = mono
        try:
            # rewritten every poll: atomic, but not synced to disk each time
            write_atomic(path, prometheus_text(self.stream, source=self.source.name, now_s=now_s).encode("utf-8"),
                         what="the metrics file", sync=False)
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
        except Exception as e:  # a bad line, a vanished file: no data, never a crash
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
                 "deadlock_after_s": self.stream.deadlock_after_s, "kill_on": sorted(self.kill_on),
                 "dry_run": self.options.dry_run}
        if self.job is not None:
            start.update(pid=self.job.pid, process_group=self.job.pgid, launched=self.job.launched)
        wall = time.time()
        now_s: float | None = self.source.clock(wall)
        self._emit("start", now_s, **start)
        ended_reported = False
        replay_step = self.options.interval_s / getattr(self.source, "speed", 1.0)
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
                    self._signal(signal.SIGKILL, now_s, f"still running {self.options.grace_s:g} s after SIGTERM")
            if self._done():
                break
            if self._stop_signal is not None and self._kill_at is None:
                self._emit("stopped", now_s, signal=signal.Signals(self._stop_signal).name)
                self._write_prometheus(now_s, force=True)
                return 128 + self._stop_signal
            # a fixed schedule (not a sleep after the work), so polls stay at 1 / interval_s
            step = replay_step if not self.source.live and not self.source.ended else self.options.interval_s
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



# The option list comes from the core's table, so the docstring cannot drift from it.
Watcher.__doc__ = (Watcher.__doc__ or "").rstrip() + "\n\n" + _options.doc("watch") + "\n"
