"""``libscale layouts``: the layouts of a run's GPUs that fit, fastest first."""

from __future__ import annotations

import argparse
from typing import Any

from .. import _format
from ..plan import SAMPLES, Plan
from ..results import LAYOUT_OPTIONS
from ._common import (
    CliError,
    add_calibration,
    add_format,
    add_target,
    add_training,
    calibration_kwargs,
    emit,
    int_list,
    training_values,
)

#: The options the search varies: each a comma list here, not one value.
SEARCHED = LAYOUT_OPTIONS


def name_list(text: str) -> list[str]:
    items = [s.strip() for s in text.split(",")]
    if not all(items):
        raise argparse.ArgumentTypeError(f"'{text}' is not a comma-separated list of names (e.g. fsdp,hsdp)")
    return items


def add_parser(sub: Any) -> None:
    p = sub.add_parser("layouts", help="the layouts of a run's GPUs that fit, fastest first",
                       description="Every layout of --gpus GPUs at the run's global batch: FSDP or HSDP, tensor-, "
                                   "context- and expert-parallel degrees, ring or Ulysses context parallel, "
                                   "micro-batch and activation checkpointing "
                                   "(each a comma list; the degrees default to 1 and each power of two the node, "
                                   "the GPU count or the experts allow), the other options as given. Those that "
                                   "fit are ranked fastest first, which at a fixed GPU count is also the fewest "
                                   "GPU-hours; the first ones carry their tokens/s P10-P90. Exit status 1 when none "
                                   "fits.")
    add_target(p)
    p.add_argument("--strategies", type=name_list, default=["fsdp", "hsdp"], metavar="LIST",
                   help="sharding strategies to try (default fsdp,hsdp)")
    p.add_argument("--tensor-parallel", type=int_list, default=[], metavar="LIST",
                   help="tensor-parallel degrees to try (default: 1 and powers of two up to the node)")
    p.add_argument("--context-parallel", type=int_list, default=[], metavar="LIST",
                   help="context-parallel degrees to try (default: 1 and powers of two up to --gpus)")
    p.add_argument("--context-parallel-method", type=name_list, default=["ring", "ulysses"], metavar="LIST",
                   help="context-parallel methods tried at each degree above 1 (default ring,ulysses)")
    p.add_argument("--expert-parallel", type=int_list, default=[], metavar="LIST",
                   help="expert-parallel degrees to try (default: 1 and powers of two up to a mixture of experts' "
                        "expert count; 1 for a dense model)")
    p.add_argument("--micro-batch", type=int_list, default=[1, 2, 4, 8], metavar="LIST",
                   help="micro-batches to try (default 1,2,4,8)")
    p.add_argument("--activation-checkpointing", type=name_list, default=["none", "selective", "full"],
                   metavar="LIST", help="checkpointing to try (default none,selective,full)")
    p.add_argument("--top", type=int, default=20, metavar="N", help="layouts the table shows (default 20)")
    p.add_argument("--intervals", type=int, default=10, metavar="N",
                   help="leading layouts given a tokens/s P10-P90 (default 10)")
    p.add_argument("--samples", type=int, default=SAMPLES, metavar="N",
                   help=f"draws from the calibration per interval (default {SAMPLES})")
    add_training(p, skip=SEARCHED)
    add_calibration(p)
    add_format(p)
    p.set_defaults(run=run)


def run(a: argparse.Namespace) -> int:
    if a.top < 1:
        raise CliError(f"--top = {a.top}; give a positive number of rows")
    if a.intervals < 0 or a.samples < 1:
        raise CliError(f"--intervals = {a.intervals}, --samples = {a.samples}; give --intervals >= 0 and "
                       "--samples >= 1")
    plan = Plan(a.model, a.hardware, **calibration_kwargs(a), **training_values(a, skip=SEARCHED))
    result = plan.layouts(strategies=a.strategies, tensor_parallel=a.tensor_parallel,
                          context_parallel=a.context_parallel, context_parallel_method=a.context_parallel_method,
                          expert_parallel=a.expert_parallel,
                          micro_batch=a.micro_batch,
                          activation_checkpointing=a.activation_checkpointing, intervals=a.intervals,
                          samples=a.samples)
    if a.output_format == "table":
        print(_format.terminal_safe(result.text(top=a.top)))
    else:
        emit(result, a.output_format)
    return 0 if len(result) else 1
