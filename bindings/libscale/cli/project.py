"""``libscale project``: throughput, wall time, GPU-hours, cost and energy per GPU count."""

from __future__ import annotations

import argparse
from typing import Any

from .. import catalog
from ..compare import compare, read_prices
from ..plan import Plan
from ._common import (
    CliError,
    add_calibration,
    add_format,
    add_group,
    add_require_fit,
    add_target,
    add_training,
    calibration_kwargs,
    checked,
    emit,
    int_list,
    integer,
    training_values,
)

SCALINGS = ("strong", "weak")


def add_job(p: argparse.ArgumentParser) -> None:
    """The job options (from the schema) and the scaling rule."""
    g = p.add_argument_group("job options")
    g.add_argument("--scaling", default="strong", choices=SCALINGS,
                   help="strong: global batch fixed; weak: per-GPU batch fixed (default strong)")
    add_group(g, "job")


def add_prices(p: argparse.ArgumentParser) -> None:
    p.add_argument("--prices", default=None, metavar="PATH",
                   help="a libscale.prices/1 JSON file of USD per GPU-hour by hardware name (with a --hardware "
                        "list; overrides the catalog's prices)")


def add_plan(p: argparse.ArgumentParser) -> None:
    """What a projection is of: model, hardware (one or a list), GPU counts, the training
    and job options, calibration and prices (project and report take the same)."""
    add_target(p, many=True)
    p.add_argument("--gpus", type=int_list, required=True, metavar="LIST", help="GPU counts, e.g. 4,8,16")
    add_training(p, skip=["gpus"])
    add_job(p)
    add_calibration(p)
    add_prices(p)
    p.add_argument("--methods", default=None, metavar="LIST",
                   help="fine-tuning methods side by side, e.g. full,lora,qlora (each on every --hardware; "
                        "instead of --fine-tuning)")


def add_parser(sub: Any) -> None:
    p = sub.add_parser("project", help="throughput, wall time, GPU-hours, cost and energy per GPU count",
                       description="Project a training job over GPU counts.")
    add_plan(p)
    p.add_argument("--quantiles", action="store_true",
                   help="P10 / P90 of each projected figure from the calibration's covariance")
    p.add_argument("--samples", type=integer, default=None, metavar="N",
                   help="samples for --quantiles (default 2000)")
    p.add_argument("--seed", type=integer, default=None, metavar="SEED",
                   help="random seed for --quantiles (default: a fixed seed)")
    add_require_fit(p)
    add_format(p)
    p.set_defaults(run=run)


def quantile_options(a: argparse.Namespace) -> dict[str, Any]:
    """The projection's quantiles, samples and seed keywords from --quantiles (or report's
    --no-quantiles), --samples and --seed."""
    if not a.quantiles:
        return {}
    extra: dict[str, Any] = dict(quantiles=True, seed=a.seed)
    if a.samples is not None:
        extra["samples"] = a.samples
    return extra


def run(a: argparse.Namespace) -> int:
    if not a.quantiles and (a.seed is not None or a.samples is not None):
        raise CliError("--samples and --seed apply only with --quantiles")
    result = projection(a, quantile_options(a))
    emit(result, a.output_format)
    return 0


def hardware_list(text: str) -> list[str]:
    """--hardware: one name or path, or a comma-separated list of them."""
    names = [s.strip() for s in text.split(",")]
    if any(not n for n in names):
        raise CliError(f"--hardware: '{text}' has an empty name; give e.g. b300 or b300,b200,h200")
    return names


def calibrations(text: str | None, hardware: list[str]) -> Any:
    """--calibration: one calibration, or with a --hardware list, HW=CALIBRATION pairs
    separated by commas (a hardware not named gets its default)."""
    if text is None or len(hardware) == 1:
        return text
    pairs: dict[str, str] = {}
    for item in text.split(","):
        name, sep, value = item.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise CliError(f"--calibration: '{item}' with a --hardware list must be HARDWARE=CALIBRATION, e.g. "
                           f"b300=derived-b300-qwen3-32b")
        key = name.strip().lower()
        if key in pairs:
            raise CliError(f"--calibration: {name.strip()} is given twice ('{pairs[key]}' and '{value.strip()}'); "
                           "give each hardware one calibration")
        pairs[key] = value.strip()
    return pairs


def projection(a: argparse.Namespace, extra: dict[str, Any]) -> Any:
    """A Projection, or a Comparison when --hardware lists several."""
    hardware = hardware_list(a.hardware)
    training = training_values(a, skip=["gpus"])
    job = checked(a, "job")
    methods = None
    if a.methods is not None:
        methods = [m.strip() for m in a.methods.split(",")]
        if any(not m for m in methods):
            raise CliError(f"--methods: '{a.methods}' has an empty name; give e.g. full,lora,qlora")
    if len(hardware) == 1 and methods is None:
        if a.prices is not None:
            prices = read_prices(a.prices)
            name = catalog.hardware(hardware[0]).name.lower()
            if name in prices:
                if "price_per_gpu_hour_usd" in job:
                    raise CliError("give --prices or --price-per-gpu-hour, not both")
                job["price_per_gpu_hour_usd"] = prices[name]
        plan = Plan(a.model, hardware[0], **calibration_kwargs(a), **training)
        return plan.project(a.gpus, job=job, scaling=a.scaling, require_fit=a.require_fit, **extra)
    return compare(a.model, hardware, gpus=a.gpus, calibration=calibrations(a.calibration, hardware),
                   prices=a.prices, scaling=a.scaling, require_fit=a.require_fit, methods=methods, **extra,
                   **training, **job)
