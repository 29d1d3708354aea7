"""``libscale watch``: launch a command (or attach to a PID) and watch its GPUs' power.

The loop, sources and job control live in :mod:`libscale.watch`; this module parses the
command line (the watch and triage option groups come from the schema) and prints events."""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import re
import stat
import sys
import time
from typing import Any, TextIO

from .. import _api, _format
from .. import options as _options
from .. import schemas as _schemas
from ..results import to_jsonable
from . import triage as _triage
from ._common import FORMATS, CliError, add_group, checked, int_list


def csv_fields() -> list[str]:
    """The CSV header of ``--format csv``: every field the watch_event schema documents (so
    a field added there gets a column), the common ones first; a field an event lacks is
    left empty."""
    schema = _schemas.load("libscale.watch_event/1")
    fields = list(schema["properties"])
    for part in schema.get("allOf", []):
        fields.extend(k for k in part.get("then", {}).get("properties", {}) if k not in fields)
    return fields


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "watch", help="watch a job's GPU power live and act on a hang",
        usage="libscale watch [source] [options] (--pid PID | -- CMD [ARGS ...])",
        description="Launch a command (or attach to a PID) and watch its GPUs' power: an event line per phase "
                    "change and alert, an optional Prometheus textfile and hook, and on a deadlock SIGTERM to "
                    "every process of the job, SIGKILL after --grace-s. Never acts on missing data. A launched "
                    "job never outlives the watcher: what its main process leaves running is ended, and so is "
                    "the whole job if the watcher dies (even by SIGKILL). SIGINT, SIGTERM and SIGHUP to the "
                    "watcher are passed on to the job. Exit status: the job's own; 3 when the watcher "
                    "terminated it; 2 on bad input (e.g. no NVML); 70 when the watch could not go on.")
    src = p.add_argument_group("source (default: NVML, every GPU)")
    x = src.add_mutually_exclusive_group()
    x.add_argument("--source", choices=["nvml"], default=None, help="NVML through libnvidia-ml.so.1 (the default)")
    x.add_argument("--nvidia-smi-csv", default=None, metavar="FILE",
                   help="an nvidia-smi --query-gpu=timestamp,index,power.draw,utilization.gpu --format=csv log: "
                        "replayed at --speed, or followed as it grows with --follow")
    x.add_argument("--dcgm", default=None, metavar="URL_OR_FILE",
                   help="dcgm-exporter: http://localhost:9400/metrics scraped every poll, or a file of scrapes "
                        "replayed at --speed")
    src.add_argument("--gpus", type=int_list, default=[], metavar="LIST", help="NVML GPU indices (default all)")
    add_group(p.add_argument_group("watch options"), "watch")
    _triage.add_bands(p)
    p.add_argument("--checkpoint-marker", default=None, metavar="FILE",
                   help="a file the trainer touches when a checkpoint save starts; the detector is silent for "
                        "--checkpoint-duration-s after each touch")
    act = p.add_argument_group("actions")
    act.add_argument("--hook", default=None, metavar="CMD",
                     help="shell command run on each alert, with LIBSCALE_EVENT (JSON), LIBSCALE_ALERT_KIND, "
                          "LIBSCALE_ALERT_MESSAGE and LIBSCALE_JOB_PID in its environment, in a process group of "
                          "its own")
    act.add_argument("--hook-timeout-s", type=float, default=60.0, metavar="S",
                     help="how long a --hook may run, s: then it and every process it started get SIGTERM, "
                          "SIGKILL 5 s later (a hook_timeout event); at its end the watch waits for running hooks "
                          "at most this long (default 60)")
    act.add_argument("--prometheus-textfile", default=None, metavar="FILE",
                     help="write phase, watts, seconds in phase and alert counts here (atomically) for "
                          "node_exporter's textfile collector")
    act.add_argument("--events", default="-", metavar="FILE",
                     help="where the event lines go: a file (appended) or - for stdout (default)")
    p.add_argument("--format", dest="output_format", choices=FORMATS, default="json",
                   help="event lines: json (JSON lines, default), csv (a header, then a row per event) or "
                        "table (one sentence per event)")
    p.add_argument("--json", dest="output_format", action="store_const", const="json",
                   help="the same as --format json")
    p.add_argument("--pid", type=int, default=None, help="attach to a running process instead of launching")
    p.add_argument("command", nargs=argparse.REMAINDER, metavar="-- CMD ARGS",
                   help="the command to launch and watch, after --")
    p.set_defaults(run=run)


