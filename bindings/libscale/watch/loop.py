"""The watch loop: poll a :class:`~.sources.PowerSource`, feed every poll to the C++
``TriageStream`` (the classifier and detector of ``libscale triage``), and act on what comes
back: JSON events, an atomically written Prometheus textfile, a hook per alert (with a
timeout), and SIGTERM (then SIGKILL after grace_s) to the job on an alert kind in kill_on.
Its settings are the core's watch option table (``libscale.options.options("watch")``),
checked there.

What the watch guarantees (docs/cli.md, "watch"): an exception inside the loop becomes an
``error`` event and the watch goes on where that is safe (a source, the classifier, the
checkpoint marker, the metrics file, a hook, acting on an alert); where it is not (keeping
track of the job), the event says so, a launched job is ended and the watcher exits with
EXIT_WATCHER_ERROR. A launched job never outlives the watch: when its main process exits,
what it left running is ended too (SIGTERM, SIGKILL after grace_s), and when the watcher
itself dies, its keeper (``_keeper.py``) does the same."""

from __future__ import annotations

import json
import math
import os
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from .. import _core
from .. import options as _options
from .._core import spec as _spec
from .._files import write_atomic
from .job import Job, Launched
from .sources import Poll, PowerSource

#: Exit status of ``libscale watch`` when it terminated the job after an alert.
EXIT_TERMINATED = 3
#: Exit status when the watch could not go on (an internal error): EX_SOFTWARE of
#: sysexits.h (https://man7.org/linux/man-pages/man3/sysexits.h.3head.html).
EXIT_WATCHER_ERROR = 70
#: Exit status of ``libscale watch`` when the watch ended well but its events could not
#: all be written (a full disk): EX_IOERR of sysexits.h. A job's failure status wins.
EXIT_EVENTS_LOST = 74
#: How long a hook may run by default (Actions.hook_timeout_s, --hook-timeout-s), s.
DEFAULT_HOOK_TIMEOUT_S = 60.0
#: After a hook's SIGTERM (on its timeout), the wait before SIGKILL, s.
HOOK_KILL_AFTER_S = 5.0
#: After SIGKILL, how long the watch waits for the job's processes to be gone before it
#: reports those left (a process in uninterruptible sleep, e.g. inside a GPU driver call,
#: ends only when that call returns) and ends; their keeper stays to reap them, s.
KILL_WAIT_S = 10.0
#: An error that persists (the same message from the same step) is told again after this, s.
ERROR_REPEAT_S = 60.0

_T = TypeVar("_T")


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
    hook_timeout_s: float = DEFAULT_HOOK_TIMEOUT_S  # a hook's whole process tree is ended after this

    def __post_init__(self) -> None:
        value: object = self.hook_timeout_s  # checked at run time: Python callers may pass anything
        if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
            raise ValueError(f"hook_timeout_s = {self.hook_timeout_s!r}; valid: a finite number of seconds > 0")


@dataclass
class _Hook:
    tree: Launched  # /bin/sh -c HOOK under its keeper
    kind: str
    deadline: float  # time.monotonic() when it times out
    timed_out: bool = False


