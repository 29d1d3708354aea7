"""``libscale memory``: memory per GPU, whether it fits, what would make it fit and how far
the batch and sequence can grow."""

from __future__ import annotations

import argparse
from typing import Any

from ..plan import Plan
from ._common import add_calibration, add_format, add_target, add_training, calibration_kwargs, emit, training_values


def add_parser(sub: Any) -> None:
    p = sub.add_parser("memory", help="does it fit, what would make it fit, and the largest batch and sequence",
                       description="Memory per GPU of one configuration and whether it fits. When it does not: "
                                   "each change that makes it fit (checkpointing, micro-batch, fused attention, "
                                   "the fused loss, 8-bit or bf16 optimizer states, FSDP, more GPUs, shorter "
                                   "sequences; two or three together where fewer are not enough) with its memory "
                                   "and its cost in GPU-hours for the same tokens, those that train the same way "
                                   "first. Always: the largest micro-batch and the longest sequence that fit. Exit "
                                   "status 1 when the configuration does not fit.")
    add_target(p)
    add_training(p)
    add_calibration(p)
    add_format(p)
    p.set_defaults(run=run)


def run(a: argparse.Namespace) -> int:
    advice = Plan(a.model, a.hardware, **calibration_kwargs(a), **training_values(a)).fit_advice()
    emit(advice, a.output_format)
    return 0 if advice.fits else 1
