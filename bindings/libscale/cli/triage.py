"""``libscale triage TRACE``: offline power triage of an nvidia-smi / dcgm-exporter trace."""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

import libscale

from ._common import CliError, add_format, add_group, checked, emit

TRACE_FORMATS = ("auto", "nvidia-smi", "dcgm")

def add_bands(p: argparse.ArgumentParser) -> None:
    """Bands and detector options shared by `triage` and `watch` (the detector's from the schema)."""
    p.add_argument("--hardware", default=None,
                   help="catalog name or hardware JSON file whose power bands apply (default: the GPU the "
                        "trace or NVML names when it is in the catalog, else h100)")
    p.add_argument("--calibration", default=None, metavar="FILE",
                   help="a calibration file with a power_bands section (measured bands; default: the "
                        "hardware's default, uncalibrated bands)")
    add_group(p.add_argument_group("triage options"), "triage")


def options(args: argparse.Namespace, first_start_s: float) -> dict[str, Any]:
    """The triage options given, checked by the core; checkpoint saves are scheduled from
    the trace's first sample unless --checkpoint-first-start-s says otherwise."""
    values = checked(args, "triage")
    values.setdefault("checkpoint_first_start_s", first_start_s)
    return values


def add_parser(sub: Any) -> None:
    p = sub.add_parser("triage", help="offline power triage of an nvidia-smi / dcgm-exporter trace",
                       description="Classify GPU power into compute / communication / data_starvation / "
                                   "checkpoint_or_deadlock / idle, and report deadlock, data-starvation and "
                                   "straggler alerts with timestamps. Alerts are reported, not errors (exit 0).")
    p.add_argument("trace", metavar="TRACE", help="nvidia-smi --query-gpu CSV log or dcgm-exporter text")
    p.add_argument("--input-format", default="auto", choices=TRACE_FORMATS, help="trace format (default auto)")
    add_bands(p)
    add_format(p)
    p.set_defaults(run=run)


def run(a: argparse.Namespace) -> int:
    # The core's input layer names a missing file, a directory or a device; a FIFO is read.
    trace = libscale.read_trace(a.trace, format=a.input_format)
    if len(trace) == 0:
        raise CliError(f"{trace.report.summary()}; no samples to triage")  # says why: what was skipped
    first_start = float(np.min(trace.time_s))
    # Without --hardware: the hardware the log names (an nvidia-smi `name` column), else H100's bands.
    result = libscale.triage(trace, hardware=a.hardware, calibration=a.calibration, **options(a, first_start))
    emit(result, a.output_format)
    return 0
