"""Plan: a model on a hardware profile, with a calibration and a training configuration,
and everything estimated from it (a step, a projection over GPU counts, a sweep, the
deadline and budget solvers).

    >>> import libscale
    >>> plan = libscale.Plan("qwen3-32b", "b300", gpus_per_node=8, global_batch_tokens=1_048_576)
    >>> round(plan.with_(gpus=16).step().tokens_per_s) > 0
    True

The options are the core's (:mod:`libscale.options`): their names, defaults and valid
values are declared once, in C++, and checked there when a Plan is made.
"""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal, Union, Unpack, cast

import numpy as np

from . import _format, _progress, catalog
from . import options as _options
from ._comparison import Comparison, PricesLike, compare_plans, hardware_list
from ._core import Progress as _Progress
from ._core import calibrate as _calibrate
from ._core import estimate as _estimate
from ._core import spec as _spec
from ._option_types import CountsAndJobOptions, TrainingOptions
from .catalog import CalibrationLike, HardwareLike, ModelLike
from .fit_advice import FitAdvice
from .results import Layouts, Projection, Solution, Step, Sweep

__all__ = ["Plan", "DEFAULT_CANDIDATES", "SCALING", "SAMPLES", "Scaling", "estimate_step", "project", "sweep",
           "solve_deadline", "solve_budget", "make_job"]

#: GPU counts the solvers choose from by default.
DEFAULT_CANDIDATES: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)

#: The sweep's per-element axes (the rest of the configuration is the plan's).
SWEEP_AXES: tuple[str, ...] = ("gpus", "gpus_per_node", "micro_batch", "seq_len", "global_batch_tokens")

JobLike = Union[None, Mapping[str, Any], "_estimate.Job"]

# The options every estimating call takes, each default declared once here: strong scaling
# (the global batch fixed over GPU counts), and the draws of a P10-P90 interval (a fixed
# seed unless one is given; quantiles are off unless asked for, require_fit too).
Scaling = Literal["strong", "weak"]
SCALING: Scaling = "strong"
SAMPLES = 2000


def _flag(name: str, value: Any) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name}: expected True or False, got {value!r}")
    return bool(value)


#: The most GPU counts one projection takes: each is a row (and with quantiles, samples of it).
MAX_GPU_COUNTS = 100_000


def _counts(gpus: Any) -> list[int]:
    """GPU counts as a list; each count is checked by the core."""
    if not isinstance(gpus, bool) and isinstance(gpus, (numbers.Integral, np.integer)):
        gpus = [gpus]
    if isinstance(gpus, (str, bytes, Mapping)) or not isinstance(gpus, Iterable):
        raise TypeError(f"gpus: expected a GPU count or a sequence of them, got {type(gpus).__name__}")
    if isinstance(gpus, np.ndarray):
        values = list(np.asarray(gpus, dtype=object).ravel()[:MAX_GPU_COUNTS + 1])
    else:  # read no further than the cap: range(1, 10**12) is a sequence of 10^12 counts
        values = list(itertools.islice(gpus, MAX_GPU_COUNTS + 1))
    if len(values) > MAX_GPU_COUNTS:
        raise ValueError(f"gpus: more than {MAX_GPU_COUNTS:,} GPU counts; give at most {MAX_GPU_COUNTS:,} "
                         "(every count is a row of the projection)")
    if not values:
        raise ValueError("gpus is empty; give at least one GPU count")
    out = []
    for i, g in enumerate(values):
        if isinstance(g, (bool, np.bool_)) or not isinstance(g, numbers.Real):
            raise TypeError(f"gpus[{i}]: expected an integer GPU count, got {type(g).__name__} {g!r}")
        if isinstance(g, numbers.Integral):  # exact: an int past 2^53 is not shown rounded through a float
            count = int(g)
        else:
            value = float(g)
            if not value.is_integer():
                raise ValueError(f"gpus[{i}] = {g!r}; it must be an integer")
            count = int(value)
        if not -(2**63) <= count < 2**63:
            shown = _format.big_integer(count) if isinstance(g, numbers.Integral) else repr(g)
            raise ValueError(f"gpus[{i}] = {shown}; it is beyond the 64-bit integer range")
        out.append(count)
    return out


