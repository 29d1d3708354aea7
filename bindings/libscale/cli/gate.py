"""``libscale gate``: the pre-launch packing gate (exit 0 PASS, 1 FAIL, 2 bad input)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

import libscale

from ._common import add_format, emit, integer, number


def add_parser(sub: Any) -> None:
    p = sub.add_parser("gate", help="pre-launch packing gate: equal micro-batch counts on every rank, or exit 1",
                       description="Pack the per-sample token lengths as the trainer does, shard them as "
                                   "DistributedSampler does and check that every rank runs the same number of "
                                   "micro-batches. Exit status 0 on PASS, 1 on FAIL (the run would hang at the "
                                   "epoch end), 2 on bad input: `libscale gate ... && srun ...` guards a launch.")
    p.add_argument("--lengths", required=True, metavar="FILE",
                   help="per-sample token lengths: .npy (uint16/32/64, int32/64), .jsonl (see --length-field) "
                        "or raw little-endian integers (give --dtype)")
    p.add_argument("--world-size", type=integer, required=True, metavar="RANKS", help="data-parallel ranks")
    p.add_argument("--seq-len", type=integer, required=True, metavar="TOKENS", help="packed sequence length")
    p.add_argument("--packing", default="bfd", metavar="NAME",
                   help="bfd (TRL, default), bfd_split, wrapped, ffd (NeMo), greedy / greedy_split (torchtune), "
                        "knapsack (LLaMA-Factory), multipack (Axolotl), none; full names such as trl_bfd too")
    p.add_argument("--micro-batch", type=integer, default=1, metavar="SEQS",
                   help="packed sequences per micro-batch per rank (default 1)")
    p.add_argument("--grad-accum", type=integer, default=1, metavar="STEPS",
                   help="micro-batches per optimizer step (default 1)")
    p.add_argument("--shuffle-seed", type=integer, default=None, metavar="SEED",
                   help="DistributedSampler(shuffle=True, seed=SEED) (default: not shuffled)")
    p.add_argument("--drop-last", action="store_true", help="DistributedSampler(drop_last=True)")
    p.add_argument("--no-runtime-equalize", dest="runtime_equalize", action="store_false",
                   help="multipack: the loop does not truncate ranks to the minimum at run time "
                        "(Axolotl before its equalization, or a custom loop)")
    p.add_argument("--shard-before-packing", action="store_true",
                   help="each rank packs its own DistributedSampler shard (an on-the-fly per-rank "
                        "packer) instead of the sampler sharding the packed dataset")
    p.add_argument("--dtype", default=None, metavar="DTYPE",
                   help="item type of a raw --lengths file: uint16, uint32, uint64, int32, int64")
    p.add_argument("--length-field", default="length", metavar="NAME",
                   help="the integer field of a .jsonl --lengths file (default length)")
    p.add_argument("--watchdog-s", type=number, default=600.0, metavar="SECONDS",
                   help="hang detection time for the GPU-hours at risk (default 600, the NCCL watchdog)")
    add_format(p)
    p.set_defaults(run=run)


def run(a: argparse.Namespace) -> int:
    g = libscale.gate(a.lengths, world_size=a.world_size, seq_len=a.seq_len, packing=a.packing,
                      micro_batch=a.micro_batch, grad_accum=a.grad_accum, shuffle_seed=a.shuffle_seed,
                      drop_last=a.drop_last, watchdog_s=a.watchdog_s, runtime_equalize=a.runtime_equalize,
                      shard_before_packing=a.shard_before_packing, dtype=a.dtype, field=a.length_field,
                      format="raw" if a.dtype is not None else "auto")
    emit(g, a.output_format)
    sys.stdout.flush()
    return 0 if g.passed else 1