def _check_log(path: str, flag: str, expected: str) -> None:
    """A log to replay or follow is a regular file: a FIFO, directory or device named as one
    is refused by what it is, not reported missing."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise CliError(f"{flag} {path}: no such file; expected {expected}") from None
    except OSError as e:
        raise CliError(f"{flag} {path}: {e.strerror}; expected {expected}") from None
    if not stat.S_ISREG(mode):
        kind = ("a directory" if stat.S_ISDIR(mode) else "a FIFO (named pipe)" if stat.S_ISFIFO(mode)
                else "not a regular file")
        raise CliError(f"{flag} {path}: is {kind}; expected {expected}")


def _watch_source(a: argparse.Namespace) -> Any:
    from .. import watch as _watch

    if a.nvidia_smi_csv:
        _check_log(a.nvidia_smi_csv, "--nvidia-smi-csv", "an nvidia-smi CSV log")
        if a.follow:
            return _watch.FollowCsvSource(a.nvidia_smi_csv)
        return _watch.ReplaySource(_api.read_trace(a.nvidia_smi_csv, format="nvidia-smi"), speed=a.speed,
                                   name=f"replay of {a.nvidia_smi_csv} at {a.speed:g}x")
    if a.dcgm and re.match(r"https?://", a.dcgm):
        return _watch.DcgmSource(a.dcgm)
    if a.dcgm:
        _check_log(a.dcgm, "--dcgm", "a dcgm-exporter log, or an http:// URL to scrape dcgm-exporter live")
        return _watch.ReplaySource(_api.read_trace(a.dcgm, format="dcgm"), speed=a.speed,
                                   name=f"replay of {a.dcgm} at {a.speed:g}x")
    return _watch.NvmlPollSource(a.gpus, power=a.nvml_power)


def _line(record: dict[str, Any]) -> str:
    """One event for people: its time and kind, then its other fields."""
    skip = ("schema", "event", "time_s", "wall_time_s")  # the wall clock is in the JSON and CSV
    rest = " ".join(f"{k}={_cell(v)}" for k, v in record.items() if k not in skip and v is not None)
    t = record.get("time_s")
    return (f"t = {t:.1f} s  " if isinstance(t, (int, float)) else "") + f"{record.get('event', '?')}  {rest}"


def _cell(value: Any) -> Any:
    """A CSV cell: a list as a comma list, an object as JSON, None as empty; text a
    spreadsheet would read as a formula quoted (_format.csv_safe)."""
    if isinstance(value, list):
        return _format.csv_safe(",".join(map(str, value)))
    if isinstance(value, dict):
        return _format.csv_safe(json.dumps(value))
    return "" if value is None else _format.csv_safe(value)


def _writer(out: TextIO, fmt: str) -> Any:
    """Writes one event record in the chosen format."""
    table = csv.DictWriter(out, fieldnames=csv_fields(), extrasaction="ignore", lineterminator="\n")
    header = [fmt == "csv"]

    def write(record: dict[str, Any]) -> None:
        if fmt == "json":
            out.write(json.dumps(record) + "\n")
        elif fmt == "csv":
            if header[0]:
                table.writeheader()
                header[0] = False
            table.writerow({k: _cell(v) for k, v in record.items()})
        else:
            out.write(_line(record) + "\n")
        out.flush()

    return write


def run(a: argparse.Namespace) -> int:
    from .. import watch as _watch

    # The watch options as given, over the core's defaults (the core checks each one); the
    # sources and the stream read theirs from `a`, the Watcher takes them all.
    watch_options = _watch.watch_options(**checked(a, "watch"))
    for name in _options.names("watch"):
        setattr(a, name, getattr(watch_options, name))
    command = list(a.command)
    if command and command[0] == "--":
        command = command[1:]
    if a.pid is not None and command:
        raise CliError("give --pid or a command after --, not both")
    if a.follow and not a.nvidia_smi_csv:
        raise CliError("--follow applies to --nvidia-smi-csv")
    if not (math.isfinite(a.hook_timeout_s) and a.hook_timeout_s > 0):
        raise CliError(f"--hook-timeout-s: {a.hook_timeout_s:g}; valid: a finite number of seconds > 0")
    if a.checkpoint_marker and a.checkpoint_duration_s is None:
        raise CliError("--checkpoint-marker needs --checkpoint-duration-s (how long a save lasts after a touch)")

    source = _watch_source(a)
    hardware = a.hardware
    if hardware is None and isinstance(source, _watch.NvmlPollSource):
        hardware = _watch.catalog_hardware_of(source.gpus())
    elif hardware is None and source.report is not None and source.report.gpu_name:  # a log's name column
        hardware = _watch.catalog_hardware_of([{"name": source.report.gpu_name}])
    first = getattr(source, "first_time_s", None)
    if first is None and isinstance(source, _watch.FollowCsvSource) and a.checkpoint_interval_s is not None:
        raise CliError(f"--checkpoint-interval-s with --follow needs {a.nvidia_smi_csv} to hold a sample already "
                       "(the schedule runs on the log's clock); use --checkpoint-marker instead")
    stream = _api.triage_stream(hardware=hardware or "h100", calibration=a.calibration,
                                stale_after_s=a.stale_after_s,
                                **_triage.options(a, time.time() if first is None else first))
    actions = _watch.Actions(hook=a.hook, hook_timeout_s=a.hook_timeout_s, prometheus_textfile=a.prometheus_textfile,
                             checkpoint_marker=a.checkpoint_marker,
                             checkpoint_duration_s=a.checkpoint_duration_s or 0.0)
    out = sys.stdout if a.events == "-" else open(a.events, "a", buffering=1)  # noqa: SIM115
    write = _writer(out, a.output_format)

    lost: list[OSError] = []  # events that could not be written (a full disk, an I/O error)

    def emit(record: dict[str, Any]) -> None:
        try:
            write(to_jsonable({"schema": "libscale.watch_event/1", **record}))
        except BrokenPipeError:
            # the reader went away (e.g. `| head`): the watch goes on; no error at exit
            os.dup2(os.open(os.devnull, os.O_WRONLY), out.fileno())
            raise
        except OSError as e:
            lost.append(e)  # the watcher goes on without events (Watcher._emit); told at exit
            raise

    rc = _watch.EXIT_WATCHER_ERROR
    try:
        # Everything that can be refused is checked before the job starts.
        watcher = _watch.Watcher(source, stream, actions=actions, options=watch_options, events=emit)
        if command:
            watcher.job = _watch.Job(command=command, grace_s=watch_options.grace_s)
        elif a.pid is not None:
            watcher.job = _watch.Job(pid=a.pid)
        rc = int(watcher.run())
    finally:
        if out is not sys.stdout:
            try:
                out.close()
            except OSError as e:  # the last buffered events
                lost.append(e)
    if lost and rc == 0:
        # The job is protected either way; a clean exit would hide that the record is gone.
        # A job's own failure status is never masked by this.
        print(f"libscale watch: the events could not all be written to {a.events} ({lost[0].strerror or lost[0]}); "
              f"exit status {_watch.EXIT_EVENTS_LOST}", file=sys.stderr)
        return _watch.EXIT_EVENTS_LOST
    return rc
