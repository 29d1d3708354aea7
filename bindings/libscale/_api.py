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
    "read_trace",
    "triage",
    "triage_stream",
    "triage_options",
    "power_bands",
    "default_power_bands",
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
    "read_lengths",
    "pack",
    "gate",
    "packing_names",
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
    "precision": "bf16",
    "fp8_all_gather": False,
    "optimizer": "adamw",
    "master_weights": "fp32",
    "loss_kernel": "eager",
    "attention_kernel": "flash2",
    "torch_compile": False,
    "checkpoint_every": 1,
    "data": None,
    "checkpoint": None,
}


def _config_kwargs(scope: Mapping[str, Any], skip: Iterable[str] = ()) -> dict[str, Any]:
    """The training_config keyword arguments among a front end's parameters (its locals())."""
    return {k: scope[k] for k in CONFIG_DEFAULTS if k not in skip}


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
    precision: str = "bf16",
    fp8_all_gather: bool = False,
    optimizer: str = "adamw",
    master_weights: str = "fp32",
    loss_kernel: str = "eager",
    attention_kernel: str = "flash2",
    torch_compile: bool = False,
    checkpoint_every: int = 1,
    data: Union[None, Mapping[str, Any], DataPipeline] = None,
    checkpoint: Union[None, Mapping[str, Any], CheckpointPolicy] = None,
) -> TrainingConfig:
    """A TrainingConfig from keyword arguments (None: the core's 'not set').

    precision "bf16" | "fp8" (torchao Float8Linear); fp8_all_gather: FSDP gathers fp8
    weights; optimizer "adamw" | "adamw_8bit" | "sgd" | "adafactor"; master_weights
    "fp32" | "bf16"; loss_kernel "eager" | "fused"; attention_kernel "flash2" | "flash3" |
    "cudnn" | "flash1" | "flash_triton" | "llm_foundry_triton" | "xformers" | "eager";
    torch_compile: each decoder layer compiled; checkpoint_every k: activation
    checkpointing on every k-th layer only."""
    for name, flag in (("reshard_after_forward", reshard_after_forward), ("fp8_all_gather", fp8_all_gather),
                       ("torch_compile", torch_compile)):
        if not isinstance(flag, (bool, np.bool_)):
            raise TypeError(f"{name}: expected True or False, got {flag!r}")
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
        precision=_str("precision", precision, "bf16"),
        fp8_all_gather=bool(fp8_all_gather),
        optimizer=_str("optimizer", optimizer, "adamw"),
        master_weights=_str("master_weights", master_weights, "fp32"),
        loss_kernel=_str("loss_kernel", loss_kernel, "eager"),
        attention_kernel=_str("attention_kernel", attention_kernel, "flash2"),
        torch_compile=bool(torch_compile),
        checkpoint_every=_int("checkpoint_every", checkpoint_every),
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
    precision: str = "bf16",
    fp8_all_gather: bool = False,
    optimizer: str = "adamw",
    master_weights: str = "fp32",
    loss_kernel: str = "eager",
    attention_kernel: str = "flash2",
    torch_compile: bool = False,
    checkpoint_every: int = 1,
    calibration: CalibrationLike = None,
    data: Union[None, Mapping[str, Any], DataPipeline] = None,
    checkpoint: Union[None, Mapping[str, Any], CheckpointPolicy] = None,
    require_fit: bool = False,
) -> "_core.StepBreakdown":
    """One optimizer step: time per phase, tokens/s, MFU/HFU, memory per GPU, energy.

    model / hardware: a catalog name, a file path or a spec object. The training options
    (precision, optimizer, attention_kernel, ...) are training_config()'s. data / checkpoint:
    a dict of DataPipeline / CheckpointPolicy fields or the struct. A configuration that
    does not fit is returned with ``memory.fits == False``; with require_fit=True it
    raises DoesNotFitError instead."""
    config = _config_kwargs(locals())
    m, hw = _model(model), _hardware(hardware)
    cal = _calibration(calibration, hw)
    cfg = training_config(gpus=gpus, **config)
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
    precision: str = "bf16",
    fp8_all_gather: bool = False,
    optimizer: str = "adamw",
    master_weights: str = "fp32",
    loss_kernel: str = "eager",
    attention_kernel: str = "flash2",
    torch_compile: bool = False,
    checkpoint_every: int = 1,
    calibration: CalibrationLike = None,
    data: Union[None, Mapping[str, Any], DataPipeline] = None,
    checkpoint: Union[None, Mapping[str, Any], CheckpointPolicy] = None,
    quantiles: bool = False,
    samples: int = 2000,
    seed: Optional[int] = None,
    require_fit: bool = False,
) -> "_core.Projection":
    """Throughput, wall time, GPU-hours, cost and energy of a job at each GPU count.

    Strong scaling keeps global_batch_tokens fixed (None: the smallest count with no
    accumulation); weak scaling keeps the per-GPU batch. price_per_gpu_hour None: the
    hardware's default (an assumption to override). Raises ValueError on an invalid
    configuration. A count that does not fit is projected all the same: its row says so
    (``fits``, ``fit_status``, ``needed_gib``, ``available_gib``) and ``fit_suggestion``
    says what would fit; require_fit=True raises DoesNotFitError for the first such row.

    calibration: a Calibration, a CalibrationFile, a calibration file path or a shipped
    name such as "derived-b300-qwen3-32b" (None: the hardware's default). quantiles=True
    adds ``.quantiles`` (one RowQuantiles per row, P10/P50/P90 sampled from the
    calibration's covariance with `samples` draws and `seed`) and ``<figure>_p10`` /
    ``<figure>_p90`` to to_dict() rows and to_pandas() columns."""
    config = _config_kwargs(locals())
    for name, flag in (("quantiles", quantiles), ("require_fit", require_fit)):
        if not isinstance(flag, (bool, np.bool_)):
            raise TypeError(f"{name}: expected True or False, got {flag!r}")
    m, hw = _model(model), _hardware(hardware)
    cal_file = _calibration_file(calibration, hw) if not isinstance(calibration, Calibration) else None
    cal = cal_file.calibration if cal_file is not None else _calibration(calibration, hw)
    counts = _gpu_counts(gpus)
    cfg = training_config(gpus=counts[0], **config)
    job = _job(tokens, epochs, price_per_gpu_hour)
    scaling = _str("scaling", scaling, "strong")
    p = _core.project(m, hw, cfg, counts, scaling=scaling, job=job, calibration=cal)
    if require_fit:
        _require_fit(m, hw, cal, cfg, counts, scaling, p.rows)
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


