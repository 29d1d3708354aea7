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
from . import catalog as _catalog
from .plan import _int_array
from ._core.calibrate import Calibration, CalibrationFile
from ._core.spec import HardwareProfile, ModelSpec, TrainingConfig

if TYPE_CHECKING:
    pass

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
    "describe_issue",
    "read_measurements",
    "fit",
    "read_calibration",
    "read_lengths",
    "pack",
    "gate",
    "packing_names",
]

# --- argument conversion -------------------------------------------------------------


def _name_or_path(what: str, value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, os.PathLike)):
        return os.fsdecode(value)
    raise TypeError(f"{what}: expected a catalog name, a file path or a {what.capitalize()} object, "
                    f"got {type(value).__name__}")


# Names, paths and Hub ids to specs: one place, libscale.catalog.
_model = _catalog.model
_hardware = _catalog.hardware
_calibration_file = _catalog.calibration_file
model = _catalog.model
models = _catalog.models
hardware = _catalog.hardware
hardware_names = _catalog.hardware_names
default_calibration = _catalog.default_calibration
read_calibration = _catalog.read_calibration


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
        fields = list(cls._fields)  # type: ignore[attr-defined]
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


def training_config(**config: Any) -> TrainingConfig:
    """A TrainingConfig from training options (libscale.options.options("training")), each
    checked by the core; data= / checkpoint= take dicts of their options."""
    return _core.spec.make_options("training", config)


# --- catalog -------------------------------------------------------------------------


def count_parameters(model: ModelLike) -> "_core.spec.ParameterCounts":
    """Exact parameter counts per component (``.total`` is the model's size)."""
    return _core.spec.count_parameters(_model(model))


def flops_per_token(
    model: ModelLike,
    *,
    seq_len: Optional[int] = None,
    activation_checkpointing: Optional[str] = None,
    document_lengths: Optional[Sequence[int]] = None,
) -> "_core.spec.FlopsPerToken":
    """FLOPs per token of one training step.

    The attention span is the causal s/2 of a full sequence of seq_len tokens, or, with
    document_lengths (packed documents with per-document masks), Σℓ²/(2Σℓ). seq_len and
    activation_checkpointing default to the training options' defaults."""
    spec = _model(model)
    config = training_config(**{k: v for k, v in (("seq_len", seq_len),
                                                   ("activation_checkpointing", activation_checkpointing))
                                if v is not None})
    seq_len, activation_checkpointing = config.seq_len, config.activation_checkpointing
    if document_lengths is None:
        span = _core.spec.causal_attention_span(_int("seq_len", seq_len))
    else:
        span = _core.spec.packed_attention_span(_int_array("document_lengths", document_lengths).ravel())
    return _core.spec.flops_per_token(
        spec, span, activation_checkpointing=_str("activation_checkpointing", activation_checkpointing, "full"))


def describe_issue(code: int) -> str:
    """What a sweep's issue code means ('ok' for 0)."""
    return _core.estimate.describe_issue(_int("code", code))


# --- estimates -----------------------------------------------------------------------


# --- measurements, fitting, calibration files ---------------------------------------


def _measurement_source(src: Any, i: int) -> "_core.calibrate.MeasurementSet":
    if isinstance(src, _core.calibrate.MeasurementSet):
        return src
    if isinstance(src, (str, bytes, os.PathLike)):
        return _core.calibrate.read_measurements(_name_or_path("measurements", src))
    if isinstance(src, Mapping) or (isinstance(src, (list, tuple)) and all(isinstance(r, Mapping) for r in src)):
        return _core.calibrate.measurements_from_json(src if isinstance(src, Mapping) else list(src),
                                            origin=f"<records {i}>")
    raise TypeError(f"measurements: source {i}: expected a path to a libscale.measurements JSON file, a list "
                    f"of record dicts or a MeasurementSet, got {type(src).__name__}")


