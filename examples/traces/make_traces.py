"""Writes the example traces in this directory (run from anywhere; deterministic).

They are SYNTHETIC: nvidia-smi CSV logs built from the documented patterns, not recordings
(no public time series of a hung job's power was found; see README.md here). 4 H100s
logged the way `nvidia-smi --query-gpu=timestamp,index,power.draw,utilization.gpu
--format=csv -l 1` writes, one line per GPU per second."""

from __future__ import annotations

import calendar
import random
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
T0 = calendar.timegm((2026, 5, 7, 22, 0, 0))
GPUS = 4

# (seconds, mean W, noise W, utilization %): one H100 (700 W) job, in order.
NCCL_HANG = [
    (120, 640, 15, 100),  # steady compute: dense training near the limit
    (90, 120, 10, 95),    # a checkpoint save: near idle, copy kernels running
    (60, 640, 15, 100),   # compute again
    (660, 71, 2, 100),    # NCCL hang: kernels spin at 100 % utilization, ~70 W (NVIDIA/nccl#968)
]


def stamp(t: float) -> str:
    return time.strftime("%Y/%m/%d %H:%M:%S", time.gmtime(int(t))) + f".{round((t % 1) * 1000):03d}"


def write(path: Path, pieces: list[tuple[int, float, float, float]], seed: int = 0) -> None:
    rng = random.Random(seed)
    lines = ["timestamp, index, power.draw [W], utilization.gpu [%]"]
    t = 0
    for seconds, watts, noise, util in pieces:
        for _ in range(seconds):
            for g in range(GPUS):
                lines.append(f"{stamp(T0 + t + 0.004 * g)}, {g}, {watts + rng.uniform(-noise, noise):.2f} W, {util} %")
            t += 1
    tmp = path.with_suffix(".tmp")
    tmp.write_text("\n".join(lines) + "\n")
    tmp.replace(path)


if __name__ == "__main__":
    write(HERE / "nccl-hang.csv", NCCL_HANG)