def _require_fit(m: ModelSpec, hw: HardwareProfile, cal: Calibration, cfg: TrainingConfig, counts: list[int],
                 scaling: str, rows: Sequence["_core.ProjectionRow"]) -> None:
    """DoesNotFitError (the core's message: needed vs available GiB, what would fit) for
    the first row that does not fit, with the configuration it was projected at."""
    configs = {c.gpus: c for c in _core.projection_configs(cfg, counts, scaling=scaling)}
    for row in rows:
        if not row.fits:
            _core.require_fit(m, hw, configs[row.step.gpus], row.step, calibration=cal)


def _solver_inputs(scope: Mapping[str, Any]) -> tuple[Any, ...]:
    """model, hardware, calibration, candidate counts, config and job of a solver's locals()."""
    config = _config_kwargs(scope)
    m, hw = _model(scope["model"]), _hardware(scope["hardware"])
    cal = _calibration(scope["calibration"], hw)
    counts = _gpu_counts(scope["gpus"])
    cfg = training_config(gpus=counts[0], **config)
    return m, hw, cal, counts, cfg, _job(scope["tokens"], scope["epochs"], scope["price_per_gpu_hour"])


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
    precision: str = "bf16",
    fp8_all_gather: bool = False,
    optimizer: str = "adamw",
    master_weights: str = "fp32",
    loss_kernel: str = "eager",
    attention_kernel: str = "flash2",
    torch_compile: bool = False,
    checkpoint_every: int = 1,
    calibration: CalibrationLike = None,
    data: Union[None, Mapping[str, Any], DataPipeline] = None,
    checkpoint: Union[None, Mapping[str, Any], CheckpointPolicy] = None,
    require_fit: bool = False,
) -> "_core.Solution":
    """The cheapest GPU count among ``gpus`` whose wall time meets deadline_h hours.

    Counts that are invalid for the configuration are skipped; ``.candidates`` lists the
    others, fitting or not (each row's ``fits``), and the chosen row fits. ``.found`` is
    False when none meets the deadline. require_fit=True raises DoesNotFitError for the
    first candidate that does not fit."""
    if not isinstance(require_fit, (bool, np.bool_)):
        raise TypeError(f"require_fit: expected True or False, got {require_fit!r}")
    m, hw, cal, counts, cfg, job = _solver_inputs(locals())
    s = _core.solve_deadline(m, hw, cfg, counts, deadline_h=_float("deadline_h", deadline_h),
                             scaling=_str("scaling", scaling, "strong"), job=job, calibration=cal)
    if require_fit:
        _require_fit(m, hw, cal, cfg, counts, scaling, s.candidates)
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
    precision: str = "bf16",
    fp8_all_gather: bool = False,
    optimizer: str = "adamw",
    master_weights: str = "fp32",
    loss_kernel: str = "eager",
    attention_kernel: str = "flash2",
    torch_compile: bool = False,
    checkpoint_every: int = 1,
    calibration: CalibrationLike = None,
    data: Union[None, Mapping[str, Any], DataPipeline] = None,
    checkpoint: Union[None, Mapping[str, Any], CheckpointPolicy] = None,
    require_fit: bool = False,
) -> "_core.Solution":
    """The fastest GPU count among ``gpus`` whose GPU-hours and cost stay under the caps.

    Give max_gpu_hours, max_cost_usd or both (None: no cap). Candidates and require_fit
    as in solve_deadline."""
    if not isinstance(require_fit, (bool, np.bool_)):
        raise TypeError(f"require_fit: expected True or False, got {require_fit!r}")
    m, hw, cal, counts, cfg, job = _solver_inputs(locals())
    caps = {"max_gpu_hours": _opt_float("max_gpu_hours", max_gpu_hours),
            "max_cost_usd": _opt_float("max_cost_usd", max_cost_usd)}
    s = _core.solve_budget(m, hw, cfg, counts, scaling=_str("scaling", scaling, "strong"), job=job,
                           calibration=cal, **caps)
    if require_fit:
        _require_fit(m, hw, cal, cfg, counts, scaling, s.candidates)
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
    precision: str = "bf16",
    fp8_all_gather: bool = False,
    optimizer: str = "adamw",
    master_weights: str = "fp32",
    loss_kernel: str = "eager",
    attention_kernel: str = "flash2",
    torch_compile: bool = False,
    checkpoint_every: int = 1,
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
    hardware's. The other training options apply to every element. Invalid
    configurations are flagged in ``issue`` (see describe_issue), not raised;
    configurations that do not fit have ``fits == False`` ('uncertain' ones count as
    fitting, as in step.memory.fits)."""
    from ._results import SweepResult

    m, hw = _model(model), _hardware(hardware)
    cal = _calibration(calibration, hw)
    given = {"gpus": gpus, "gpus_per_node": gpus_per_node, "micro_batch": micro_batch,
             "seq_len": seq_len, "global_batch_tokens": global_batch_tokens}
    if gpus is None:
        raise ValueError("gpus: give a GPU count or an array of them")
    arrays = {k: _int_array(k, v) for k, v in given.items() if v is not None}
    cfg = training_config(**_config_kwargs(locals(), skip=_SWEEP_INPUTS))
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
    raise TypeError(f"measurements: source {i}: expected a path to a libscale.measurements JSON file, a list "
                    f"of record dicts or a MeasurementSet, got {type(src).__name__}")


def read_measurements(*sources: Any) -> "_core.MeasurementSet":
    """Measurement records (schema libscale.measurements/2; /1 is read too) from JSON files, lists of
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
    relative_error: float = 0.03,
    prior_log_sd: Optional[Mapping[str, float]] = None,
) -> "_core.FitResult":
    """Fit a calibration to measurements (a MeasurementSet, a file path or a list of
    record dicts; see read_measurements) by maximum a posteriori: every record's relative
    error (relative_error, 1 sd, where a record states none) against each free
    coefficient's log-normal prior. hardware None: the one the records name, when they
    all agree. prior: the calibration the fit starts from and whose values the data
    cannot move are kept (None: the hardware's default). prior_log_sd: sd of log(value)
    per coefficient name (None: the hardware's default file's prior). Each coefficient of
    the result says its prior and whether the data identified it. The result has
    .to_dict(), .write(path) and .calibration (usable as calibration= anywhere)."""
    if not isinstance(fit_overhead, (bool, np.bool_)):
        raise TypeError(f"fit_overhead: expected True or False, got {fit_overhead!r}")
    if prior_log_sd is not None and not isinstance(prior_log_sd, Mapping):
        raise TypeError(f"prior_log_sd: expected a dict of coefficient name: sd, got {type(prior_log_sd).__name__}")
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
    options = _core.FitOptions(
        fit_overhead=bool(fit_overhead), relative_error=_float("relative_error", relative_error),
        prior_log_sd={_core.coefficient_info(str(k))["name"]: _float(f"prior_log_sd[{k!r}]", v)
                      for k, v in (prior_log_sd or {}).items()})  # unknown names: ValueError listing the valid
    result = _core.fit(data, hw, prior=prior_cal, options=options)
    result.hardware = hw
    result.sources = list(getattr(data, "sources", []))
    return result