def read_measurements(*sources: Any) -> "_core.calibrate.MeasurementSet":
    """Measurement records (schema libscale.measurements/2; /1 is read too) from JSON files, lists of
    record dicts (e.g. what libscale.logs.parse_log returns) or MeasurementSets, merged
    in order. Raises ParseError naming the file (or source), record and field."""
    if not sources:
        raise ValueError("read_measurements: give at least one file or list of records")
    out = _core.calibrate.MeasurementSet()
    names: list[str] = []
    for i, src in enumerate(sources):
        out.merge(_measurement_source(src, i))
        names.extend(getattr(src, "sources", []) if isinstance(src, _core.calibrate.MeasurementSet)
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
) -> "_core.calibrate.FitResult":
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
    data = measurements if isinstance(measurements, _core.calibrate.MeasurementSet) else read_measurements(measurements)
    if hardware is None:
        names = list(data.hardware)
        if len(names) != 1:
            raise ValueError("fit: the records name " + (f"several hardware profiles ({', '.join(names)})"
                                                         if names else "no hardware")
                             + "; give hardware=")
        hardware = names[0]
    hw = _hardware(hardware)
    prior_cal = None if prior is None else _calibration_file(prior, hw).calibration
    options = _core.calibrate.FitOptions(
        fit_overhead=bool(fit_overhead), relative_error=_float("relative_error", relative_error),
        prior_log_sd={_core.calibrate.coefficient_info(str(k))["name"]: _float(f"prior_log_sd[{k!r}]", v)
                      for k, v in (prior_log_sd or {}).items()})  # unknown names: ValueError listing the valid
    result = _core.calibrate.fit(data, hw, prior_cal, options)
    result.hardware = hw
    result.sources = list(getattr(data, "sources", []))
    return result


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
    valid = list(_core.gate.packer_names())
    if name not in valid:
        raise ValueError(f"packing = {packing!r}: must be one of {', '.join(valid)} "
                         f"(or the short names {', '.join(PACKING_ALIASES)})")
    return name


def packing_names() -> list[str]:
    """The packers pack() and gate() accept (short aliases: PACKING_ALIASES)."""
    return list(_core.gate.packer_names())


def read_lengths(path: PathLike, *, format: str = "auto", dtype: Optional[str] = None,
                 field: str = "length") -> np.ndarray:
    """Per-sample token lengths from a file as a uint32 numpy array: .npy (uint16/32/64,
    int32/64), raw little-endian integers (give dtype, e.g. "uint32") or JSON Lines with an
    integer field (field=). format "auto" goes by the extension (.npy / .jsonl), then by
    dtype (raw), then by the .npy magic. Raises ParseError for a malformed, truncated or
    foreign file and for zero or negative lengths."""
    if isinstance(path, bytes) or not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path: expected a file path, got {type(path).__name__}")
    return _core.gate.read_lengths(os.fspath(path), format=_str("format", format, "npy"),
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
) -> "_core.gate.PackResult":
    """Pack per-sample token lengths as the trainer does (packing: trl_bfd / bfd,
    trl_bfd_split, trl_wrapped, nemo_ffd / ffd, torchtune / greedy, torchtune_split,
    llamafactory / knapsack, none). The bins come back as numpy CSR arrays: bin b holds
    samples[offsets[b]:offsets[b+1]] with entry_tokens alongside; bin_tokens per bin.
    map_batch_size / num_proc: datasets.map's batching (TRL, LLaMA-Factory)."""
    return _core.gate.pack(_packer(packing), _lengths(lengths, dtype, field, format), _int("seq_len", seq_len),
                           _int("map_batch_size", map_batch_size), _int("num_proc", num_proc))


def _gate_config(*, world_size: Any, seq_len: Any, packing: Any, micro_batch: Any, grad_accum: Any,
                 shuffle_seed: Any, drop_last: Any, watchdog_s: Any, epoch: Any, dataloader_drop_last: Any,
                 step_rounding: Any, map_batch_size: Any, num_proc: Any, runtime_equalize: Any,
                 shard_before_packing: Any = False) -> "_core.gate.GateConfig":
    for name, v in (("drop_last", drop_last), ("dataloader_drop_last", dataloader_drop_last),
                    ("runtime_equalize", runtime_equalize), ("shard_before_packing", shard_before_packing)):
        if not isinstance(v, (bool, np.bool_)):
            raise TypeError(f"{name}: expected True or False, got {v!r}")
    seed = None if shuffle_seed is None else _int("shuffle_seed", shuffle_seed)
    if seed is not None and seed < 0:
        raise ValueError(f"shuffle_seed = {seed}; it must be ≥ 0")
    return _core.gate.GateConfig(
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
) -> "_core.gate.GateResult":
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
    return _core.gate.gate(_lengths(lengths, dtype, field, format), config)


# --- power triage --------------------------------------------------------------------

_TRACE_FORMATS = ("auto", "nvidia-smi", "dcgm")


