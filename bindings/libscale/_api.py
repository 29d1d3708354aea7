"""Keyword-argument front ends over the C++ core.

Everything here converts arguments (names or paths to specs, dicts to structs, Python
sequences to numpy arrays), checks their types and forwards to ``libscale._core``.
Every number is computed in C++; this module does no arithmetic of its own.
"""

from __future__ import annotations

import numbers
import os
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Optional, Sequence, Union

import numpy as np

from . import _core
from ._core import (
    Calibration,
    CalibrationFile,
    CheckpointPolicy,
    DataPipeline,
    HardwareProfile,
    Job,
    ModelSpec,
    TrainingConfig,
)

if TYPE_CHECKING:
    from ._results import SweepResult

PathLike = Union[str, "os.PathLike[str]"]
ModelLike = Union[str, "os.PathLike[str]", ModelSpec]
HardwareLike = Union[str, "os.PathLike[str]", HardwareProfile]
CalibrationLike = Union[None, str, "os.PathLike[str]", Calibration, CalibrationFile]

__all__ = [
    "model",
    "models",
    "hardware",
    "hardware_names",
    "default_calibration",
    "count_parameters",
    "flops_per_token",
    "training_config",
    "estimate_step",
    "project",
    "sweep",
    "solve_deadline",
    "solve_budget",
    "describe_issue",
    "read_measurements",
    "fit",
    "read_calibration",
]

#: Defaults shared by estimate_step, project, sweep and the solvers.
CONFIG_DEFAULTS: dict[str, Any] = {
    "gpus_per_node": None,
    "seq_len": 8192,
    "micro_batch": 1,
    "global_batch_tokens": None,
    "strategy": "fsdp",
    "activation_checkpointing": "full",
    "reshard_after_forward": True,
    "reduce_dtype": "bf16",
    "grad_sync": "every_micro_batch",
    "attention_span_tokens": None,
    "data": None,
    "checkpoint": None,
}

# Default GPU counts the solvers choose from.
DEFAULT_CANDIDATES = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)


# --- argument conversion -------------------------------------------------------------


def _name_or_path(what: str, value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, os.PathLike)):
        return os.fsdecode(value)
    raise TypeError(f"{what}: expected a catalog name, a file path or a {what.capitalize()} object, "
                    f"got {type(value).__name__}")


def _model(value: ModelLike) -> ModelSpec:
    if isinstance(value, ModelSpec):
        return value
    if isinstance(value, (str, bytes, os.PathLike)):
        return _core.find_model(_name_or_path("model", value))
    raise TypeError(f"model: expected a catalog name, a path to a config.json or a ModelSpec, "
                    f"got {type(value).__name__}")


def _hardware(value: HardwareLike) -> HardwareProfile:
    if isinstance(value, HardwareProfile):
        return value
    if isinstance(value, (str, bytes, os.PathLike)):
        return _core.find_hardware(_name_or_path("hardware", value))
    raise TypeError(f"hardware: expected a catalog name, a path to a hardware JSON file or a "
                    f"HardwareProfile, got {type(value).__name__}")


def _calibration_file(value: CalibrationLike, hw: HardwareProfile) -> CalibrationFile:
    """A CalibrationFile from None (the hardware's default), a Calibration, a CalibrationFile
    or a path / shipped name (read and checked against hw by the core)."""
    if value is None:
        return CalibrationFile(_core.default_calibration(hw))
    if isinstance(value, CalibrationFile):
        if value.hardware != hw.name:
            raise ValueError(f"calibration: made for hardware {value.hardware!r}, but it is being used for "
                             f"hardware {hw.name!r}; a calibration applies only to the hardware it was made on")
        return value
    if isinstance(value, Calibration):
        return CalibrationFile(value)
    if isinstance(value, (str, bytes, os.PathLike)):
        return _core.read_calibration_file(_name_or_path("calibration", value), hw)
    raise TypeError(f"calibration: expected a Calibration, a CalibrationFile, a calibration file path or "
                    f"shipped name, or None (the hardware's default), got {type(value).__name__}")


def _calibration(value: CalibrationLike, hw: HardwareProfile) -> Calibration:
    if value is None:
        return _core.default_calibration(hw)
    if isinstance(value, Calibration):
        return value
    return _calibration_file(value, hw).calibration


_INT64 = np.iinfo(np.int64)