def _cap(name: str, value: Any) -> float:
    """A budget cap for the core, where NaN means none: None is none; a NaN given is refused
    (it would silently drop the cap); the core checks the rest (finite, > 0)."""
    if value is None:
        return float("nan")
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name}: expected a number or None, got {type(value).__name__} {value!r}")
    if math.isnan(float(value)):
        raise ValueError(f"{name} = nan; give a number > 0, or None for no cap")
    return float(value)


def make_job(job: JobLike) -> _estimate.Job:
    if job is None:
        return _estimate.Job()
    if isinstance(job, _estimate.Job):
        job.validate()
        return job
    if isinstance(job, Mapping):
        return cast("_estimate.Job", _spec.make_options("job", dict(job)))
    raise TypeError(f"job: expected a dict of job options ({', '.join(_options.names('job'))}) or a Job, "
                    f"got {type(job).__name__}")


class Plan:
    """A model on a hardware profile, with a calibration and a training configuration.

    model / hardware: a catalog name, a file path (Hugging Face config.json, hardware JSON),
    a Hub id for the model, or a spec object. calibration: a CalibrationFile, a Calibration,
    a calibration file path or a shipped name such as "derived-b300-qwen3-32b" (None: the
    hardware's default). config: the training options below; ``data`` and ``checkpoint``
    take a dict of their options (or the struct)."""

    __slots__ = ("_scenario",)

    def __init__(self, model: ModelLike, hardware: HardwareLike, *, calibration: CalibrationLike = None,
                 **config: Unpack[TrainingOptions]) -> None:
        hw = catalog.hardware(hardware)
        self._scenario = _estimate.Scenario(model=catalog.model(model), hardware=hw,
                                            calibration=catalog.calibration_file(calibration, hw),
                                            config=_spec.make_options("training", dict(config)))

    @classmethod
    def _of(cls, scenario: _estimate.Scenario) -> Plan:
        plan = cls.__new__(cls)
        plan._scenario = scenario
        return plan

    # --- what it holds ---------------------------------------------------------------

    @property
    def scenario(self) -> _estimate.Scenario:
        """The compiled scenario (a copy: changing it does not change the plan)."""
        return self._scenario.copy()

    @property
    def model(self) -> _spec.ModelSpec:
        return self._scenario.model

    @property
    def hardware(self) -> _spec.HardwareProfile:
        return self._scenario.hardware

    @property
    def calibration(self) -> _calibrate.CalibrationFile:
        return self._scenario.calibration

    @property
    def config(self) -> _spec.TrainingConfig:
        return self._scenario.config

    @property
    def mesh(self) -> _spec.DeviceMesh:
        """How the GPUs split: HSDP replicas × FSDP shards × context- × tensor-parallel ranks
        (``str(plan.mesh)``: "dp_shard 32 × tp 8")."""
        config = self._scenario.config
        gpn = config.gpus_per_node or self._scenario.hardware.gpus_per_node
        return _spec.device_mesh(config, gpn)

    def options(self) -> dict[str, Any]:
        """The training options as given or defaulted (None: not set)."""
        return _spec.option_values("training", self._scenario.config)

    def with_(self, **changes: Any) -> Plan:
        """A new plan with some options (or model=, hardware=, calibration=) changed. A new
        hardware without a new calibration takes that hardware's default calibration."""
        model = changes.pop("model", self._scenario.model)
        hardware = changes.pop("hardware", None)
        calibration = changes.pop("calibration", None if hardware is not None else self._scenario.calibration)
        config = self.options()
        config.update(changes)
        return Plan(model, hardware if hardware is not None else self._scenario.hardware,
                    calibration=calibration, **config)

    def __repr__(self) -> str:
        defaults = _options.defaults("training")
        opts = "".join(f", {k}={v!r}" for k, v in self.options().items() if k in defaults and v != defaults[k])
        return (f"Plan({self._scenario.model.name!r}, {self._scenario.hardware.name!r}, "
                f"calibration={self._scenario.calibration.calibration.kind!r}{opts})")

    # --- estimates -------------------------------------------------------------------

    def step(self, *, require_fit: bool = False) -> Step:
        """One optimizer step at the plan's GPU count: time per phase, tokens/s, MFU/HFU,
        memory per GPU, energy. A configuration that does not fit is returned with
        ``memory.fits`` False; require_fit=True raises DoesNotFitError instead."""
        step = _estimate.estimate_step(self._scenario)
        if _flag("require_fit", require_fit):
            _estimate.require_fit(self._scenario, step)
        return Step(step, self)

    def fit_advice(self) -> FitAdvice:
        """What would make the plan fit in GPU memory: each change (one option group, or two
        or three where no fewer are enough) with its memory and its cost in GPU-hours for the
        same tokens, those that train the same way first; and the largest micro-batch and
        sequence length that fit with every other option as given."""
        return FitAdvice(_estimate.fit_advice(self._scenario), self)

    def project(self, gpus: int | Sequence[int] = (4, 8, 16), *, job: JobLike = None,
                scaling: Scaling = SCALING, quantiles: bool = False, samples: int = SAMPLES, seed: int | None = None,
                require_fit: bool = False) -> Projection:
        """Throughput, wall time, GPU-hours, cost and energy of a job at each GPU count.

        job: a dict of job options (tokens, epochs, price_per_gpu_hour_usd) or a Job.
        Strong scaling keeps global_batch_tokens fixed (not set: the smallest count with no
        accumulation); weak scaling keeps the per-GPU batch. A count that does not fit is
        projected all the same: its row says so (``fits``, ``fit_status``, ``needed_gib``,
        ``available_gib``, ``fit_suggestion``); require_fit=True raises DoesNotFitError for
        the first such row. quantiles=True adds P10 / P90 of each projected figure, drawn
        ``samples`` times (``seed``) from the calibration's covariance."""
        counts, the_job = _counts(gpus), make_job(job)
        p = _estimate.project(self._scenario, counts, scaling, the_job)
        if _flag("require_fit", require_fit):
            self._require_fit(counts, scaling, p.rows)
        q = None
        if _flag("quantiles", quantiles):
            options = _estimate.UncertaintyOptions(samples=samples)
            if seed is not None:
                given: Any = seed  # typed int, but a caller may pass anything
                if isinstance(given, (bool, np.bool_)) or not isinstance(given, (numbers.Integral, np.integer)) \
                        or not 0 <= int(given) < 2**64:
                    raise ValueError(f"seed = {given!r}; it must be an integer in [0, 2^64)")
                options.seed = int(given)
            q = (_estimate.projection_quantiles(self._scenario, counts, scaling, the_job, options), options)
        return Projection(p, self, counts, quantiles=q)

    def _require_fit(self, counts: list[int], scaling: str, rows: Sequence[Any]) -> None:
        configs = {c.gpus: c for c in _estimate.projection_configs(self._scenario.config, counts, scaling)}
        for row in rows:
            if not row.fits:
                at = self._scenario.copy()
                at.config = configs[row.step.gpus]
                _estimate.require_fit(at, row.step)

    def solve_deadline(self, deadline_h: float, *, gpus: int | Sequence[int] = DEFAULT_CANDIDATES,
                       job: JobLike = None, scaling: Scaling = SCALING, require_fit: bool = False) -> Solution:
        """The cheapest GPU count among ``gpus`` whose wall time meets deadline_h hours.
        Counts invalid for the configuration are skipped; ``.candidates`` lists the others."""
        counts, the_job = _counts(gpus), make_job(job)
        s = _estimate.solve_deadline(self._scenario, counts, scaling, the_job, deadline_h)
        if _flag("require_fit", require_fit):
            self._require_fit(counts, scaling, s.candidates)
        return Solution(s, self, counts, the_job, scaling, {"deadline_h": float(deadline_h)})

    def solve_budget(self, *, max_gpu_hours: float | None = None, max_cost_usd: float | None = None,
                     gpus: int | Sequence[int] = DEFAULT_CANDIDATES, job: JobLike = None,
                     scaling: Scaling = SCALING, require_fit: bool = False) -> Solution:
        """The fastest GPU count among ``gpus`` whose GPU-hours and cost stay within the caps."""
        counts, the_job = _counts(gpus), make_job(job)
        s = _estimate.solve_budget(self._scenario, counts, scaling, the_job, _cap("max_gpu_hours", max_gpu_hours),
                                   _cap("max_cost_usd", max_cost_usd))
        if _flag("require_fit", require_fit):
            self._require_fit(counts, scaling, s.candidates)
        return Solution(s, self, counts, the_job, scaling,
                        {"max_gpu_hours": max_gpu_hours, "max_cost_usd": max_cost_usd})

    def compare(self, hardware: Sequence[HardwareLike], gpus: int | Sequence[int] = (4, 8, 16), *,
                calibration: Mapping[str, CalibrationLike] | None = None, job: JobLike = None,
                prices: PricesLike = None, scaling: Scaling = SCALING, quantiles: bool = False, samples: int = SAMPLES,
                seed: int | None = None, require_fit: bool = False) -> Comparison:
        """This plan's model, configuration and job on each hardware profile, side by side.
        The plan's own hardware keeps its calibration; another takes ``calibration[name]``
        or its default. prices: a ``libscale.prices/1`` file or {hardware name: USD per
        GPU-hour} (see :mod:`libscale.compare`)."""
        if calibration is not None and not isinstance(calibration, Mapping):
            raise TypeError(f"calibration: expected a dict of hardware name: calibration, got "
                            f"{type(calibration).__name__}")
        given = {str(k).lower(): v for k, v in (calibration or {}).items()}
        plans = []
        for h in hardware_list(hardware):
            hw = catalog.hardware(h)
            # the plan's own hardware by name: its calibration stays
            own = isinstance(h, str) and hw.name == self._scenario.hardware.name and hw.name.lower() not in given
            plans.append(self if own else self.with_(hardware=hw, calibration=given.get(hw.name.lower())))
            given.pop(hw.name.lower(), None)
        if given:
            raise ValueError(f"calibration: no compared hardware is named {sorted(given)[0]!r}; compared: "
                             f"{', '.join(p.hardware.name for p in plans)}")
        return compare_plans(plans, gpus, job=make_job(job), prices=prices, scaling=scaling, quantiles=quantiles,
                             samples=samples, seed=seed, require_fit=require_fit)

    def layouts(self, *, strategies: Sequence[str] = ("fsdp", "hsdp"), tensor_parallel: Sequence[int] = (),
                context_parallel: Sequence[int] = (), context_parallel_method: Sequence[str] = ("ring", "ulysses"),
                expert_parallel: Sequence[int] = (), micro_batch: Sequence[int] = (1, 2, 4, 8),
                activation_checkpointing: Sequence[str] = ("none", "selective", "full"), intervals: int = 10,
                samples: int = SAMPLES) -> Layouts:
        """Every layout of the plan's GPUs at its global batch (FSDP or HSDP, tensor-,
        context- and expert-parallel degrees, ring or Ulysses context parallel, micro-batch,
        checkpointing; the plan's other options as they are), those that fit ranked fastest
        first; at this GPU count the fastest is also the cheapest. Empty degree lists: 1 and
        each power of two up to the node (tensor), the GPU count (context) or a mixture of
        experts' expert count (expert; 1 for a dense model); the rules drop what does not
        divide. Each context-parallel method is tried at every degree above 1. The first
        ``intervals`` rows carry their tokens/s P10–P90 (``samples`` draws each)."""
        options = _estimate.UncertaintyOptions(samples=samples)
        raw = _estimate.rank_layouts(
            self._scenario, strategies=[str(x) for x in strategies],
            tensor_parallel=[int(x) for x in tensor_parallel], context_parallel=[int(x) for x in context_parallel],
            context_parallel_methods=[str(x) for x in context_parallel_method],
            expert_parallel=[int(x) for x in expert_parallel], micro_batch=[int(x) for x in micro_batch],
            checkpointing=[str(x) for x in activation_checkpointing], intervals=int(intervals), uncertainty=options)
        return Layouts(raw, self)

    def sweep(self, *, threads: int = 0, **axes: Any) -> Sweep:
        """Step estimates over arrays of gpus, gpus_per_node, micro_batch, seq_len and
        global_batch_tokens, broadcast together (numpy rules), one per element in C++ with
        the GIL released (threads 0: one per core for large sweeps); the other options are
        the plan's. Invalid or non-fitting elements do not raise: ``issue`` / ``fits`` say
        so ('uncertain' is not fitting, as in step.memory.fits)."""
        unknown = sorted(set(axes) - set(SWEEP_AXES))
        if unknown:
            raise ValueError(f"sweep: {unknown[0]!r} is not a sweep axis; axes: {', '.join(SWEEP_AXES)} "
                             f"(other options are the plan's: plan.with_(...).sweep(...))")
        arrays = {k: _int_array(k, v) for k, v in axes.items() if v is not None}
        try:
            broadcast = np.broadcast_arrays(*arrays.values())
        except ValueError as e:
            shapes = ", ".join(f"{k} {a.shape}" for k, a in arrays.items())
            raise ValueError(f"sweep inputs do not broadcast together: {shapes}") from e
        inputs = {k: np.asarray(a, dtype=np.int64, order="C") for k, a in zip(arrays, broadcast, strict=True)}
        with _progress.watch_counter(_Progress(), "sweep", unit="configurations") as counter:
            outputs = _estimate.sweep(self._scenario, threads=threads, progress=counter, **inputs)
        shape = broadcast[0].shape if broadcast else ()
        cfg, hw = self._scenario.config, self._scenario.hardware
        base = {"gpus": cfg.gpus, "gpus_per_node": cfg.gpus_per_node or hw.gpus_per_node,
                "micro_batch": cfg.micro_batch, "seq_len": cfg.seq_len,
                # the sweep's inputs spell "not set" 0 (a numpy column of integers)
                "global_batch_tokens": cfg.global_batch_tokens or 0}
        columns = {k: inputs[k] if k in inputs else np.broadcast_to(np.int64(base[k]), shape) for k in SWEEP_AXES}
        columns.update(outputs)
        return Sweep(columns, self, axes=list(arrays))


