"""The hang watcher behind ``libscale watch``.

It polls GPU power from a source (NVML, a growing nvidia-smi log, dcgm-exporter, or a
recorded trace replayed at N x speed), feeds every poll to the C++ ``TriageStream`` (the
same classifier and detector as ``libscale triage``), and acts on what comes back:

* a JSON line per phase change, alert, lost/returned GPU, signal and exit;
* a Prometheus textfile (node_exporter's textfile collector), written atomically;
* a hook command per alert (environment: LIBSCALE_EVENT as JSON, LIBSCALE_ALERT_KIND, ...);
* on an alert kind in ``kill_on`` (default: deadlock): SIGTERM to every process of the job,
  SIGKILL after ``grace_s`` to those still there.

Safety: signals go only to the processes of the job the watcher started (the whole tree
under its keeper, found even after ``setsid`` or a double fork, each signalled through a
pidfd checked against its start time, so a recycled PID is never hit) or to the PID it was
given (through a pidfd; its process group only while that process is alive and leads it;
its descendants still below it). A launched job never outlives the watcher: what its main
process leaves running is ended when it exits, and the keeper ends the whole tree when the
watcher dies, even by SIGKILL (``_keeper.py`` says why a keeper process). Hooks run the
same way, with a timeout. Missing data never triggers an action: a GPU without fresh
samples is "lost", and while any GPU is lost the deadlock clock does not run. ``dry_run``
logs the signals it would send on an alert and sends none (hooks still run: they are how
the alert plumbing is tested). An exception inside the loop is an ``error`` event, and the
watch goes on where that is safe; where not, it says so and exits with EXIT_WATCHER_ERROR.

Layout: ``sources`` (the :class:`PowerSource` protocol and its four sources), ``job`` (the
launched or attached job, signals), ``_keeper`` (the keeper process, the /proc tree walk),
``loop`` (the :class:`Watcher`, its actions, the Prometheus text).
The settings are the core's watch option table (``libscale.options.options("watch")``).
"""

from __future__ import annotations

from .job import Job
from .loop import (
                      EXIT_EVENTS_LOST,
                      EXIT_TERMINATED,
                      EXIT_WATCHER_ERROR,
                      Actions,
                      Watcher,
                      prometheus_text,
                      watch_options,
)
from .sources import (
                      DcgmSource,
                      FollowCsvSource,
                      NvmlPollSource,
                      Poll,
                      PowerSource,
                      ReplaySource,
                      catalog_hardware_of,
)

__all__ = ["EXIT_EVENTS_LOST", "EXIT_TERMINATED", "EXIT_WATCHER_ERROR", "Actions", "DcgmSource", "FollowCsvSource",
           "Job", "NvmlPollSource", "Poll", "PowerSource", "ReplaySource", "Watcher", "catalog_hardware_of",
           "prometheus_text", "watch_options"]