def _int(name: str, value: Any) -> int:
    """An integer argument: ints (numpy too) and integral floats; never bools."""
    if isinstance(value, (bool, np.bool_)) or value is None:
        raise TypeError(f"{name}: expected an integer, got {value!r}")
    if isinstance(value, numbers.Integral):
        out = int(value)
    elif isinstance(value, numbers.Real):
        if not float(value).is_integer():
            raise ValueError(f"{name} = {value!r}; it must be an integer")
        out = int(value)
    else:
        raise TypeError(f"{name}: expected an integer, got {type(value).__name__} {value!r}")
    if not _INT64.min <= out <= _INT64.max:
        raise ValueError(f"{name} = {out}; it is beyond the 64-bit integer range")
    return out


def _opt_int(name: str, value: Any) -> int:
    """None means 'not set' (0 in the core)."""
    return 0 if value is None else _int(name, value)


def _float(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name}: expected a number, got {type(value).__name__} {value!r}")
    return float(value)


def _opt_float(name: str, value: Any) -> Optional[float]:
    return None if value is None else _float(name, value)


def _str(name: str, value: Any, example: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name}: expected a string such as {example!r}, got {type(value).__name__} {value!r}")
    return value


def _struct(name: str, cls: type, value: Any) -> Any:
    """A bound struct from None (defaults), a mapping of its fields, or the struct itself."""
    if value is None:
        return cls()
    if isinstance(value, cls):
        return value
    if isinstance(value, Mapping):
        fields = [k for k, v in vars(cls).items() if isinstance(v, property)]
        unknown = [k for k in value if k not in fields]
        if unknown:
            raise ValueError(f"{name}: unknown field {unknown[0]!r}; valid: {', '.join(fields)}")
        try:
            return cls(**dict(value))
        except TypeError:
            for k, v in value.items():  # name the field pybind11's message would not
                try:
                    cls(**{k: v})
                except TypeError:
                    default = getattr(cls(), k)
                    raise TypeError(f"{name}.{k} = {v!r}; expected a {type(default).__name__} "
                                    f"such as {default!r}") from None
            raise
    raise TypeError(f"{name}: expected a dict or a {cls.__name__}, got {type(value).__name__}")


def _gpu_counts(gpus: Any) -> list[int]:
    if isinstance(gpus, (numbers.Integral, numbers.Real)) and not isinstance(gpus, bool):
        return [_int("gpus", gpus)]
    if isinstance(gpus, (str, bytes)) or not isinstance(gpus, Iterable):
        raise TypeError(f"gpus: expected a GPU count or a sequence of them, got {type(gpus).__name__}")
    counts = [_int(f"gpus[{i}]", g) for i, g in enumerate(np.asarray(gpus).ravel().tolist())]
    if not counts:
        raise ValueError("gpus is empty; give at least one GPU count")
    return counts


def training_config(
    *,
    gpus: int = 8,
    gpus_per_node: Optional[int] = None,
    seq_len: int = 8192,
    micro_batch: int = 1,
    global_batch_tokens: Optional[int] = None,
    strategy: str = "fsdp",
    activation_checkpointing: str = "full",
    reshard_after_forward: bool = True,
    reduce_dtype: str = "bf16",
    grad_sync: str = "every_micro_batch",
    attention_span_tokens: Optional[float] = None,
    data: Union[None, Mapping[str, Any], DataPipeline] = None,
    checkpoint: Union[None, Mapping[str, Any], CheckpointPolicy] = None,
) -> TrainingConfig:
    """A TrainingConfig from keyword arguments (None: the core's 'not set')."""
    if not isinstance(reshard_after_forward, (bool, np.bool_)):
        raise TypeError(f"reshard_after_forward: expected True or False, got {reshard_after_forward!r}")
    return TrainingConfig(
        gpus=_int("gpus", gpus),
        gpus_per_node=_opt_int("gpus_per_node", gpus_per_node),
        seq_len=_int("seq_len", seq_len),
        micro_batch=_int("micro_batch", micro_batch),
        global_batch_tokens=_opt_int("global_batch_tokens", global_batch_tokens),
        strategy=_str("strategy", strategy, "fsdp"),
        activation_checkpointing=_str("activation_checkpointing", activation_checkpointing, "full"),
        reshard_after_forward=bool(reshard_after_forward),
        reduce_dtype=_str("reduce_dtype", reduce_dtype, "bf16"),
        grad_sync=_str("grad_sync", grad_sync, "every_micro_batch"),
        attention_span_tokens=0.0 if attention_span_tokens is None
        else _float("attention_span_tokens", attention_span_tokens),
        data=_struct("data", DataPipeline, data),
        checkpoint=_struct("checkpoint", CheckpointPolicy, checkpoint),
    )