def read_calibration(path_or_name: PathLike, hardware: HardwareLike) -> CalibrationFile:
    """A calibration file (default, derived or fitted) or a shipped one by name, such as
    "derived-b300-qwen3-32b", checked against the hardware. Pass the result (or its
    .calibration) as calibration= to estimate_step / project / sweep / the solvers."""
    return _core.read_calibration_file(_name_or_path("calibration", path_or_name), _hardware(hardware))


# --- sequence packing and the pre-launch packing gate --------------------------------

#: Short names for the packers (the full names, e.g. "trl_bfd", are accepted too).
PACKING_ALIASES: dict[str, str] = {
    "bfd": "trl_bfd",
    "bfd_split": "trl_bfd_split",
    "wrapped": "trl_wrapped",
    "ffd": "nemo_ffd",
    "greedy": "torchtune",
    "greedy_split": "torchtune_split",
    "knapsack": "llamafactory",
    "multipack": "axolotl_multipack",
}

LengthsLike = Union[np.ndarray, Sequence[int], str, "os.PathLike[str]"]


def _packer(packing: Any) -> str:
    name = _str("packing", packing, "bfd").strip().lower().replace("-", "_")
    name = PACKING_ALIASES.get(name, name)
    valid = list(_core.packer_names())
    if name not in valid:
        raise ValueError(f"packing = {packing!r}: must be one of {', '.join(valid)} "
                         f"(or the short names {', '.join(PACKING_ALIASES)})")
    return name


