"""Time the vectorized sweep and single estimates from Python.

    python bench/bench_sweep.py [--configs 1000000] [--repeat 7] [--threads 0]

Prints the median (and min / max) of each: a 1,000,000-configuration sweep
(libscale.sweep, inputs broadcast in Python, one C++ call), the same through
libscale._core.estimate.sweep with prepared arrays, and single estimate_step / project calls.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable

import numpy as np

import libscale


def timed(fn: Callable[[], object], repeat: int, number: int = 1) -> list[float]:
    fn()  # warm-up (catalog parsing, first-touch of pages)
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        out.append((time.perf_counter() - t0) / number)
    return out


def report(name: str, seconds: list[float], per: int = 1) -> None:
    med = statistics.median(seconds)
    line = (f"{name:<54} median {med * 1e3:10.3f} ms   min {min(seconds) * 1e3:10.3f} ms   "
            f"max {max(seconds) * 1e3:10.3f} ms")
    if per > 1:
        line += f"   {med / per * 1e9:7.1f} ns/config   {per / med / 1e6:6.2f} M configs/s"
    print(line)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--configs", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--threads", type=int, default=0, help="sweep threads (0: one per core)")
    a = ap.parse_args(argv)

    print(f"libscale {libscale.__version__}, Python {sys.version.split()[0]}, numpy {np.__version__}, "
          f"{os.cpu_count()} CPUs")
    # A realistic grid: GPU counts × micro-batches × sequence lengths × global batches.
    gpus = np.array([4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048], dtype=np.int64)
    micro = np.arange(1, 9, dtype=np.int64)
    seq = np.array([1024, 2048, 4096, 8192, 16384], dtype=np.int64)
    n_batches = max(1, a.configs // (gpus.size * micro.size * seq.size))
    batches = (np.arange(1, n_batches + 1, dtype=np.int64) * 262_144)
    shape = (gpus.size, micro.size, seq.size, batches.size)
    n = int(np.prod(shape))
    g, m, s, b = (gpus[:, None, None, None], micro[None, :, None, None], seq[None, None, :, None],
                  batches[None, None, None, :])
    print(f"sweep grid {shape} = {n:,} configurations (qwen3-32b on b300, FSDP, full checkpointing)")

    result = libscale.sweep("qwen3-32b", "b300", gpus=g, micro_batch=m, seq_len=s, global_batch_tokens=b,
                            threads=a.threads)
    print(f"  valid {int(result.valid.sum()):,}, fitting {int(result.fits.sum()):,}")
    report("libscale.sweep (broadcast + C++)", timed(
        lambda: libscale.sweep("qwen3-32b", "b300", gpus=g, micro_batch=m, seq_len=s, global_batch_tokens=b,
                               threads=a.threads), a.repeat), n)

    # Every configuration valid (no accumulation), so every one is fully estimated.
    gv = np.tile(gpus, n // gpus.size + 1)[:n]
    mv = np.tile(micro, n // micro.size + 1)[:n]
    all_valid = libscale.sweep("qwen3-32b", "b300", gpus=gv, micro_batch=mv, seq_len=8192, threads=a.threads)
    assert all_valid.valid.all()
    report(f"libscale.sweep, {n:,} all-valid configurations", timed(
        lambda: libscale.sweep("qwen3-32b", "b300", gpus=gv, micro_batch=mv, seq_len=8192, threads=a.threads),
        a.repeat), n)

    spec, hw = libscale.model("qwen3-32b"), libscale.hardware("b300")
    scenario = libscale.Plan(spec, hw).scenario  # the compiled Scenario the core's estimates take
    flat = {k: np.ascontiguousarray(np.broadcast_to(v, shape)).ravel()
            for k, v in (("gpus", g), ("micro_batch", m), ("seq_len", s), ("global_batch_tokens", b))}
    report("libscale._core.estimate.sweep (prepared arrays)", timed(
        lambda: libscale._core.estimate.sweep(scenario, threads=a.threads, **flat), a.repeat), n)
    report("libscale._core.estimate.sweep (prepared, 1 thread)", timed(
        lambda: libscale._core.estimate.sweep(scenario, threads=1, **flat), a.repeat), n)

    report("libscale.estimate_step (names)", timed(
        lambda: libscale.estimate_step("qwen3-32b", "b300", gpus=16, global_batch_tokens=1_048_576),
        a.repeat, number=200))
    report("libscale.estimate_step (spec objects)", timed(
        lambda: libscale.estimate_step(spec, hw, gpus=16, global_batch_tokens=1_048_576),
        a.repeat, number=200))
    scenario16 = libscale.Plan(spec, hw, gpus=16, global_batch_tokens=1_048_576).scenario
    report("libscale._core.estimate.estimate_step", timed(
        lambda: libscale._core.estimate.estimate_step(scenario16), a.repeat, number=1000))
    report("libscale.project (4, 8, 16 GPUs)", timed(
        lambda: libscale.project("qwen3-32b", "b300", gpus=[4, 8, 16], gpus_per_node=8,
                                 global_batch_tokens=1_048_576), a.repeat, number=50))
    return 0


if __name__ == "__main__":
    sys.exit(main())