def _attach(obj: Any, m: ModelSpec, hw: HardwareProfile, cal: Calibration, cfg: TrainingConfig,
            **extra: Any) -> Any:
    """Context a result's to_dict / CLI output reports alongside the numbers."""
    obj.model = m
    obj.hardware = hw
    obj.calibration = cal
    obj.config = cfg
    for k, v in extra.items():
        setattr(obj, k, v)
    return obj


# --- catalog -------------------------------------------------------------------------


def model(name_or_path: ModelLike) -> ModelSpec:
    """A shipped model by name (case-insensitive; see models()) or a Hugging Face config.json.

    Raises UnknownNameError (with .suggestions) or ParseError (file and line)."""
    return _model(name_or_path)


def models() -> list[str]:
    """Names of the shipped models."""
    return _core.model_names()


def hardware(name_or_path: HardwareLike) -> HardwareProfile:
    """A shipped hardware profile by name (see hardware_names()) or a libscale.hardware/1 JSON file."""
    return _hardware(name_or_path)


def hardware_names() -> list[str]:
    """Names of the shipped hardware profiles."""
    return _core.hardware_names()


def default_calibration(hardware: HardwareLike) -> Calibration:
    """The shipped default (uncalibrated) calibration of a hardware profile."""
    return _core.default_calibration(_hardware(hardware))


def count_parameters(model: ModelLike) -> "_core.ParameterCounts":
    """Exact parameter counts per component (``.total`` is the model's size)."""
    return _core.count_parameters(_model(model))


def flops_per_token(
    model: ModelLike,
    *,
    seq_len: int = 4096,
    activation_checkpointing: str = "full",
    document_lengths: Optional[Sequence[int]] = None,
) -> "_core.FlopsPerToken":
    """FLOPs per token of one training step.

    The attention span is the causal s/2 of a full sequence of seq_len tokens, or, with
    document_lengths (packed documents with per-document masks), Σℓ²/(2Σℓ)."""
    spec = _model(model)
    if document_lengths is None:
        span = _core.causal_attention_span(_int("seq_len", seq_len))
    else:
        span = _core.packed_attention_span(_int_array("document_lengths", document_lengths).ravel())
    return _core.flops_per_token(
        spec, span, activation_checkpointing=_str("activation_checkpointing", activation_checkpointing, "full"))


def describe_issue(code: int) -> str:
    """What a sweep's issue code means ('ok' for 0)."""
    return _core.describe_issue(_int("code", code))


# --- estimates -----------------------------------------------------------------------


def estimate_step(
    model: ModelLike = "qwen3-32b",
    hardware: HardwareLike = "b300",
    *,
    gpus: int = 8,
    gpus_per_node: Optional[int] = None,
    seq_len: int = 8192,
    micro_batch: int = 1,
    global_batch_tokens: Optional[int] = None,
    strategy: str = "fsdp",
    activation_checkpointing: str = "full",
    reshard_after_forward: bool = True,
    reduce_dtype: str = "bf16",
    grad_sync: str = "every_micro_batch",
    attention_span_tokens: Optional[float] = None,
    calibration: CalibrationLike = None,
    data: Union[None, Mapping[str, Any], DataPipeline] = None,
    checkpoint: Union[None, Mapping[str, Any], CheckpointPolicy] = None,
    require_fit: bool = False,
) -> "_core.StepBreakdown":
    """One optimizer step: time per phase, tokens/s, MFU/HFU, memory per GPU, energy.

    model / hardware: a catalog name, a file path or a spec object. data / checkpoint:
    a dict of DataPipeline / CheckpointPolicy fields or the struct. A configuration that
    does not fit is returned with ``memory.fits == False``; with require_fit=True it
    raises DoesNotFitError instead."""
    m, hw = _model(model), _hardware(hardware)
    cal = _calibration(calibration, hw)
    cfg = training_config(
        gpus=gpus, gpus_per_node=gpus_per_node, seq_len=seq_len, micro_batch=micro_batch,
        global_batch_tokens=global_batch_tokens, strategy=strategy,
        activation_checkpointing=activation_checkpointing, reshard_after_forward=reshard_after_forward,
        reduce_dtype=reduce_dtype, grad_sync=grad_sync, attention_span_tokens=attention_span_tokens,
        data=data, checkpoint=checkpoint)
    step = _core.estimate_step(m, hw, cfg, calibration=cal)
    if require_fit:
        _core.require_fit(m, hw, cfg, step, calibration=cal)
    return step