def packing_names() -> list[str]:
    """The packers pack() and gate() accept (short aliases: PACKING_ALIASES)."""
    return list(_core.packer_names())


def read_lengths(path: PathLike, *, format: str = "auto", dtype: Optional[str] = None,
                 field: str = "length") -> np.ndarray:
    """Per-sample token lengths from a file as a uint32 numpy array: .npy (uint16/32/64,
    int32/64), raw little-endian integers (give dtype, e.g. "uint32") or JSON Lines with an
    integer field (field=). format "auto" goes by the extension (.npy / .jsonl), then by
    dtype (raw), then by the .npy magic. Raises ParseError for a malformed, truncated or
    foreign file and for zero or negative lengths."""
    if isinstance(path, bytes) or not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path: expected a file path, got {type(path).__name__}")
    return _core.read_lengths(os.fspath(path), format=_str("format", format, "npy"),
                              dtype=None if dtype is None else _str("dtype", dtype, "uint32"),
                              field=_str("field", field, "length"))


def _lengths(lengths: Any, dtype: Optional[str], field: str, format: str) -> Any:
    """A numpy array of lengths (not copied when it is one), or the file read."""
    if isinstance(lengths, (str, os.PathLike)):
        return read_lengths(lengths, format=format, dtype=dtype, field=field)
    if dtype is not None:
        raise ValueError("dtype applies only when lengths is a path to a raw file")
    if isinstance(lengths, np.ndarray):
        return lengths
    if isinstance(lengths, (str, bytes, Mapping)) or not isinstance(lengths, Iterable):
        raise TypeError(f"lengths: expected a numpy array, a sequence of integers or a file path, "
                        f"got {type(lengths).__name__}")
    seq = list(lengths)
    if any(isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Integral) for v in seq):
        bad = next(i for i, v in enumerate(seq)
                   if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Integral))
        raise TypeError(f"lengths[{bad}] = {seq[bad]!r}: token counts must be integers")
    return np.asarray(seq, dtype=np.int64) if seq else np.zeros(0, dtype=np.uint32)


