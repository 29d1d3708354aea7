"""``libscale project``: throughput, wall time, GPU-hours, cost and energy per GPU count."""

from __future__ import annotations

import argparse
from typing import Any

from ..plan import Plan
from ._common import (
    CliError,
    add_calibration,
    add_format,
    add_group,
    add_require_fit,
    add_target,
    add_training,
    calibration_kwargs,
    checked,
    emit,
    int_list,
    integer,
    training_values,
)

SCALINGS = ("strong", "weak")


def add_job(p: argparse.ArgumentParser) -> None:
    """The job options (from the schema) and the scaling rule."""
    g = p.add_argument_group("job options")
    g.add_argument("--scaling", default="strong", choices=SCALINGS,
                   help="strong: global batch fixed; weak: per-GPU batch fixed (default strong)")
    add_group(g, "job")


def add_parser(sub: Any) -> None:
    p = sub.add_parser("project", help="throughput, wall time, GPU-hours, cost and energy per GPU count",
                       description="Project a training job over GPU counts.")
    add_target(p)
    p.add_argument("--gpus", type=int_list, required=True, metavar="LIST", help="GPU counts, e.g. 4,8,16")
    add_training(p, skip=["gpus"])
    add_job(p)
    add_calibration(p)
    p.add_argument("--quantiles", action="store_true",
                   help="P10 / P90 of each projected figure from the calibration's covariance")
    p.add_argument("--samples", type=integer, default=None, metavar="N",
                   help="samples for --quantiles (default 2000)")
    p.add_argument("--seed", type=integer, default=None, metavar="SEED",
                   help="random seed for --quantiles (default: a fixed seed)")
    add_require_fit(p)
    add_format(p)
    p.set_defaults(run=run)


def run(a: argparse.Namespace) -> int:
    extra: dict[str, Any] = {}
    if a.quantiles:
        extra = dict(quantiles=True, seed=a.seed)
        if a.samples is not None:
            extra["samples"] = a.samples
    elif a.seed is not None or a.samples is not None:
        raise CliError("--samples and --seed apply only with --quantiles")
    plan = Plan(a.model, a.hardware, **calibration_kwargs(a), **training_values(a, skip=["gpus"]))
    result = plan.project(a.gpus, job=checked(a, "job"), scaling=a.scaling, require_fit=a.require_fit, **extra)
    emit(result, a.output_format)
    return 0