def _job(tokens: Any, epochs: Any, price_per_gpu_hour: Any) -> Job:
    return Job(tokens=_float("tokens", tokens), epochs=_float("epochs", epochs),
               price_per_gpu_hour_usd=_opt_float("price_per_gpu_hour", price_per_gpu_hour))


def project(
    model: ModelLike = "qwen3-32b",
    hardware: HardwareLike = "b300",
    *,
    gpus: Union[int, Sequence[int]] = (4, 8, 16),
    scaling: str = "strong",
    tokens: float = 1e9,
    epochs: float = 1,
    price_per_gpu_hour: Optional[float] = None,
    gpus_per_node: Optional[int] = None,
    seq_len: int = 8192,
    micro_batch: int = 1,
    global_batch_tokens: Optional[int] = None,
    strategy: str = "fsdp",
    activation_checkpointing: str = "full",
    reshard_after_forward: bool = True,
    reduce_dtype: str = "bf16",
    grad_sync: str = "every_micro_batch",
    attention_span_tokens: Optional[float] = None,
    calibration: CalibrationLike = None,
    data: Union[None, Mapping[str, Any], DataPipeline] = None,
    checkpoint: Union[None, Mapping[str, Any], CheckpointPolicy] = None,
    quantiles: bool = False,
    samples: int = 2000,
    seed: Optional[int] = None,
) -> "_core.Projection":
    """Throughput, wall time, GPU-hours, cost and energy of a job at each GPU count.

    Strong scaling keeps global_batch_tokens fixed (None: the smallest count with no
    accumulation); weak scaling keeps the per-GPU batch. price_per_gpu_hour None: the
    hardware's default (an assumption to override). Raises DoesNotFitError when a count
    does not fit, ValueError on an invalid configuration.

    calibration: a Calibration, a CalibrationFile, a calibration file path or a shipped
    name such as "derived-b300-qwen3-32b" (None: the hardware's default). quantiles=True
    adds ``.quantiles`` (one RowQuantiles per row, P10/P50/P90 sampled from the
    calibration's covariance with `samples` draws and `seed`) and ``<figure>_p10`` /
    ``<figure>_p90`` to to_dict() rows and to_pandas() columns."""
    if not isinstance(quantiles, (bool, np.bool_)):
        raise TypeError(f"quantiles: expected True or False, got {quantiles!r}")
    m, hw = _model(model), _hardware(hardware)
    cal_file = _calibration_file(calibration, hw) if not isinstance(calibration, Calibration) else None
    cal = cal_file.calibration if cal_file is not None else _calibration(calibration, hw)
    counts = _gpu_counts(gpus)
    cfg = training_config(
        gpus=counts[0], gpus_per_node=gpus_per_node, seq_len=seq_len, micro_batch=micro_batch,
        global_batch_tokens=global_batch_tokens, strategy=strategy,
        activation_checkpointing=activation_checkpointing, reshard_after_forward=reshard_after_forward,
        reduce_dtype=reduce_dtype, grad_sync=grad_sync, attention_span_tokens=attention_span_tokens,
        data=data, checkpoint=checkpoint)
    job = _job(tokens, epochs, price_per_gpu_hour)
    scaling = _str("scaling", scaling, "strong")
    p = _core.project(m, hw, cfg, counts, scaling=scaling, job=job, calibration=cal)
    extra: dict[str, Any] = {}
    if quantiles:
        if cal_file is None:
            cal_file = CalibrationFile(cal)
        options = _core.UncertaintyOptions(samples=_int("samples", samples))
        if seed is not None:
            seed_value = _int("seed", seed)
            if seed_value < 0:
                raise ValueError(f"seed = {seed_value}; it must be a non-negative integer")
            options.seed = seed_value
        extra["quantiles"] = _core.projection_quantiles(m, hw, cal_file, cfg, counts, scaling=scaling, job=job,
                                                        options=options)
        extra["uncertainty"] = {"samples": options.samples, "seed": options.seed,
                                "parameters": list(cal_file.parameters)}
    return _attach(p, m, hw, cal, cfg, gpus_requested=counts, **extra)