def pack(
    lengths: LengthsLike,
    *,
    seq_len: int,
    packing: str = "trl_bfd",
    map_batch_size: int = 1000,
    num_proc: int = 1,
    dtype: Optional[str] = None,
    field: str = "length",
    format: str = "auto",
) -> "_core.PackResult":
    """Pack per-sample token lengths as the trainer does (packing: trl_bfd / bfd,
    trl_bfd_split, trl_wrapped, nemo_ffd / ffd, torchtune / greedy, torchtune_split,
    llamafactory / knapsack, none). The bins come back as numpy CSR arrays: bin b holds
    samples[offsets[b]:offsets[b+1]] with entry_tokens alongside; bin_tokens per bin.
    map_batch_size / num_proc: datasets.map's batching (TRL, LLaMA-Factory)."""
    return _core.pack(_lengths(lengths, dtype, field, format), _packer(packing), _int("seq_len", seq_len),
                      map_batch_size=_int("map_batch_size", map_batch_size), num_proc=_int("num_proc", num_proc))


def _gate_config(*, world_size: Any, seq_len: Any, packing: Any, micro_batch: Any, grad_accum: Any,
                 shuffle_seed: Any, drop_last: Any, watchdog_s: Any, epoch: Any, dataloader_drop_last: Any,
                 step_rounding: Any, map_batch_size: Any, num_proc: Any, runtime_equalize: Any,
                 shard_before_packing: Any = False) -> "_core.GateConfig":
    for name, v in (("drop_last", drop_last), ("dataloader_drop_last", dataloader_drop_last),
                    ("runtime_equalize", runtime_equalize), ("shard_before_packing", shard_before_packing)):
        if not isinstance(v, (bool, np.bool_)):
            raise TypeError(f"{name}: expected True or False, got {v!r}")
    seed = None if shuffle_seed is None else _int("shuffle_seed", shuffle_seed)
    if seed is not None and seed < 0:
        raise ValueError(f"shuffle_seed = {seed}; it must be ≥ 0")
    return _core.GateConfig(
        packer=_packer(packing), seq_len=_int("seq_len", seq_len), world_size=_int("world_size", world_size),
        micro_batch=_int("micro_batch", micro_batch), grad_accum=_int("grad_accum", grad_accum),
        shuffle=seed is not None, seed=seed or 0, epoch=_int("epoch", epoch), sampler_drop_last=bool(drop_last),
        dataloader_drop_last=bool(dataloader_drop_last), step_rounding=_str("step_rounding", step_rounding, "ceil"),
        map_batch_size=_int("map_batch_size", map_batch_size), num_proc=_int("num_proc", num_proc),
        watchdog_s=_float("watchdog_s", watchdog_s), runtime_equalize=bool(runtime_equalize),
        shard_before_packing=bool(shard_before_packing))