def _int_array(name: str, value: Any) -> np.ndarray:
    """Integers (or integral floats) as an int64 array; ValueError naming the first other value."""
    a = np.asarray(value)
    if a.dtype.kind in "iu" and a.dtype != np.uint64:
        return a.astype(np.int64, copy=False)
    if a.dtype.kind == "f":
        bad = ~np.isfinite(a) | (a != np.trunc(a))
        if not bad.any():
            # integral, but a float beyond ±2^63 would wrap to -2^63 in the cast
            beyond = (a >= 2.0**63) | (a < -(2.0**63))
            if beyond.any():
                raise ValueError(f"{name}: {a[beyond].ravel()[0]!r} is beyond the 64-bit integer range")
            return a.astype(np.int64)
        raise ValueError(f"{name}: expected integers, got {a[bad].ravel()[0]!r}")
    raise TypeError(f"{name}: expected integers, got {a.dtype} values")


# --- module-level conveniences ------------------------------------------------------------


def _plan(model: ModelLike, hardware: HardwareLike, calibration: CalibrationLike,
          options: Mapping[str, Any]) -> tuple[Plan, dict[str, Any]]:
    """The plan of the training options among ``options``, and the job options."""
    job, config = _options.split(options, "job")
    return Plan(model, hardware, calibration=calibration, **config), job


