"""``libscale gate``: the pre-launch packing gate (exit 0 PASS, 1 FAIL, 2 bad input)."""

from __future__ import annotations

import argparse
import sys
import warnings
from typing import Any

import libscale

from ._common import add_format, add_group, checked, emit, integer


def add_parser(sub: Any) -> None:
    p = sub.add_parser("gate", help="pre-launch packing gate: equal micro-batch counts on every rank, or exit 1",
                       description="Pack the per-sample token lengths as the trainer does, shard them as "
                                   "DistributedSampler does and check that every rank runs the same number of "
                                   "micro-batches. Exit status 0 on PASS, 1 on FAIL (the run would hang at the "
                                   "epoch end), 2 on bad input: `libscale gate ... && srun ...` guards a launch.")
    p.add_argument("--lengths", required=True, metavar="FILE",
                   help="per-sample token lengths: .npy (any integer dtype, either byte order), .jsonl (see "
                        "--length-field) or raw integers (give --dtype)")
    p.add_argument("--packing", default=None, metavar="NAME",
                   help="the packer by a short name: bfd (TRL, default), bfd_split, wrapped, ffd (NeMo), greedy / "
                        "greedy_split (torchtune), knapsack (LLaMA-Factory), multipack (Axolotl), none; by the "
                        "trainer's name for its default (trl, torchtune, llama-factory, axolotl; not nemo, whose "
                        "default first_fit_shuffle is not reproduced); or a full name as --packer takes it (TRL's "
                        "deprecated bfd-requeue: bfd_split, with a warning)")
    p.add_argument("--shuffle-seed", type=integer, default=None, metavar="SEED",
                   help="DistributedSampler(shuffle=True, seed=SEED): --shuffle --seed SEED in one flag")
    g = p.add_argument_group("gate options")
    add_group(g, "gate", skip=("packer",), required=("world_size", "seq_len"))
    p.add_argument("--dtype", default=None, metavar="DTYPE",
                   help="item type of a raw --lengths file: uint8, int8, uint16, int16, uint32, int32, uint64, "
                        "int64 (little-endian) or a numpy code with its byte order, e.g. >u4")
    p.add_argument("--length-field", default="length", metavar="NAME",
                   help="the integer field of a .jsonl --lengths file (default length)")
    add_format(p)
    p.set_defaults(run=run)


def run(a: argparse.Namespace) -> int:
    # A deprecated name (TRL's bfd-requeue) is gated as what it stands for, with one
    # stderr line saying so, as TRL warns.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", FutureWarning)
        g = libscale.gate(a.lengths, packing=a.packing, shuffle_seed=a.shuffle_seed, dtype=a.dtype,
                          field=a.length_field, format="raw" if a.dtype is not None else "auto",
                          **checked(a, "gate"))
    for w in caught:
        sys.stderr.write(f"libscale: warning: {' '.join(str(w.message).split())}\n")
    emit(g, a.output_format)
    sys.stdout.flush()
    return 0 if g.passed else 1
