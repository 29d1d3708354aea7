"""``libscale sweep``: step estimates over the cartesian product of comma lists."""

from __future__ import annotations

import argparse
import math
from typing import Any

import numpy as np

from ..plan import Plan
from ._common import (
    CliError,
    add_calibration,
    add_format,
    add_require_fit,
    add_target,
    add_training,
    calibration_kwargs,
    emit,
    training_values,
)

#: The options that take a comma list here: the sweep's axes, in the product's order.
AXES = ("gpus", "micro_batch", "seq_len", "global_batch_tokens")


#: The most combinations one command evaluates and prints: already far beyond a table anyone
#: reads, and 10 M took minutes and several GB (the Python API takes numpy arrays of any size).
MAX_COMBINATIONS = 1_000_000


def add_parser(sub: Any) -> None:
    p = sub.add_parser("sweep", help="vectorized step estimates over the cartesian product of lists",
                       description="Evaluate every combination of the given lists (one C++ call). The axes "
                                   "(--gpus, --micro-batch, --seq-len, --global-batch-tokens) take comma lists.")
    add_target(p)
    add_training(p, lists=AXES, required=["gpus"])
    add_calibration(p)
    add_require_fit(p)
    add_format(p)
    p.set_defaults(run=run)


def run(a: argparse.Namespace) -> int:
    config = training_values(a)
    axes = {k: config.pop(k) for k in AXES if k in config}
    for name, values in axes.items():
        flag = "--" + name.replace("_", "-")
        if len(values) == 0:
            raise CliError(f"{flag}: the list is empty; give at least one value (a comma list)")
        twice = sorted({v for v in values if list(values).count(v) > 1})
        if twice:
            raise CliError(f"{flag} lists {', '.join(str(v) for v in twice)} more than once; give each value once "
                           "(each is a row of the sweep)")
    combinations = math.prod(len(v) for v in axes.values())
    if combinations > MAX_COMBINATIONS:
        sizes = " × ".join(f"{len(v):,} {k}" for k, v in axes.items())
        raise CliError(f"the lists make {combinations:,} combinations ({sizes}); at most {MAX_COMBINATIONS:,} are "
                       "printed: sweep fewer values, or call libscale.Plan(...).sweep() with numpy arrays")
    grids = np.meshgrid(*[np.asarray(v, dtype=np.int64) for v in axes.values()], indexing="ij")
    plan = Plan(a.model, a.hardware, **calibration_kwargs(a), **config)
    arrays: dict[str, Any] = dict(zip(axes, grids, strict=True))
    result = plan.sweep(**arrays)
    if a.require_fit:
        misfit = next((x for x in result.records() if x["issue"] == 0 and not x["fits"]), None)
        if misfit is not None:  # the one estimate again, for the core's DoesNotFitError message
            plan.with_(**{k: misfit[k] or None for k in ("gpus", "gpus_per_node", *AXES[1:])}).step(require_fit=True)
    emit(result, a.output_format)
    return 0