@_options.with_options_doc("training")
def estimate_step(model: ModelLike, hardware: HardwareLike, *,
                  calibration: CalibrationLike = None, require_fit: bool = False,
                  **config: Unpack[TrainingOptions]) -> Step:
    """One optimizer step: ``Plan(model, hardware, calibration=..., **config).step()``."""
    return Plan(model, hardware, calibration=calibration, **config).step(require_fit=require_fit)


@_options.with_options_doc("training")
def layouts(model: ModelLike, hardware: HardwareLike, *, calibration: CalibrationLike = None,
            strategies: Sequence[str] = ("fsdp", "hsdp"), tensor_parallel: Sequence[int] = (),
            context_parallel: Sequence[int] = (), context_parallel_method: Sequence[str] = ("ring", "ulysses"),
            expert_parallel: Sequence[int] = (), micro_batch: Sequence[int] = (1, 2, 4, 8),
            activation_checkpointing: Sequence[str] = ("none", "selective", "full"), intervals: int = 10,
            **config: Any) -> Layouts:
    """The layouts of a run that fit, fastest first: ``Plan(model, hardware, ...).layouts(...)``.
    The searched lists replace the plan's own micro_batch and activation_checkpointing;
    ``config`` gives the GPU count, sequence length, global batch and every other option."""
    if "strategy" in config:
        raise TypeError("layouts() searches the strategy: give the candidates as strategies=[...], not strategy=")
    return Plan(model, hardware, calibration=calibration, **config).layouts(
        strategies=strategies, tensor_parallel=tensor_parallel, context_parallel=context_parallel,
        context_parallel_method=context_parallel_method, expert_parallel=expert_parallel, micro_batch=micro_batch,
        activation_checkpointing=activation_checkpointing, intervals=intervals)


