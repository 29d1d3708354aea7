"""Check against the world: for every shipped series of public step timings, calibrate on
the smallest GPU count and predict the others with the same code and defaults. The
bound guards against regressions; the errors themselves are reported in the README."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import libscale

ROOT = Path(__file__).resolve().parents[2]
SERIES = sorted((ROOT / "calibration" / "data" / "measurements").glob("*.json"))


def step_config(record: dict) -> dict:
    return dict(gpus=record["gpus"], gpus_per_node=record["gpus_per_node"], seq_len=record["seq_len"],
                micro_batch=record["micro_batch"],
                global_batch_tokens=record["gpus"] * record["micro_batch"] * record["seq_len"] * record["grad_accum"],
                activation_checkpointing=record["activation_checkpointing"], strategy=record["strategy"])


def measured_tokens_per_s(record: dict) -> float:
    if "tokens_per_s" in record:
        return record["tokens_per_s"]
    return record["tokens_per_s_per_gpu"] * record["gpus"]


@pytest.mark.parametrize("path", SERIES, ids=lambda p: p.stem)
def test_calibrated_on_the_smallest_count_predicts_the_rest(path: Path):
    records = sorted(json.loads(path.read_text())["records"], key=lambda r: r["gpus"])
    first = records[0]
    fit = libscale.fit([first], first["hardware"])
    for r in records:
        s = libscale.estimate_step(r["model"], r["hardware"], calibration=fit.calibration, **step_config(r))
        error = s.tokens_per_s / measured_tokens_per_s(r) - 1
        if r is first:
            assert abs(error) < 1e-9          # a single-point calibration reproduces its point
        else:
            assert abs(error) < 0.15, f"{path.name}: {r['gpus']} GPUs off by {error:+.1%}"