def read_trace(path: PathLike, *, format: str = "auto") -> "_core.triage.PowerTrace":
    """A GPU power trace from an nvidia-smi CSV log or dcgm-exporter Prometheus text.

    format: "auto" (dcgm when the file names DCGM_FI_DEV_ metrics, else nvidia-smi),
    "nvidia-smi" or "dcgm". Unparseable lines are skipped and counted in ``.report``;
    raises ParseError for an unreadable or foreign file (no line parsed)."""
    fmt = _str("format", format, "nvidia-smi")
    if fmt not in _TRACE_FORMATS:
        raise ValueError(f"format: {fmt!r} is not one of {', '.join(_TRACE_FORMATS)}")
    return _core.triage.read_trace(_name_or_path("path", path), fmt)


def default_power_bands(hardware: HardwareLike) -> "_core.triage.PowerBands":
    """The default (uncalibrated) power bands of a hardware profile."""
    return _core.triage.default_power_bands(_hardware(hardware))


def power_bands(hardware: HardwareLike = "h100", *,
                calibration: Optional[PathLike] = None) -> "_core.triage.PowerBands":
    """Power bands for ``hardware``: the ``power_bands`` section of a calibration file made
    on it (the harness writes one), else the default, uncalibrated bands."""
    hw = _hardware(hardware)
    if calibration is None:
        return _core.triage.default_power_bands(hw)
    return _core.triage.read_power_bands(_name_or_path("calibration", calibration), hw)


def _bands(hardware: HardwareLike, bands: Any, calibration: Optional[PathLike]) -> "_core.triage.PowerBands":
    if bands is not None and calibration is not None:
        raise ValueError("give bands or calibration, not both")
    if bands is None:
        return power_bands(hardware, calibration=calibration)
    if not isinstance(bands, _core.triage.PowerBands):
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


def triage_options(**kw: Any) -> tuple["_core.triage.ClassifierOptions", "_core.triage.DetectorOptions"]:
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
    classifier = _core.triage.ClassifierOptions(smoothing_window_s=_float("smoothing_s", o["smoothing_s"]),
                                         min_dwell_s=_float("min_dwell_s", o["min_dwell_s"]))
    detector = _core.triage.DetectorOptions(
        util_threshold_pct=_float("util_threshold_pct", o["util_threshold_pct"]),
        expected_checkpoint_s=_opt_float("expected_checkpoint_s", expected) or 0.0,
        deadlock_after_s=_opt_float("deadlock_after_s", o["deadlock_after_s"]) or 0.0,
        starvation_after_s=_float("starvation_after_s", o["starvation_after_s"]),
        straggler_after_s=_float("straggler_after_s", o["straggler_after_s"]),
        checkpoints=_core.triage.CheckpointSchedule(
            first_start_s=_float("checkpoint_first_start_s", o["checkpoint_first_start_s"]),
            interval_s=_opt_float("checkpoint_interval_s", o["checkpoint_interval_s"]) or 0.0,
            duration_s=_opt_float("checkpoint_duration_s", o["checkpoint_duration_s"]) or 0.0,
            windows=windows),
    )
    return classifier, detector


def triage(
    trace: Union[PathLike, "_core.triage.PowerTrace"],
    *,
    hardware: HardwareLike = "h100",
    bands: Optional["_core.triage.PowerBands"] = None,
    calibration: Optional[PathLike] = None,
    format: str = "auto",
    **options: Any,
) -> "_core.triage.TriageResult":
    """Classify a power trace into phases and detect deadlocks, starvation and stragglers.

    trace: a PowerTrace (read_trace) or a path (read with ``format``). bands: PowerBands
    (default: power_bands(hardware, calibration=calibration)). options: TRIAGE_DEFAULTS'
    keywords (see triage_options)."""
    if not isinstance(trace, _core.triage.PowerTrace):
        trace = read_trace(trace, format=format)
    bands = _bands(hardware, bands, calibration)
    classifier, detector = triage_options(**options)
    result = _core.triage.triage(trace, bands, classifier, detector)
    result.trace = trace
    result.bands = bands
    return result


def triage_stream(
    *,
    hardware: HardwareLike = "h100",
    bands: Optional["_core.triage.PowerBands"] = None,
    calibration: Optional[PathLike] = None,
    stale_after_s: float = 5.0,
    **options: Any,
) -> "_core.triage.TriageStream":
    """A live triage stream (what ``libscale watch`` runs): push one poll of samples at a
    time with ``.push(time_s, gpu, power_w, utilization_pct)``; phase changes and alerts
    come back. Same bands and options as triage()."""
    classifier, detector = triage_options(**options)
    return _core.triage.TriageStream(_bands(hardware, bands, calibration), classifier, detector,
                                     _core.triage.StreamOptions(stale_after_s=_float("stale_after_s", stale_after_s)))