@_options.with_options_doc("training")
def fit_advice(model: ModelLike, hardware: HardwareLike, *,
               calibration: CalibrationLike = None, **config: Unpack[TrainingOptions]) -> FitAdvice:
    """What would make a configuration fit: ``Plan(model, hardware, ...).fit_advice()``."""
    return Plan(model, hardware, calibration=calibration, **config).fit_advice()


@_options.with_options_doc("training", "job")
def project(model: ModelLike, hardware: HardwareLike, *,
            gpus: int | Sequence[int] = (4, 8, 16), scaling: Scaling = SCALING, calibration: CalibrationLike = None,
            quantiles: bool = False, samples: int = SAMPLES, seed: int | None = None, require_fit: bool = False,
            **options: Unpack[CountsAndJobOptions]) -> Projection:
    """A job projected over GPU counts: ``Plan(model, hardware, ...).project(gpus, job=...)``
    with the job options (tokens, epochs, price_per_gpu_hour_usd) among the keywords."""
    plan, job = _plan(model, hardware, calibration, options)
    return plan.project(gpus, job=job, scaling=scaling, quantiles=quantiles, samples=samples, seed=seed,
                        require_fit=require_fit)


@_options.with_options_doc("training", "job")
def solve_deadline(model: ModelLike, hardware: HardwareLike, *, deadline_h: float,
                   gpus: int | Sequence[int] = DEFAULT_CANDIDATES, scaling: Scaling = SCALING,
                   calibration: CalibrationLike = None, require_fit: bool = False,
                   **options: Unpack[CountsAndJobOptions]) -> Solution:
    """The cheapest GPU count that meets a deadline: ``Plan(...).solve_deadline(deadline_h, ...)``."""
    plan, job = _plan(model, hardware, calibration, options)
    return plan.solve_deadline(deadline_h, gpus=gpus, job=job, scaling=scaling, require_fit=require_fit)