def solve_deadline(
    model: ModelLike = "qwen3-32b",
    hardware: HardwareLike = "b300",
    *,
    deadline_h: float,
    gpus: Union[int, Sequence[int]] = DEFAULT_CANDIDATES,
    scaling: str = "strong",
    tokens: float = 1e9,
    epochs: float = 1,
    price_per_gpu_hour: Optional[float] = None,
    gpus_per_node: Optional[int] = None,
    seq_len: int = 8192,
    micro_batch: int = 1,
    global_batch_tokens: Optional[int] = None,
    strategy: str = "fsdp",
    activation_checkpointing: str = "full",
    reshard_after_forward: bool = True,
    reduce_dtype: str = "bf16",
    grad_sync: str = "every_micro_batch",
    attention_span_tokens: Optional[float] = None,
    calibration: CalibrationLike = None,
    data: Union[None, Mapping[str, Any], DataPipeline] = None,
    checkpoint: Union[None, Mapping[str, Any], CheckpointPolicy] = None,
) -> "_core.Solution":
    """The cheapest GPU count among ``gpus`` whose wall time meets deadline_h hours.

    Counts that are invalid for the configuration or do not fit are skipped;
    ``.found`` is False when none meets the deadline (``.candidates`` lists the rest)."""
    m, hw = _model(model), _hardware(hardware)
    cal = _calibration(calibration, hw)
    counts = _gpu_counts(gpus)
    cfg = training_config(
        gpus=counts[0], gpus_per_node=gpus_per_node, seq_len=seq_len, micro_batch=micro_batch,
        global_batch_tokens=global_batch_tokens, strategy=strategy,
        activation_checkpointing=activation_checkpointing, reshard_after_forward=reshard_after_forward,
        reduce_dtype=reduce_dtype, grad_sync=grad_sync, attention_span_tokens=attention_span_tokens,
        data=data, checkpoint=checkpoint)
    job = _job(tokens, epochs, price_per_gpu_hour)
    s = _core.solve_deadline(m, hw, cfg, counts, deadline_h=_float("deadline_h", deadline_h),
                             scaling=_str("scaling", scaling, "strong"), job=job, calibration=cal)
    return _attach(s, m, hw, cal, cfg, gpus_requested=counts, job=job, scaling=scaling,
                   target={"deadline_h": float(deadline_h)})


def solve_budget(
    model: ModelLike = "qwen3-32b",
    hardware: HardwareLike = "b300",
    *,
    max_gpu_hours: Optional[float] = None,
    max_cost_usd: Optional[float] = None,
    gpus: Union[int, Sequence[int]] = DEFAULT_CANDIDATES,
    scaling: str = "strong",
    tokens: float = 1e9,
    epochs: float = 1,
    price_per_gpu_hour: Optional[float] = None,
    gpus_per_node: Optional[int] = None,
    seq_len: int = 8192,
    micro_batch: int = 1,
    global_batch_tokens: Optional[int] = None,
    strategy: str = "fsdp",
    activation_checkpointing: str = "full",
    reshard_after_forward: bool = True,
    reduce_dtype: str = "bf16",
    grad_sync: str = "every_micro_batch",
    attention_span_tokens: Optional[float] = None,
    calibration: CalibrationLike = None,
    data: Union[None, Mapping[str, Any], DataPipeline] = None,
    checkpoint: Union[None, Mapping[str, Any], CheckpointPolicy] = None,
) -> "_core.Solution":
    """The fastest GPU count among ``gpus`` whose GPU-hours and cost stay under the caps.

    Give max_gpu_hours, max_cost_usd or both (None: no cap)."""
    m, hw = _model(model), _hardware(hardware)
    cal = _calibration(calibration, hw)
    counts = _gpu_counts(gpus)
    cfg = training_config(
        gpus=counts[0], gpus_per_node=gpus_per_node, seq_len=seq_len, micro_batch=micro_batch,
        global_batch_tokens=global_batch_tokens, strategy=strategy,
        activation_checkpointing=activation_checkpointing, reshard_after_forward=reshard_after_forward,
        reduce_dtype=reduce_dtype, grad_sync=grad_sync, attention_span_tokens=attention_span_tokens,
        data=data, checkpoint=checkpoint)
    job = _job(tokens, epochs, price_per_gpu_hour)
    caps = {"max_gpu_hours": _opt_float("max_gpu_hours", max_gpu_hours),
            "max_cost_usd": _opt_float("max_cost_usd", max_cost_usd)}
    s = _core.solve_budget(m, hw, cfg, counts, scaling=_str("scaling", scaling, "strong"), job=job,
                           calibration=cal, **caps)
    return _attach(s, m, hw, cal, cfg, gpus_requested=counts, job=job, scaling=scaling, target=caps)


