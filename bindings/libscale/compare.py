"""The same job on several hardware profiles, side by side.

    >>> import libscale
    >>> c = libscale.compare("qwen3-32b", ["b300", "h200"], gpus=[8, 16], gpus_per_node=8,
    ...                      global_batch_tokens=1_048_576, tokens=1e9)
    >>> [r["hardware"] for r in c.records()]
    ['b300', 'b300', 'h200', 'h200']

Each hardware is projected by its own :class:`~libscale.Plan` (the core computes every
figure); a hardware gets its own default calibration unless one is given for it, and its
catalog price per GPU-hour unless a price file (``prices=``) or the job names one. A price
file is a ``libscale.prices/1`` JSON document::

    {"schema": "libscale.prices/1", "source": "our contract, 2026-11",
     "price_per_gpu_hour_usd": {"b300": 5.10, "h200": 2.80}}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Unpack, cast

from . import catalog as _catalog
from . import options as _options
from ._comparison import Comparison, PricesLike, compare_plans, hardware_list, projections_of, read_prices
from ._option_types import CountsAndJobOptions
from .catalog import CalibrationLike, HardwareLike, ModelLike
from .plan import SAMPLES, SCALING, Plan, Scaling, make_job

__all__ = ["Comparison", "PricesLike", "compare", "projections_of", "read_prices"]


@_options.with_options_doc("training", "job")
def compare(model: ModelLike, hardware: HardwareLike | Sequence[HardwareLike], *,
            gpus: int | Sequence[int] = (4, 8, 16), scaling: Scaling = SCALING,
            calibration: CalibrationLike | Mapping[str, CalibrationLike] = None, prices: PricesLike = None,
            quantiles: bool = False, samples: int = SAMPLES, seed: int | None = None, require_fit: bool = False,
            methods: Sequence[str] | None = None,
            **options: Unpack[CountsAndJobOptions]) -> Comparison:
    """The same job projected on each hardware profile: ``Plan(model, h, ...).project(...)`` per
    hardware. calibration: one for all, or a mapping of hardware name to calibration (a hardware
    not named gets its default). prices: a ``libscale.prices/1`` file or a mapping of hardware
    name to USD per GPU-hour (else the job's price_per_gpu_hour_usd, else the catalog's).
    methods: fine-tuning methods side by side (e.g. ``["full", "lora", "qlora"]``), each on
    every hardware and named "HARDWARE METHOD"; the fine_tuning option is then not given."""
    job, config = _options.split(options, "job")
    if methods is not None:
        if "fine_tuning" in config:
            raise ValueError("give methods= (several fine-tuning methods) or fine_tuning= (one), not both")
        if isinstance(methods, str) or not methods or len(set(methods)) != len(methods):
            raise ValueError(f"methods = {methods!r}; give a list of distinct fine-tuning methods, e.g. "
                             "['full', 'lora', 'qlora']")
    by_name = {str(k).lower(): v for k, v in calibration.items()} if isinstance(calibration, Mapping) else None
    unknown = set(by_name or ())
    plans, labels = [], []
    for h in hardware_list(hardware):
        hw = _catalog.hardware(h)
        unknown.discard(hw.name.lower())
        one = by_name.get(hw.name.lower()) if by_name is not None else cast(CalibrationLike, calibration)
        each: list[str | None] = list(methods) if methods is not None else [None]
        for method in each:
            extra = {} if method is None else {"fine_tuning": method}
            plans.append(Plan(model, hw, calibration=one, **config, **extra))  # type: ignore[arg-type]  # the core checks it
            labels.append(hw.name if method is None else f"{hw.name} {method}")
    if unknown:
        raise ValueError(f"calibration: no compared hardware is named {sorted(unknown)[0]!r}; compared: "
                         f"{', '.join(p.hardware.name for p in plans)}")
    return compare_plans(plans, gpus, job=make_job(job), prices=prices, scaling=scaling, quantiles=quantiles,
                         samples=samples, seed=seed, require_fit=require_fit, labels=labels)