class Watcher:
    """Poll, classify, act. ``run()`` returns the exit status: the job's own (launched),
    0 (attached or monitor-only), EXIT_TERMINATED when it terminated the job, 128 + N when
    stopped by signal N (attached or monitor-only), EXIT_WATCHER_ERROR when the watch could
    not go on. The last event is always ``exit``.

    Signals to the watcher (SIGINT, SIGTERM, SIGHUP; handled only when ``run()`` is called
    from the main thread, where Python runs signal handlers, and not when the watcher was
    started with the signal ignored, as under nohup): with a launched job, passed on to
    every process of the job (a ``signal`` event each), the watch ending with the job; the
    third one is sent as SIGKILL. Attached or monitor-only: the watch stops (``stopped``).

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
        self._kill_at: float | None = None  # when SIGKILL follows the SIGTERM sent
        self._killed_at: float | None = None  # when SIGKILL was sent
        self._cleanup = False  # ending what the job's main process left running
        self._asked: tuple[str, float] | None = None  # the last signal sent to ask the whole job to end, when
        self._hooks: list[_Hook] = []
        self._marker_mtime: float | None = None
        self._last_prom = -float("inf")
        self._prom_error: str | None = None
        self._errors_seen: dict[int, int] = {}
        self._source_error: str | None = None
        self._clock_steps: tuple[int, float] = (0, 0.0)  # the source's clock steps reported so far, s in all
        self._errors: dict[str, tuple[str, float]] = {}  # step -> the last error told, when
        self._pending: list[int] = []  # signals received, handled by the loop
        self._wake_r: int | None = None
        self._stop_signal: int | None = None
        self._forwarded = 0
        self._keeper_lost_told = False
        self._limits: dict[int, float] = {}
        self._now_s: float | None = None
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

    def _error(self, step: str, error: BaseException | str, t_s: float | None, *, consequence: str = "",
               fatal: bool = False) -> None:
        """An ``error`` event. The same message from the same step is told again only after
        ERROR_REPEAT_S: an error repeated every poll is one event a minute, not a flood."""
        text = error if isinstance(error, str) else f"{type(error).__name__}: {error}"
        last = self._errors.get(step)
        now = time.monotonic()
        if not fatal and last is not None and last[0] == text and now - last[1] < ERROR_REPEAT_S:
            return
        self._errors[step] = (text, now)
        self._emit("error", t_s, step=step, message=text + consequence, fatal=fatal)

    def _guard(self, step: str, t_s: float | None, consequence: str, fn: Callable[[], _T]) -> _T | None:
        """fn(), an exception in it reported as an ``error`` event (None then): for the steps
        the watch can go on without."""
        try:
            return fn()
        except Exception as e:
            self._error(step, e, t_s, consequence=consequence)
            return None

    # -- hooks --------------------------------------------------------------------------
    def _run_hook(self, record: dict[str, Any]) -> None:
        if not self.actions.hook:
            return
        env = dict(os.environ)
        env["LIBSCALE_EVENT"] = json.dumps(record)
        env["LIBSCALE_ALERT_KIND"] = str(record.get("kind", ""))
        env["LIBSCALE_ALERT_MESSAGE"] = str(record.get("message", ""))
        env["LIBSCALE_JOB_PID"] = str(self.job.pid) if self.job else ""
        try:
            out: Any = sys.stderr.fileno()  # the events may be on stdout: keep the hook's output off it
        except (AttributeError, ValueError, OSError):
            out = None
        try:
            # Under a keeper, in a session of its own: its whole tree is found and ended on
            # its timeout, and ends with the watcher however the watcher ends.
            tree = Launched(["/bin/sh", "-c", self.actions.hook], grace_s=HOOK_KILL_AFTER_S, env=env,
                            stdin=subprocess.DEVNULL, stdout=out, start_timeout_s=30.0)
        except (OSError, ValueError) as e:
            self._emit("hook_error", record.get("time_s", 0.0), error=str(e))
            return
        self._hooks.append(_Hook(tree, str(record.get("kind", "")),
                                 time.monotonic() + self.actions.hook_timeout_s))

    def _check_hooks(self, t_s: float | None, because: str | None = None) -> None:
        """Drops the hooks whose processes have all ended; ends those past their timeout (or
        all that run, `because` ...)."""
        running = []
        for h in self._hooks:
            if h.tree.keeper.poll() is not None:  # the keeper exits once the hook's whole tree has
                h.tree.finish(0.0)
                continue
            if not h.timed_out and (because or time.monotonic() >= h.deadline):
                h.timed_out = True
                why = because or f"it ran longer than {self.actions.hook_timeout_s:g} s"
                self._emit("hook_timeout", t_s, pid=h.tree.pid, kind=h.kind, timeout_s=self.actions.hook_timeout_s,
                           message=f"the hook (PID {h.tree.pid}, on a {h.kind} alert) is ended, {why}: its "
                                   f"processes get SIGTERM, then SIGKILL {HOOK_KILL_AFTER_S:g} s later")
                h.tree.close()  # its keeper ends the tree
            running.append(h)
        self._hooks = running

    def _finish_hooks(self, t_s: float | None) -> None:
        """At the end of the watch: waits for running hooks up to their timeouts, then ends
        them; a signal to the watcher meanwhile ends them at once."""
        if not self._hooks:
            return
        last = max(h.deadline for h in self._hooks) + HOOK_KILL_AFTER_S + KILL_WAIT_S
        while self._hooks and time.monotonic() < last:
            if self._pending:
                name = signal.Signals(self._pending[0]).name
                self._pending.clear()
                self._check_hooks(t_s, because=f"the watcher received {name} while waiting for it at the end of the "
                                               "watch")
            self._check_hooks(t_s)
            if self._hooks:
                fds = [self._wake_r] if self._wake_r is not None else []
                select.select(fds, [], [], 0.05)
                self._drain_wake()
        for h in self._hooks:  # left only when SIGKILL could not end them: their keepers stay
            h.tree.close()
        self._hooks = []

    # -- acting -------------------------------------------------------------------------
    def _signal(self, sig: int, t_s: float | None, reason: str, *, always: bool = False) -> bool:
        """Signals the job (or says what it would send); True when a signal was sent.
        always: not an action on an alert (a signal passed on, the job's leftovers), so
        sent under dry_run too."""
        name = signal.Signals(sig).name
        if self.job is None:
            self._emit("signal", t_s, signal=name, sent=False, reason=reason, result="no job to signal (monitor only)")
            return False
        if self.options.dry_run and not always:
            self._emit("signal", t_s, signal=name, sent=False, reason=reason,
                       result=f"dry run: would send to {self.job.describe()}")
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
        if up["clock_step_s"]:
            self._emit("clock_step", t, step_s=up["clock_step_s"],
                       message=f"the source's clock went back {up['clock_step_s']:.1f} s; later samples re-based to "
                               "go on from the last one")
        for g, start, end in up["gaps"]:
            self._emit("data_gap", end, gpu=g, from_s=start, to_s=end,
                       message=f"GPU {g}: no samples for {end - start:.1f} s (a gap in the data or the source's clock "
                               "stepping forward); counted as no data, never as hang time")
        for a in up["alerts"]:
            record = {"event": "alert", "time_s": a.time_s, "kind": a.kind, "gpus": list(a.gpus), "message": a.message}
            self._emit("alert", a.time_s, kind=a.kind, gpus=list(a.gpus), message=a.message)
            self._run_hook(record)
            if a.kind in self.kill_on and not self._acted:
                self._acted = True
                if self._signal(signal.SIGTERM, a.time_s, f"{a.kind} alert"):
                    self._asked = ("SIGTERM", time.monotonic())
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
        except Exception as e:  # OSError, a path that is a directory (ValueError), ...: the watch goes on
            if str(e) != self._prom_error:  # once per distinct failure, not every interval
                self._emit("prometheus_error", now_s, error=str(e))
            self._prom_error = str(e)
        else:
            self._prom_error = None

    # -- signals to the watcher ---------------------------------------------------------
    def _on_signal(self, signum: int, _frame: Any) -> None:
        # Only noted here; the loop acts on it (a handler runs between any two bytecodes of
        # the loop, which must not be cut in the middle of its own work).
        self._pending.append(signum)

    def _install_signal_handlers(self) -> Callable[[], None]:
        """Handlers for SIGINT, SIGTERM, SIGHUP and a wakeup fd so that the loop's select
        returns at once; returns what puts the previous ones back. Python runs handlers only
        in the main thread (https://docs.python.org/3/library/signal.html#signals-and-threads):
        elsewhere the signals stay the program's."""
        if threading.current_thread() is not threading.main_thread():
            return lambda: None
        previous: dict[int, Any] = {}
        for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            if signal.getsignal(s) == signal.SIG_IGN:  # started ignoring it (nohup): that was asked for
                continue
            previous[s] = signal.signal(s, self._on_signal)
        r, w = os.pipe()
        os.set_blocking(r, False)
        os.set_blocking(w, False)
        old_fd = signal.set_wakeup_fd(w, warn_on_full_buffer=False)
        self._wake_r = r

        def restore() -> None:
            signal.set_wakeup_fd(old_fd)
            for s, h in previous.items():
                signal.signal(s, h)
            self._wake_r = None
            os.close(r)
            os.close(w)

        return restore

    def _drain_wake(self) -> None:
        if self._wake_r is None:
            return
        try:
            while os.read(self._wake_r, 512):
                pass
        except BlockingIOError:
            pass

    def _handle_signals(self, t_s: float | None) -> None:
        while self._pending:
            signum = self._pending.pop(0)
            name = signal.Signals(signum).name
            if self.job is not None and self.job.launched and self.job.members():
                # Passed on to every process of the job, as a terminal sends Ctrl-C to a whole
                # foreground job; the watch ends when the job does. The third: SIGKILL.
                self._forwarded += 1
                if self._forwarded >= 3:
                    self._signal(signal.SIGKILL, t_s, f"the watcher received {name}, the third signal: SIGKILL",
                                 always=True)
                elif self._signal(signum, t_s, f"the watcher received {name}: passed on to the job", always=True):
                    self._asked = (name, time.monotonic())
            else:
                self._stop_signal = signum

    # -- loop ---------------------------------------------------------------------------
    def run(self) -> int:
        restore = self._install_signal_handlers()
        try:
            try:
                return self._loop()
            except Exception as e:
                return self._abort(e)
            except BaseException as e:  # KeyboardInterrupt, SystemExit: told, the job not left behind
                self._abort(e)
                raise
        finally:
            restore()
            try:
                self.source.close()
            except Exception as e:
                self._error("source", e, self._now_s, consequence=" (closing the source)")

    def _abort(self, e: BaseException) -> int:
        """The watch cannot go on: says so (an ``error`` event, fatal, and stderr), ends a
        launched job (its keeper: SIGTERM, SIGKILL after grace_s), leaves an attached one."""
        t_s = self._now_s
        if self.job is not None and self.job.launched:
            then = (f"; the watch cannot go on: the job is ended (SIGTERM, then SIGKILL after "
                    f"{self.options.grace_s:g} s)")
        elif self.job is not None:
            then = f"; the watch cannot go on: the job (PID {self.job.pid}) keeps running, unwatched"
        else:
            then = "; the watch cannot go on"
        text = f"{type(e).__name__}: {e}"
        self._error("watcher", text, t_s, consequence=then, fatal=True)
        try:
            print(f"libscale watch: error: {text}{then}", file=sys.stderr, flush=True)
        except Exception:
            pass
        status = None
        if self.job is not None:
            try:
                self.job.abandon()
                status = self.job.reap(timeout_s=self.options.grace_s + KILL_WAIT_S)
            except Exception:
                pass
        try:
            self._finish_hooks(t_s)
        except Exception:
            for h in self._hooks:
                h.tree.close()
        self._emit("exit", t_s, job_status=status, terminated_by=self._terminated_by,
                   exit_status=EXIT_WATCHER_ERROR)
        return EXIT_WATCHER_ERROR

    def _poll_source(self, wall: float) -> list[Poll]:
        try:
            polls = self.source.poll(wall)
            err = getattr(self.source, "last_error", None)
        except Exception as e:  # a bad line, a vanished file: no data this poll, never a crash
            self._error("source", e, self._clock(wall),
                        consequence=f"; {self.source.name} gave no samples (GPUs without fresh samples turn lost; "
                                    "no action is taken on missing data)")
            return []
        if err and err != self._source_error:
            self._emit("source_error", self._clock(wall), message=err)
        self._source_error = err
        self._guard("source", self._now_s, " (reading its parse report)", lambda: self._report_clock_steps(wall))
        return polls

    def _report_clock_steps(self, wall: float) -> None:
        """The log's clock went back (the reader re-based the rows after it): said once per step."""
        report = self.source.report
        if report is None or report.clock_steps <= self._clock_steps[0]:
            return
        step_s = report.clock_step_s - self._clock_steps[1]
        self._clock_steps = (report.clock_steps, report.clock_step_s)
        self._emit("clock_step", self._clock(wall), step_s=step_s,
                   message=f"{self.source.name}: the log's clock went back (line {report.first_clock_step_line} "
                           f"first); later rows re-based by {step_s:.1f} s to go on from the last one")

    def _clock(self, wall: float) -> float | None:
        return self._guard("source_clock", self._now_s, "", lambda: self.source.clock(wall))

    def _source_flag(self, name: str) -> bool:
        """source.live or source.ended (False when reading it fails: the watch goes on)."""
        return bool(self._guard("source", self._now_s, f" (reading {name})", lambda: getattr(self.source, name)))

    def _set_limits(self, limits: dict[int, float]) -> None:
        for g, w in limits.items():
            if self._limits.get(g) != w:
                self.stream.set_power_limit_w(g, w)
        self._limits = dict(limits)

    def _push(self, p: Poll) -> None:
        limits = p.power_limit_w
        if limits and limits != self._limits:
            self._guard("classifier", p.now_s, " (setting the power limits)", lambda: self._set_limits(limits))
        if p.errors or self._errors_seen:
            self._guard("source", p.now_s, "", lambda: self._report_errors(p))
        up = self._guard("classifier", p.now_s, "; the poll's samples are skipped",
                         lambda: self.stream.push(p.time_s, p.gpu, p.power_w, p.utilization_pct, now_s=p.now_s))
        if up is not None:
            self._guard("actions", p.now_s, "", lambda: self._on_update(up))

    def _tick(self, wall: float, ended_reported: bool) -> bool:
        """One poll: read, classify, act, write the metrics. Every step that can fail is
        guarded: the watch goes on without it. Returns whether the source's end was told."""
        polls = self._poll_source(wall)
        self.polls += 1
        for p in polls:
            self._push(p)
            self._now_s = p.now_s
        clock = self._clock(wall)
        ended = self._source_flag("ended")
        if not polls and clock is not None and (self._source_flag("live") or ended):
            self._now_s = max(self._now_s if self._now_s is not None else clock, clock)
            now_s = self._now_s
            up = self._guard("classifier", now_s, "", lambda: self.stream.advance(now_s))
            if up is not None:
                self._guard("actions", now_s, "", lambda: self._on_update(up))
        self._guard("checkpoint_marker", self._now_s, "", lambda: self._check_marker(wall))
        if ended and not ended_reported:
            ended_reported = True
            report = getattr(self.source, "report", None)
            summary = self._guard("source", self._now_s, " (its parse report)",
                                  lambda: report.summary() if report is not None else None)
            self._emit("source_ended", self._now_s,
                       message=f"{self.source.name}: no more samples; watching the job without data (no action on "
                               "missing data)" if self.job else f"{self.source.name}: done", parse=summary)
        self._write_prometheus(self._now_s)
        self._guard("hook", self._now_s, "", lambda: self._check_hooks(self._now_s))
        return ended_reported

    def _job_step(self, t_s: float | None) -> bool:
        """Keeps track of the job: SIGKILL after the grace, the end of the job's main
        process, what it left running. True when the watch is done. An exception here is
        fatal: the watch cannot know what the job does."""
        job = self.job
        if job is None:
            return self._source_flag("ended")
        mono = time.monotonic()
        if self._kill_at is not None and mono >= self._kill_at:
            self._kill_at = None
            if job.members():
                asked = self._asked[0] if self._asked is not None else "SIGTERM"
                self._signal(signal.SIGKILL, t_s, f"still running {self.options.grace_s:g} s after {asked}",
                             always=self._cleanup)
                self._killed_at = mono
        if self._killed_at is not None and mono - self._killed_at >= KILL_WAIT_S:
            left = job.members()
            if left:
                self._error("job", f"{len(left)} processes of the job are still there {KILL_WAIT_S:g} s after "
                            f"SIGKILL (PIDs {', '.join(map(str, left))}): in uninterruptible sleep, e.g. in a GPU "
                            "driver call; they end when it returns"
                            + (f"; their keeper (PID {job.keeper_pid}) stays to reap them" if job.keeper_pid else ""),
                            t_s)
            return True
        if job.alive():
            return False
        if job.keeper_lost and not self._keeper_lost_told:
            self._keeper_lost_told = True
            self._error("job", job.keeper_lost, t_s)
        if not job.launched:
            # The leader is gone. While a termination is under way, wait out the grace for the
            # rest of its group (workers that ignore SIGTERM), then SIGKILL them.
            return (self._kill_at is None and self._killed_at is None) or not job.members()
        if not job.members():
            return True
        if self._kill_at is None and self._killed_at is None:
            # The main process has exited and left processes running: they are the job's,
            # and the job never outlives its watch. Asked to end within the grace (a signal
            # passed on to all of them), they get the rest of it to do so; else SIGTERM first.
            self._cleanup = True
            if self._asked is None or mono - self._asked[1] > self.options.grace_s:
                self._signal(signal.SIGTERM, t_s, "the job's main process exited; ending the processes it left "
                             "running", always=True)
                self._asked = ("SIGTERM", mono)
            self._kill_at = self._asked[1] + self.options.grace_s
        return False

    def _loop(self) -> int:
        start = {"source": self.source.name, "bands": self.stream.bands.label,
                 "deadlock_after_s": self.stream.deadlock_after_s, "kill_on": sorted(self.kill_on),
                 "dry_run": self.options.dry_run}
        if self.job is not None:
            start.update(pid=self.job.pid, process_group=self.job.pgid, launched=self.job.launched)
            if self.job.keeper_pid is not None:
                start.update(keeper_pid=self.job.keeper_pid)
        self._now_s = self._clock(time.time())
        self._emit("start", self._now_s, **start)
        ended_reported = False
        replay_step = self.options.interval_s / getattr(self.source, "speed", 1.0)
        next_tick = time.monotonic()
        while True:
            ended_reported = self._tick(time.time(), ended_reported)
            self._handle_signals(self._now_s)
            if self._job_step(self._now_s):
                break
            if self._stop_signal is not None and self._kill_at is None:
                self._emit("stopped", self._now_s, signal=signal.Signals(self._stop_signal).name)
                return self._finish(128 + self._stop_signal)
            # a fixed schedule (not a sleep after the work), so polls stay at 1 / interval_s
            live_or_ended = self._source_flag("live") or self._source_flag("ended")
            step = replay_step if not live_or_ended else self.options.interval_s
            next_tick = max(next_tick + step, time.monotonic() - step)
            if self._kill_at is not None:
                next_tick = min(next_tick, self._kill_at)
            fds = [fd for fd in (self.job.wait_fd() if self.job is not None else None, self._wake_r) if fd is not None]
            select.select(fds, [], [], max(next_tick - time.monotonic(), 0.0005))
            self._drain_wake()
        return self._finish(None)

    def _finish(self, rc: int | None) -> int:
        """The end of every watch but a fatal one: the last metrics, the job's status, the
        hooks waited for (at most their timeouts), the ``exit`` event."""
        t_s = self._now_s
        self._write_prometheus(t_s, force=True)
        status = self.job.reap(timeout_s=KILL_WAIT_S) if self.job is not None else None
        self._finish_hooks(t_s)
        if rc is None:
            rc = EXIT_TERMINATED if self._terminated_by else (status or 0)
        self._emit("exit", t_s, job_status=status, terminated_by=self._terminated_by, exit_status=rc)
        return rc


# The option list comes from the core's table, so the docstring cannot drift from it.
Watcher.__doc__ = (Watcher.__doc__ or "").rstrip() + "\n\n" + _options.doc("watch") + "\n"
