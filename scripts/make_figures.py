"""Draw the figures the README shows (docs/figures/*.png) with libscale.plot.

    .venv/bin/python scripts/make_figures.py [OUT_DIR]     # default: docs/figures

tests/python/test_readme.py runs this into a temporary folder and checks that every figure
the README links is one it draws."""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only: no display
import matplotlib.pyplot

import libscale
import libscale.plot

ROOT = Path(__file__).resolve().parents[1]

#: The README's main job (scripts/main.sh), from 4 GPUs to 128.
MAIN_JOB = dict(gpus_per_node=8, seq_len=8192, micro_batch=1, global_batch_tokens=1_048_576,
                activation_checkpointing="full")


def draw(out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    plan = libscale.Plan("qwen3-32b", "b300", calibration="derived-b300-qwen3-32b", **MAIN_JOB)
    p = plan.project([4, 8, 16, 32, 64, 128], job={"tokens": 1e9}, quantiles=True, samples=2000, seed=1)
    fig, (left, right) = matplotlib.pyplot.subplots(2, 1, figsize=(10, 10), layout="constrained")
    libscale.plot.scaling(p, ax=left)
    libscale.plot.breakdown(p, ax=right)
    path = out / "qwen3-32b-b300-scaling.png"
    fig.savefig(path, dpi=90)
    matplotlib.pyplot.close(fig)
    return [path]


if __name__ == "__main__":
    for written in draw(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "figures"):
        print(written)
