"""``libscale solve``: the cheapest GPU count for a deadline, or the fastest within a budget."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .. import _format
from ..plan import DEFAULT_CANDIDATES, Plan
from ._common import (
    CliError,
    add_calibration,
    add_format,
    add_require_fit,
    add_target,
    add_training,
    calibration_kwargs,
    checked,
    emit,
    int_list,
    number,
    training_values,
)
from .project import add_job


def add_parser(sub: Any) -> None:
    p = sub.add_parser("solve", help="the cheapest GPU count for a deadline, or the fastest within a budget",
                       description="Choose a GPU count: the cheapest that meets --deadline-h, or the fastest "
                                   "within --max-gpu-hours / --max-cost-usd. Exit status 1 when none does.")
    add_target(p)
    p.add_argument("--gpus", type=int_list, default=list(DEFAULT_CANDIDATES), metavar="LIST",
                   help="candidate GPU counts (default " + ",".join(str(g) for g in DEFAULT_CANDIDATES) + ")")
    p.add_argument("--deadline-h", type=number, default=None, metavar="HOURS", help="wall-time deadline, hours")
    p.add_argument("--max-gpu-hours", type=number, default=None, metavar="GPU_HOURS", help="GPU-hour budget")
    p.add_argument("--max-cost-usd", type=number, default=None, metavar="USD", help="cost budget, USD")
    add_training(p, skip=["gpus"])
    add_job(p)
    add_calibration(p)
    add_require_fit(p)
    add_format(p)
    p.set_defaults(run=run)


def run(a: argparse.Namespace) -> int:
    budget = a.max_gpu_hours is not None or a.max_cost_usd is not None
    if a.deadline_h is not None and budget:
        raise CliError("give either --deadline-h or a budget (--max-gpu-hours / --max-cost-usd), not both")
    if a.deadline_h is None and not budget:
        raise CliError("give --deadline-h HOURS, or --max-gpu-hours and/or --max-cost-usd")
    plan = Plan(a.model, a.hardware, **calibration_kwargs(a), **training_values(a, skip=["gpus"]))
    kwargs = dict(gpus=a.gpus, job=checked(a, "job"), scaling=a.scaling, require_fit=a.require_fit)
    if a.deadline_h is not None:
        result = plan.solve_deadline(a.deadline_h, **kwargs)
    else:
        result = plan.solve_budget(max_gpu_hours=a.max_gpu_hours, max_cost_usd=a.max_cost_usd, **kwargs)
    if a.output_format == "table" and not result.found:
        # The table on stdout; why nothing was chosen (from the "no GPU count" line: how many
        # would, what was left out) on stderr.
        lines = result.text().splitlines()
        at = next((i for i, ln in enumerate(lines) if ln.startswith("no GPU count")), len(lines) - 1)
        print(_format.terminal_safe("\n".join(lines[:at])))
        print(_format.terminal_safe("\n".join(lines[at:])), file=sys.stderr)
    else:
        emit(result, a.output_format)
    return 0 if result.found else 1