# --- sweep ---------------------------------------------------------------------------

_SWEEP_INPUTS = ("gpus", "gpus_per_node", "micro_batch", "seq_len", "global_batch_tokens")


def _int_array(name: str, value: Any) -> np.ndarray:
    """An int64 array from an integer array-like; integral floats are accepted, other
    kinds (bool, fractional, text, objects) are refused rather than silently cast."""
    a = np.asarray(value)
    if a.dtype.kind in "iu":
        if a.dtype.kind == "u" and a.size and a.max() > np.iinfo(np.int64).max:
            raise ValueError(f"{name}: values exceed the int64 range")
        return a.astype(np.int64, copy=False)
    if a.dtype.kind == "f":
        if a.size and not (np.all(np.isfinite(a)) and np.array_equal(a, np.trunc(a))):
            raise ValueError(f"{name}: expected integers, got non-integral values such as "
                             f"{a[~(np.isfinite(a) & (a == np.trunc(a)))].ravel()[0]!r}")
        return a.astype(np.int64)
    raise TypeError(f"{name}: expected integers, got an array of dtype {a.dtype}")


def sweep(
    model: ModelLike = "qwen3-32b",
    hardware: HardwareLike = "b300",
    *,
    gpus: Any,
    micro_batch: Any = None,
    seq_len: Any = None,
    global_batch_tokens: Any = None,
    gpus_per_node: Any = None,
    strategy: str = "fsdp",
    activation_checkpointing: str = "full",
    reshard_after_forward: bool = True,
    reduce_dtype: str = "bf16",
    grad_sync: str = "every_micro_batch",
    attention_span_tokens: Optional[float] = None,
    calibration: CalibrationLike = None,
    data: Union[None, Mapping[str, Any], DataPipeline] = None,
    checkpoint: Union[None, Mapping[str, Any], CheckpointPolicy] = None,
    threads: int = 0,
) -> "SweepResult":
    """Vectorized step estimates over arrays of configurations.

    gpus, micro_batch, seq_len, global_batch_tokens and gpus_per_node take integers or
    integer arrays; they are broadcast together (numpy rules) and one step is estimated
    per element, in C++, with the GIL released. None: micro_batch 1, seq_len 8192,
    global_batch_tokens gpus × micro_batch × seq_len (no accumulation), gpus_per_node the
    hardware's. Invalid configurations are flagged in ``issue`` (see describe_issue),
    not raised; configurations that do not fit have ``fits == False``."""
    from ._results import SweepResult

    m, hw = _model(model), _hardware(hardware)
    cal = _calibration(calibration, hw)
    given = {"gpus": gpus, "gpus_per_node": gpus_per_node, "micro_batch": micro_batch,
             "seq_len": seq_len, "global_batch_tokens": global_batch_tokens}
    if gpus is None:
        raise ValueError("gpus: give a GPU count or an array of them")
    arrays = {k: _int_array(k, v) for k, v in given.items() if v is not None}
    cfg = training_config(
        gpus_per_node=None, seq_len=8192, micro_batch=1, global_batch_tokens=None,
        strategy=strategy, activation_checkpointing=activation_checkpointing,
        reshard_after_forward=reshard_after_forward, reduce_dtype=reduce_dtype, grad_sync=grad_sync,
        attention_span_tokens=attention_span_tokens, data=data, checkpoint=checkpoint)
    try:
        broadcast = np.broadcast_arrays(*arrays.values())
    except ValueError as e:
        shapes = ", ".join(f"{k} {a.shape}" for k, a in arrays.items())
        raise ValueError(f"sweep inputs do not broadcast together: {shapes}") from e
    inputs = {k: np.asarray(a, dtype=np.int64, order="C") for k, a in zip(arrays, broadcast)}
    outputs = _core.sweep(m, hw, cfg, calibration=cal, threads=_int("threads", threads), **inputs)
    shape = broadcast[0].shape
    base = {"gpus": cfg.gpus, "gpus_per_node": cfg.gpus_per_node or hw.gpus_per_node,
            "micro_batch": cfg.micro_batch, "seq_len": cfg.seq_len,
            "global_batch_tokens": cfg.global_batch_tokens}
    columns = {k: inputs[k] if k in inputs else np.broadcast_to(np.int64(base[k]), shape)
               for k in _SWEEP_INPUTS}
    columns.update(outputs)
    return SweepResult(columns, model=m, hardware=hw, calibration=cal, config=cfg)