def gate(
    lengths: LengthsLike,
    *,
    world_size: int,
    seq_len: int,
    packing: str = "trl_bfd",
    micro_batch: int = 1,
    grad_accum: int = 1,
    shuffle_seed: Optional[int] = None,
    drop_last: bool = False,
    watchdog_s: float = 600.0,
    epoch: int = 0,
    dataloader_drop_last: bool = False,
    step_rounding: str = "ceil",
    map_batch_size: int = 1000,
    num_proc: int = 1,
    runtime_equalize: bool = True,
    shard_before_packing: bool = False,
    dtype: Optional[str] = None,
    field: str = "length",
    format: str = "auto",
) -> "_core.GateResult":
    """The pre-launch packing gate: pack the lengths as the trainer does, shard them as
    DistributedSampler does (shuffle_seed: shuffle=True with that seed; drop_last: the
    sampler's) and check that every rank runs the same number of micro-batches.

    lengths: a numpy array (uint32 is used without a copy), a list of ints, or a path to a
    .npy, raw (give dtype) or .jsonl (field) file. packing: a packer name or alias ("bfd",
    "ffd", "greedy", "knapsack", "multipack", "none", ...). runtime_equalize (multipack
    only): Axolotl truncates every rank to the minimum at run time; False models a loop
    without it. shard_before_packing: each rank packs its own DistributedSampler shard
    (an on-the-fly per-rank packer, the field report's case) instead of the sampler
    sharding the packed dataset. watchdog_s: the hang-detection time behind the GPU-hours
    at risk.

    The result has .passed, per-rank numpy arrays (.sequences, .micro_batches,
    .optimizer_steps, .tokens, .padding_efficiency), the remedy (.micro_batches_dropped,
    .steps_dropped, .tokens_dropped, .tokens_dropped_pct), .cost_at_risk_gpu_hours,
    .to_dict(), .to_pandas() (one row per rank) and a Jupyter table."""
    config = _gate_config(world_size=world_size, seq_len=seq_len, packing=packing, micro_batch=micro_batch,
                          grad_accum=grad_accum, shuffle_seed=shuffle_seed, drop_last=drop_last,
                          watchdog_s=watchdog_s, epoch=epoch, dataloader_drop_last=dataloader_drop_last,
                          step_rounding=step_rounding, map_batch_size=map_batch_size, num_proc=num_proc,
                          runtime_equalize=runtime_equalize, shard_before_packing=shard_before_packing)
    return _core.gate(_lengths(lengths, dtype, field, format), config)


# --- power triage --------------------------------------------------------------------

_TRACE_FORMATS = ("auto", "nvidia-smi", "dcgm")


def read_trace(path: PathLike, *, format: str = "auto") -> "_core.PowerTrace":
    """A GPU power trace from an nvidia-smi CSV log or dcgm-exporter Prometheus text.

    format: "auto" (dcgm when the file names DCGM_FI_DEV_ metrics, else nvidia-smi),
    "nvidia-smi" or "dcgm". Unparseable lines are skipped and counted in ``.report``;
    raises ParseError for an unreadable or foreign file (no line parsed)."""
    fmt = _str("format", format, "nvidia-smi")
    if fmt not in _TRACE_FORMATS:
        raise ValueError(f"format: {fmt!r} is not one of {', '.join(_TRACE_FORMATS)}")
    return _core.read_trace(_name_or_path("path", path), fmt)


def default_power_bands(hardware: HardwareLike) -> "_core.PowerBands":
    """The default (uncalibrated) power bands of a hardware profile."""
    return _core.default_power_bands(_hardware(hardware))


def power_bands(hardware: HardwareLike = "h100", *, calibration: Optional[PathLike] = None) -> "_core.PowerBands":
    """Power bands for ``hardware``: the ``power_bands`` section of a calibration file made
    on it (the harness writes one), else the default, uncalibrated bands."""
    hw = _hardware(hardware)
    if calibration is None:
        return _core.default_power_bands(hw)
    return _core.read_power_bands(_name_or_path("calibration", calibration), hw)


def _bands(hardware: HardwareLike, bands: Any, calibration: Optional[PathLike]) -> "_core.PowerBands":
    if bands is not None and calibration is not None:
        raise ValueError("give bands or calibration, not both")
    if bands is None:
        return power_bands(hardware, calibration=calibration)
    if not isinstance(bands, _core.PowerBands):
        raise TypeError(f"bands: expected a PowerBands, got {type(bands).__name__}")
    return bands


#: Keyword options shared by triage() and triage_stream() (and the CLI's triage / watch).
TRIAGE_DEFAULTS: dict[str, Any] = {
    "smoothing_s": 1.0,
    "min_dwell_s": 2.0,
    "util_threshold_pct": 90.0,
    "deadlock_after_s": None,
    "expected_checkpoint_s": None,
    "starvation_after_s": 120.0,
    "straggler_after_s": 60.0,
    "checkpoint_first_start_s": 0.0,
    "checkpoint_interval_s": None,
    "checkpoint_duration_s": None,
    "checkpoint_windows": None,
}


