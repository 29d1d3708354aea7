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

Layout: ``sources`` (the :class:`PowerSource` protocol and its four sources), ``job`` (process
group, signals, kill), ``loop`` (the :class:`Watcher`, its actions, the Prometheus text).
The settings are the core's watch option table (``libscale.options.options("watch")``).
"""

from __future__ import annotations

from .job import Job
from .loop import (
                      EXIT_TERMINATED,
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

__all__ = ["EXIT_TERMINATED", "Actions", "DcgmSource", "FollowCsvSource", "Job", "NvmlPollSource", "Poll",
           "PowerSource", "ReplaySource", "Watcher", "catalog_hardware_of", "prometheus_text", "watch_options"]