# --- measurements, fitting, calibration files ---------------------------------------


def _measurement_source(src: Any, i: int) -> "_core.MeasurementSet":
    if isinstance(src, _core.MeasurementSet):
        return src
    if isinstance(src, (str, bytes, os.PathLike)):
        return _core.read_measurements(_name_or_path("measurements", src))
    if isinstance(src, Mapping) or (isinstance(src, (list, tuple)) and all(isinstance(r, Mapping) for r in src)):
        return _core.measurements_from_json(src if isinstance(src, Mapping) else list(src),
                                            origin=f"<records {i}>")
    raise TypeError(f"measurements: source {i}: expected a path to a libscale.measurements/1 JSON file, a list "
                    f"of record dicts or a MeasurementSet, got {type(src).__name__}")


def read_measurements(*sources: Any) -> "_core.MeasurementSet":
    """Measurement records (schema libscale.measurements/1) from JSON files, lists of
    record dicts (e.g. what libscale.logs.parse_log returns) or MeasurementSets, merged
    in order. Raises ParseError naming the file (or source), record and field."""
    if not sources:
        raise ValueError("read_measurements: give at least one file or list of records")
    out = _core.MeasurementSet()
    names: list[str] = []
    for i, src in enumerate(sources):
        out.merge(_measurement_source(src, i))
        names.extend(getattr(src, "sources", []) if isinstance(src, _core.MeasurementSet)
                     else [os.fsdecode(src)] if isinstance(src, (str, bytes, os.PathLike)) else [])
    out.sources = names
    return out


def fit(
    measurements: Any,
    hardware: Optional[HardwareLike] = None,
    *,
    prior: CalibrationLike = None,
    fit_overhead: bool = True,
) -> "_core.FitResult":
    """Fit a calibration to measurements (a MeasurementSet, a file path or a list of
    record dicts; see read_measurements). hardware None: the one the records name, when
    they all agree. prior: the calibration whose values the data cannot pin down are kept
    (None: the hardware's default). The result has .to_dict(), .write(path) and
    .calibration (usable as calibration= anywhere)."""
    if not isinstance(fit_overhead, (bool, np.bool_)):
        raise TypeError(f"fit_overhead: expected True or False, got {fit_overhead!r}")
    data = measurements if isinstance(measurements, _core.MeasurementSet) else read_measurements(measurements)
    if hardware is None:
        names = list(data.hardware)
        if len(names) != 1:
            raise ValueError("fit: the records name " + (f"several hardware profiles ({', '.join(names)})"
                                                         if names else "no hardware")
                             + "; give hardware=")
        hardware = names[0]
    hw = _hardware(hardware)
    prior_cal = None if prior is None else _calibration(prior, hw)
    result = _core.fit(data, hw, prior=prior_cal, options=_core.FitOptions(fit_overhead=bool(fit_overhead)))
    result.hardware = hw
    result.sources = list(getattr(data, "sources", []))
    return result


def read_calibration(path_or_name: PathLike, hardware: HardwareLike) -> CalibrationFile:
    """A calibration file (default, derived or fitted) or a shipped one by name, such as
    "derived-b300-qwen3-32b", checked against the hardware. Pass the result (or its
    .calibration) as calibration= to estimate_step / project / sweep / the solvers."""
    return _core.read_calibration_file(_name_or_path("calibration", path_or_name), _hardware(hardware))
