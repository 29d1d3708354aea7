"""``libscale validate``: the step model against the shipped published step timings."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .. import _format
from ..results import rows_csv
from ._common import add_format, print_json


def add_parser(sub: Any) -> None:
    p = sub.add_parser("validate", help="the step model against the shipped published step timings",
                       description="Calibrate each series of published step timings (one table of one codebase "
                                   "on one GPU) on its first row, predict the other rows, and report the errors by "
                                   "what differs from the calibration row (docs/model.md, 'Validation').")
    p.add_argument("measurements", nargs="*", metavar="MEASUREMENTS",
                   help="measurement JSON files (default: calibration/data/measurements, shipped)")
    p.add_argument("--rows", action="store_true", help="also print every row (CSV: every row instead of the summary)")
    add_format(p)
    p.set_defaults(run=run)


def _rows_text(rows: list[dict[str, Any]]) -> str:
    lines = [f"{'cat':3}  {'file':42} {'model':28} {'GPUs':>5} {'seq':>6} {'mb':>4} {'tok/s/GPU':>10} "
             f"{'default':>8} {'error':>7}  fit"]
    lines += [f"{r['category']:3}  {r['file'][:42]:42} {r['model'][:28]:28} {r['gpus']:>5} {r['seq_len']:>6} "
              f"{r['micro_batch']:>4} {r['measured_tokens_per_s_per_gpu']:>10,.0f} x{r['default_ratio']:>7.2f} "
              f"{100 * r['calibrated_error']:>+6.1f}%  {r['fit_status']}" for r in rows]
    return "\n".join(lines)


def run(a: argparse.Namespace) -> int:
    from ..validation import validate

    v = validate(*a.measurements)
    if a.output_format == "json":
        print_json(v.to_dict())
    elif a.output_format == "csv":
        sys.stdout.write(rows_csv(v.rows() if a.rows else v.summary()))
    else:
        print(_format.terminal_safe(str(v)))
        if a.rows:
            print()
            print(_format.terminal_safe(_rows_text(v.rows())))
    return 0
