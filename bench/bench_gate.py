"""The packing gate end to end: 10,000,000 seeded long-tailed sample lengths (seq_len
8192) written as .npy, then libscale.gate(path, world_size=16, seq_len=8192,
packing="bfd") from the file — read, pack, shard, judge. Median of 3 runs (and of every
other packer with --all).

    .venv/bin/python bench/bench_gate.py [--samples N] [--all]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

import numpy as np

import libscale


def lengths(n: int, seq_len: int, seed: int = 0) -> np.ndarray:
    """Log-normal body (median ~600 tokens) with a Pareto tail; ~0.5 % over seq_len."""
    rng = np.random.default_rng(seed)
    body = rng.lognormal(mean=6.4, sigma=1.0, size=n)
    tail = rng.random(n) < 0.05
    body[tail] = seq_len * 0.25 * (1 + rng.pareto(2.0, int(tail.sum())))
    return np.clip(body, 1, 4 * seq_len).astype(np.uint32)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=10_000_000)
    ap.add_argument("--all", action="store_true", help="every packer, not only bfd")
    a = ap.parse_args()
    seq_len = 8192
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "lengths.npy")
        np.save(path, lengths(a.samples, seq_len))
        packers = ["bfd"] + ([p for p in libscale.packing_names() if p not in ("trl_bfd", "torchtune")]
                             if a.all else [])
        for packing in packers:
            times = []
            for _ in range(3):
                t0 = time.perf_counter()
                g = libscale.gate(path, world_size=16, seq_len=seq_len, packing=packing)
                times.append(time.perf_counter() - t0)
            print(f"gate {packing:>18}: {a.samples:,} samples, 16 ranks: median {statistics.median(times):.3f} s "
                  f"(runs {', '.join(f'{t:.3f}' for t in times)}); {g.global_bins:,} packed sequences; "
                  f"{'PASS' if g.passed else 'FAIL'}")


if __name__ == "__main__":
    main()