@_options.with_options_doc("training", "job")
def solve_budget(model: ModelLike, hardware: HardwareLike, *,
                 max_gpu_hours: float | None = None, max_cost_usd: float | None = None,
                 gpus: int | Sequence[int] = DEFAULT_CANDIDATES, scaling: Scaling = SCALING,
                 calibration: CalibrationLike = None, require_fit: bool = False,
                 **options: Unpack[CountsAndJobOptions]) -> Solution:
    """The fastest GPU count within a budget: ``Plan(...).solve_budget(max_gpu_hours=..., ...)``."""
    plan, job = _plan(model, hardware, calibration, options)
    return plan.solve_budget(max_gpu_hours=max_gpu_hours, max_cost_usd=max_cost_usd, gpus=gpus, job=job,
                             scaling=scaling, require_fit=require_fit)


@_options.with_options_doc("training")
def sweep(model: ModelLike, hardware: HardwareLike, *, calibration: CalibrationLike = None,
          **options: Any) -> Sweep:
    """Vectorized step estimates: the sweep axes (gpus, gpus_per_node, micro_batch, seq_len,
    global_batch_tokens) as arrays broadcast together; the other training options scalars."""
    axes = {k: options.pop(k) for k in SWEEP_AXES if k in options}
    threads = options.pop("threads", 0)
    return Plan(model, hardware, calibration=calibration, **options).sweep(threads=threads, **axes)
