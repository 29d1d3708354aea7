"""``libscale fit``: fit a calibration to measurement files or trainer logs."""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

import libscale

from .. import _files
from .._files import read_bytes
from ..fit_result import Measurements
from ..logs._common import MAX_LOG_BYTES
from ._common import CliError, add_format, check_output, emit, flag, integer, number

#: How ``--input-format`` reads the files: JSON measurement files, or trainer logs.
INPUT_FORMATS = ("auto", "json", "hf", "torchtitan", "csv")
#: What the log parsers need that a log may not say (libscale.logs.parse_log's keywords).
LOG_CONFIG = ("model", "hardware", "gpus", "gpus_per_node", "seq_len", "micro_batch", "grad_accum",
              "activation_checkpointing", "strategy")


def add_parser(sub: Any) -> None:
    p = sub.add_parser("fit", help="fit a calibration to measurements or trainer logs",
                       description="Fit the step model's coefficients to measurement records (JSON, schema "
                                   "libscale.measurements/2 or /1: GEMM, attention, bandwidth, collective and "
                                   "step records) or trainer logs (Hugging Face, torchtitan, CSV), by maximum a "
                                   "posteriori against the hardware's default prior, and write a calibration "
                                   "file for `project --calibration`. On any error no file is written.")
    p.add_argument("measurements", nargs="+", metavar="MEASUREMENTS", help="measurement JSON files and/or trainer logs")
    p.add_argument("-o", "--output", required=True, metavar="CALIBRATION_JSON",
                   help="calibration file to write (atomically)")
    p.add_argument("--hardware", default=None, help="hardware to fit (default: the one the records name, when they "
                                                     "all agree); also the hardware of the logs")
    p.add_argument("--input-format", default="auto", choices=INPUT_FORMATS,
                   help="how to read the files (default auto: JSON measurement files as such, logs by content)")
    g = p.add_argument_group("configuration of logs (what the log does not say)")
    g.add_argument("--model", default=None, help="catalog name or config.json path")
    g.add_argument("--gpus", type=integer, default=None, metavar="N", help="GPUs of the run")
    g.add_argument("--gpus-per-node", type=integer, default=None, metavar="N", help="GPUs per node")
    g.add_argument("--seq-len", type=integer, default=None, metavar="TOKENS", help="sequence length, tokens")
    g.add_argument("--micro-batch", type=integer, default=None, metavar="SEQS", help="sequences per micro-batch")
    g.add_argument("--grad-accum", type=integer, default=None, metavar="STEPS", help="micro-batches per step")
    g.add_argument("--activation-checkpointing", default=None, metavar="{none,selective,full}",
                   help="activation checkpointing of the run")
    g.add_argument("--strategy", default=None, help="fsdp, hsdp, ddp, zero1, zero2")
    p.add_argument("--no-overhead", dest="fit_overhead", action="store_false",
                   help="do not fit a fixed per-step overhead")
    p.add_argument("--relative-error", type=number, default=0.03, metavar="E",
                   help="relative error (1 sd) of each record that states none, in [0.001, 1] (default 0.03)")
    add_format(p)
    p.set_defaults(run=run)


def _is_measurement_json(path: str) -> bool:
    """A JSON measurement file (a list of records or a libscale.measurements object), as
    opposed to a trainer log, a CSV or a trainer_state.json. A *.json file that does not
    parse is left to the measurement reader (which names the line)."""
    try:
        data = read_bytes(path, max_bytes=MAX_LOG_BYTES, expected="a measurement file or a trainer log")
    except OSError:
        return True  # let the measurement reader report the missing file
    except ValueError:  # a directory, a FIFO, a device: whichever reader the name suggests says so
        return path.lower().endswith(".json")
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return path.lower().endswith(".json")
    if isinstance(value, list):
        return True
    return isinstance(value, dict) and ("records" in value or str(value.get("schema", "")).startswith(
        "libscale.measurements"))


def _read(a: argparse.Namespace) -> Measurements:
    """The files as one measurement set: JSON measurement files as such, logs parsed with
    the configuration flags; the sources are the files as given."""
    from .. import logs

    config = {k: getattr(a, k) for k in LOG_CONFIG if getattr(a, k) is not None}
    items: list[Any] = []
    notes: list[str] = []
    try:  # logs included: a log given twice counts its steps twice
        _files.check_distinct(list(a.measurements), "a measurement file or log")
    except ValueError as e:
        raise CliError(str(e)) from None
    for path in a.measurements:
        if a.input_format == "json" or (a.input_format == "auto" and _is_measurement_json(path)):
            items.append(path)
            continue
        try:
            records = logs.parse_log(path, format=a.input_format, per_step=True, **config)
        except ValueError as e:
            # A log error about one of its keywords names it as `field`: say the flag that sets it.
            field = getattr(e, "field", None)
            raise CliError(f"{flag('', field)}: {e}" if field in LOG_CONFIG else str(e)) from None
        notes.extend(n if path in n else f"{path}: {n}" for n in getattr(records, "notes", []))
        items.append(list(records))
    return Measurements(libscale.read_measurements(*items).raw, list(a.measurements), notes)


def _hardware(a: argparse.Namespace, data: Measurements) -> str:
    """--hardware, else the one hardware the records name."""
    if a.hardware is not None:
        return str(a.hardware)
    try:
        return data.only_hardware()
    except ValueError as e:
        raise CliError(f"{e}; give --hardware") from None


def run(a: argparse.Namespace) -> int:
    check_output(a, a.output, "the calibration")
    data = _read(a)
    result = libscale.fit(data, _hardware(a, data), fit_overhead=a.fit_overhead, relative_error=a.relative_error)
    sources = [p if os.path.isabs(p) else os.path.abspath(p) for p in a.measurements]
    result.write(a.output, provenance={"source": sources, "command": "libscale fit " + " ".join(a.measurements)})
    emit(result, a.output_format)
    return 0