def triage_options(**kw: Any) -> tuple["_core.ClassifierOptions", "_core.DetectorOptions"]:
    """ClassifierOptions and DetectorOptions from TRIAGE_DEFAULTS' keywords.

    deadlock_after_s: T (None: from expected_checkpoint_s, which defaults to
    checkpoint_duration_s; 600 s when unknown). checkpoint_interval_s /
    checkpoint_duration_s / checkpoint_windows [(start, end), ...] declare checkpoint
    saves, inside which the deadlock detector is silent."""
    unknown = sorted(set(kw) - set(TRIAGE_DEFAULTS))
    if unknown:
        raise TypeError(f"unknown triage option(s): {', '.join(unknown)}; valid: {', '.join(TRIAGE_DEFAULTS)}")
    o = {**TRIAGE_DEFAULTS, **kw}
    if o["checkpoint_interval_s"] is not None and o["checkpoint_duration_s"] is None:
        raise ValueError("checkpoint_interval_s needs checkpoint_duration_s (how long each save lasts)")
    expected = o["expected_checkpoint_s"] if o["expected_checkpoint_s"] is not None else o["checkpoint_duration_s"]
    windows = [(_float("checkpoint_windows start", a), _float("checkpoint_windows end", b))
               for a, b in (o["checkpoint_windows"] or [])]
    classifier = _core.ClassifierOptions(smoothing_window_s=_float("smoothing_s", o["smoothing_s"]),
                                         min_dwell_s=_float("min_dwell_s", o["min_dwell_s"]))
    detector = _core.DetectorOptions(
        util_threshold_pct=_float("util_threshold_pct", o["util_threshold_pct"]),
        expected_checkpoint_s=_opt_float("expected_checkpoint_s", expected) or 0.0,
        deadlock_after_s=_opt_float("deadlock_after_s", o["deadlock_after_s"]) or 0.0,
        starvation_after_s=_float("starvation_after_s", o["starvation_after_s"]),
        straggler_after_s=_float("straggler_after_s", o["straggler_after_s"]),
        checkpoint_first_start_s=_float("checkpoint_first_start_s", o["checkpoint_first_start_s"]),
        checkpoint_interval_s=_opt_float("checkpoint_interval_s", o["checkpoint_interval_s"]) or 0.0,
        checkpoint_duration_s=_opt_float("checkpoint_duration_s", o["checkpoint_duration_s"]) or 0.0,
        checkpoint_windows=windows,
    )
    return classifier, detector


def triage(
    trace: Union[PathLike, "_core.PowerTrace"],
    *,
    hardware: HardwareLike = "h100",
    bands: Optional["_core.PowerBands"] = None,
    calibration: Optional[PathLike] = None,
    format: str = "auto",
    **options: Any,
) -> "_core.TriageResult":
    """Classify a power trace into phases and detect deadlocks, starvation and stragglers.

    trace: a PowerTrace (read_trace) or a path (read with ``format``). bands: PowerBands
    (default: power_bands(hardware, calibration=calibration)). options: TRIAGE_DEFAULTS'
    keywords (see triage_options)."""
    if not isinstance(trace, _core.PowerTrace):
        trace = read_trace(trace, format=format)
    bands = _bands(hardware, bands, calibration)
    classifier, detector = triage_options(**options)
    result = _core.triage(trace, bands, classifier=classifier, detector=detector)
    result.trace = trace
    result.bands = bands
    return result


def triage_stream(
    *,
    hardware: HardwareLike = "h100",
    bands: Optional["_core.PowerBands"] = None,
    calibration: Optional[PathLike] = None,
    stale_after_s: float = 5.0,
    **options: Any,
) -> "_core.TriageStream":
    """A live triage stream (what ``libscale watch`` runs): push one poll of samples at a
    time with ``.push(time_s, gpu, power_w, utilization_pct)``; phase changes and alerts
    come back. Same bands and options as triage()."""
    classifier, detector = triage_options(**options)
    return _core.TriageStream(_bands(hardware, bands, calibration), classifier=classifier, detector=detector,
                              stale_after_s=_float("stale_after_s", stale_after_s))
