"""Keyword-argument front ends over the C++ core.

Everything here converts arguments (names or paths to specs, dicts to structs, Python
sequences to numpy arrays), checks their types and forwards to ``libscale._core``.
Every number is computed in C++; this module does no arithmetic of its own.
"""

from __future__ import annotations

import numbers
import os
import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Union

import numpy as np

from . import _core, _files, _format, _progress
from . import catalog as _catalog
from . import options as _options
from ._core.calibrate import Calibration, CalibrationFile
from ._core.spec import HardwareProfile, ModelSpec, TrainingConfig
from .catalog import _text
from .fit_result import FitResult, Measurements
from .gate_result import GateResult, PackResult
from .plan import _int_array
from .triage_result import TriageResult

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
        out = int(float(value))
    else:
        raise TypeError(f"{name}: expected an integer, got {type(value).__name__} {value!r}")
    if not _INT64.min <= out <= _INT64.max:
        raise ValueError(f"{name} = {_format.big_integer(out)}; it is beyond the 64-bit integer range")
    return out


def _float(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name}: expected a number, got {type(value).__name__} {value!r}")
    return float(value)


def _str(name: str, value: Any, example: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name}: expected a string such as {example!r}, got {type(value).__name__} {value!r}")
    return value


def training_config(**config: Any) -> TrainingConfig:
    """A TrainingConfig from training options (libscale.options.options("training")), each
    checked by the core; data= / checkpoint= take dicts of their options."""
    made: TrainingConfig = _core.spec.make_options("training", config)
    return made


# --- catalog -------------------------------------------------------------------------


def count_parameters(model: ModelLike) -> _core.spec.ParameterCounts:
    """Exact parameter counts per component (``.total`` is the model's size)."""
    return _core.spec.count_parameters(_model(model))


def flops_per_token(
    model: ModelLike,
    *,
    seq_len: int | None = None,
    activation_checkpointing: str | None = None,
    document_lengths: Sequence[int] | None = None,
) -> _core.spec.FlopsPerToken:
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


def _measurement_source(src: Any, i: int) -> tuple[_core.calibrate.MeasurementSet, list[str], list[str]]:
    """One source as (set, source names, notes)."""
    if isinstance(src, Measurements):
        return src.raw, src.sources, src.notes
    if isinstance(src, _core.calibrate.MeasurementSet):
        return src, [], []
    if isinstance(src, (str, bytes, os.PathLike)):
        path = _text("measurements", src, "a path to a libscale.measurements JSON file")
        return _core.calibrate.read_measurements(path), [path], []
    if isinstance(src, Mapping) or (isinstance(src, (list, tuple)) and all(isinstance(r, Mapping) for r in src)):
        # a list from libscale.logs.parse_log carries what parsing assumed as .notes
        notes = [str(n) for n in getattr(src, "notes", [])]
        return (_core.calibrate.measurements_from_json(src if isinstance(src, Mapping) else list(src),
                                                       origin=f"<records {i}>"), [], notes)
    raise TypeError(f"measurements: source {i}: expected a path to a libscale.measurements JSON file, a list "
                    f"of record dicts or a MeasurementSet, got {type(src).__name__}")


def read_measurements(*sources: Any) -> Measurements:
    """Measurement records (schema libscale.measurements/2; /1 is read too) from JSON files, lists of
    record dicts (e.g. what libscale.logs.parse_log returns) or MeasurementSets, merged
    in order, with the files' names as ``.sources`` and the logs' notes as ``.notes``.
    Raises ParseError naming the file (or source), record and field."""
    if not sources:
        raise ValueError("read_measurements: give at least one file or list of records")
    _files.check_distinct([os.fspath(s) for s in sources if isinstance(s, (str, os.PathLike))],
                          "a measurement file")
    out = _core.calibrate.MeasurementSet()
    names: list[str] = []
    notes: list[str] = []
    for i, src in enumerate(sources):
        data, src_names, src_notes = _measurement_source(src, i)
        out.merge(data)
        names += src_names
        notes += src_notes
    return Measurements(out, names, notes)


def fit(
    measurements: Any,
    hardware: HardwareLike | None = None,
    *,
    prior: CalibrationLike = None,
    fit_overhead: bool = True,
    relative_error: float = 0.03,
    prior_log_sd: Mapping[str, float] | None = None,
) -> FitResult:
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
    data = measurements if isinstance(measurements, Measurements) else read_measurements(measurements)
    if hardware is None:
        try:
            hardware = data.only_hardware()
        except ValueError as e:
            raise ValueError(f"fit: {e}; give hardware=") from None
    hw = _hardware(hardware)
    prior_cal = None if prior is None else _calibration_file(prior, hw).calibration
    options = _core.calibrate.FitOptions(
        fit_overhead=bool(fit_overhead), relative_error=_float("relative_error", relative_error),
        prior_log_sd={_core.calibrate.coefficient_info(str(k))["name"]: _float(f"prior_log_sd[{k!r}]", v)
                      for k, v in (prior_log_sd or {}).items()})  # unknown names: ValueError listing the valid
    # In optimizer iterations: a fit cannot know its work ahead, only max_iterations per solve.
    with _progress.watch_counter(_core.Progress(), f"fit ({len(data):,} records)", unit="iterations") as counter:
        raw = _core.calibrate.fit(data.raw, hw, prior_cal, options, progress=counter)
    return FitResult(raw, hw, data, options.relative_error)


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
    # the trainers' own names, for their default packing: TRL's SFTConfig packing_strategy
    # "bfd", LLaMA-Factory's knapsack, Axolotl's multipack sample packing
    "trl": "trl_bfd",
    "llama_factory": "llamafactory",
    "axolotl": "axolotl_multipack",
}

#: Trainer names whose default packing the gate does not reproduce, with what it offers.
_UNREPRODUCED_PACKING: dict[str, str] = {
    "nemo": "NeMo's default packing_algorithm is 'first_fit_shuffle' (a random order), which the gate does not "
            "reproduce; its 'first_fit_decreasing' is packing='nemo_ffd' (short name 'ffd')",
}

#: Packer names their trainer has deprecated: TRL v0.29 called bfd_split "bfd-requeue";
#: since v1.0.0 SFTConfig maps it to "bfd_split" with a FutureWarning (trl/trainer/sft_config.py,
#: https://github.com/huggingface/trl/blob/v1.0.0/trl/trainer/sft_config.py), and so does the gate.
_DEPRECATED_PACKING: dict[str, tuple[str, str]] = {
    "bfd_requeue": ("trl_bfd_split", "TRL renamed the 'bfd-requeue' packing strategy to 'bfd_split' in v1.0.0 and "
                    "maps the old name to it with a FutureWarning: packing as trl_bfd_split"),
}

LengthsLike = Union[np.ndarray, Sequence[int], str, "os.PathLike[str]"]


def _packer(packing: Any) -> str:
    name = _str("packing", packing, "bfd").strip().lower().replace("-", "_")
    if name in _DEPRECATED_PACKING:
        name, message = _DEPRECATED_PACKING[name]
        warnings.warn(f"packing = {packing!r}: {message}", FutureWarning, stacklevel=3)
    if name in _UNREPRODUCED_PACKING:
        raise ValueError(f"packing = {packing!r}: {_UNREPRODUCED_PACKING[name]}")
    name = PACKING_ALIASES.get(name, name)
    valid = list(_core.gate.packer_names())
    if name not in valid:
        raise ValueError(f"packing = {packing!r}: must be one of {', '.join(valid)} "
                         f"(or the short names {', '.join(PACKING_ALIASES)})")
    return name


def packing_names() -> list[str]:
    """The packers pack() and gate() accept (short aliases: PACKING_ALIASES)."""
    return list(_core.gate.packer_names())


def read_lengths(path: PathLike, *, format: str = "auto", dtype: str | None = None,
                 field: str = "length") -> np.ndarray:
    """Per-sample token lengths from a file as a uint32 numpy array: .npy (any integer
    dtype numpy writes, either byte order), raw integers (give dtype, e.g. "uint32" or
    ">u4") or JSON Lines with an integer field (field=). format "auto" goes by the
    extension (.npy / .jsonl), then by dtype (raw), then by the .npy magic. Raises
    ParseError for a malformed, truncated or foreign file and for negative lengths; a
    0-token sample is read as 0 (each packer treats it as its trainer does)."""
    if isinstance(path, bytes) or not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path: expected a file path, got {type(path).__name__}")
    return _core.gate.read_lengths(os.fspath(path), format=_str("format", format, "npy"),
                              dtype=None if dtype is None else _str("dtype", dtype, "uint32"),
                              field=_str("field", field, "length"))


def _lengths(lengths: Any, dtype: str | None, field: str, format: str) -> Any:
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
    if seq and not all(0 <= int(v) < 2**32 for v in seq):
        bad = next(i for i, v in enumerate(seq) if not 0 <= int(v) < 2**32)
        raise ValueError(f"lengths[{bad}] = {seq[bad]}; a token count must be in [0, 4294967295]")
    return np.asarray(seq, dtype=np.int64) if seq else np.zeros(0, dtype=np.uint32)


def pack(
    lengths: LengthsLike,
    *,
    seq_len: int,
    packing: str = "trl_bfd",
    map_batch_size: int = 1000,
    num_proc: int = 1,
    dtype: str | None = None,
    field: str = "length",
    format: str = "auto",
) -> PackResult:
    """Pack per-sample token lengths as the trainer does (packing: trl_bfd / bfd,
    trl_bfd_split, trl_wrapped, nemo_ffd / ffd, torchtune / greedy, torchtune_split,
    llamafactory / knapsack, none). The bins come back as numpy CSR arrays: bin b holds
    samples[offsets[b]:offsets[b+1]] with entry_tokens alongside; bin_tokens per bin.
    map_batch_size / num_proc: datasets.map's batching (TRL, LLaMA-Factory)."""
    packer, values = _packer(packing), _lengths(lengths, dtype, field, format)
    with _progress.watch_counter(_core.Progress(), f"pack ({packer})", unit="samples") as counter:
        raw = _core.gate.pack(packer, values, _int("seq_len", seq_len), _int("map_batch_size", map_batch_size),
                              _int("num_proc", num_proc), progress=counter)
    return PackResult(raw)


def _gate_config(*, packing: Any, shuffle_seed: Any, drop_last: Any, **options: Any) -> _core.gate.GateConfig:
    """GateConfig from the gate option group (libscale.options.options("gate")), every value
    checked by the core. gate()'s keywords that are not the group's, each a shorthand for
    options of it: packing (a packer or one of PACKING_ALIASES: packer), shuffle_seed
    (shuffle=True with seed) and drop_last (sampler_drop_last)."""
    values = dict(options)
    for given, name, covers in ((packing, "packing", ("packer",)), (shuffle_seed, "shuffle_seed", ("shuffle", "seed")),
                                (drop_last, "drop_last", ("sampler_drop_last",))):
        if given is not None and any(c in values for c in covers):
            raise TypeError(f"{name} and {' / '.join(covers)} both given: {name} sets {' and '.join(covers)}")
    if packing is not None:
        values["packer"] = _packer(packing)
    if shuffle_seed is not None:
        values.update(shuffle=True, seed=shuffle_seed)
    if drop_last is not None:
        values["sampler_drop_last"] = drop_last
    config: _core.gate.GateConfig = _core.spec.make_options("gate", values)
    return config


@_options.with_options_doc("gate")
def gate(
    lengths: LengthsLike,
    *,
    world_size: int,
    seq_len: int,
    packing: str | None = None,
    shuffle_seed: int | None = None,
    drop_last: bool | None = None,
    dtype: str | None = None,
    field: str = "length",
    format: str = "auto",
    remedy: bool = False,
    **options: Any,
) -> GateResult:
    """The pre-launch packing gate: pack the lengths as the trainer does, shard them as
    DistributedSampler does and check that every rank runs the same number of micro-batches.

    remedy=True judges the run with the gate's remedy applied: every rank keeps its first
    min(micro-batches) micro-batches (what a FAIL's ``.micro_batches_dropped`` counts), so
    that ranks agree; the result then passes and its per-rank arrays are those the trainer
    would run.

    lengths: a numpy array (uint32 is used without a copy), a list of ints, or a path to a
    .npy, raw (give dtype) or .jsonl (field) file. world_size and seq_len are required.
    Shorthands: packing (a packer name or alias: "bfd", "ffd", "greedy", "knapsack",
    "multipack", "none", ...), shuffle_seed (shuffle=True with that seed), drop_last (the
    sampler's). The other options are the gate group's, listed below.

    The result has .passed, per-rank numpy arrays (.sequences, .micro_batches,
    .optimizer_steps, .tokens, .padding_efficiency), the remedy (.micro_batches_dropped,
    .steps_dropped, .tokens_dropped, .tokens_dropped_pct), .cost_at_risk_gpu_hours,
    .to_dict(), .to_pandas() (one row per rank) and a Jupyter table."""
    config = _gate_config(world_size=world_size, seq_len=seq_len, packing=packing, shuffle_seed=shuffle_seed,
                          drop_last=drop_last, **options)
    values = _lengths(lengths, dtype, field, format)
    if not isinstance(remedy, bool):
        raise TypeError(f"remedy: expected True or False, got {remedy!r}")
    with _progress.watch_counter(_core.Progress(), f"gate ({config.packer})", unit="samples") as counter:
        if remedy:
            rows = _core.gate.shard_and_pack(values, config, progress=counter)
            raw = _core.gate.judge(_core.gate.equalize_to_minimum(rows, config), config)
        else:
            raw = _core.gate.gate(values, config, progress=counter)
    return GateResult(raw)


# --- power triage --------------------------------------------------------------------

_TRACE_FORMATS = ("auto", "nvidia-smi", "dcgm")


def read_trace(path: PathLike, *, format: str = "auto") -> _core.triage.PowerTrace:
    """A GPU power trace from an nvidia-smi CSV log or dcgm-exporter Prometheus text.

    format: "auto" (dcgm when the file names DCGM_FI_DEV_ metrics, else nvidia-smi),
    "nvidia-smi" or "dcgm". Unparseable lines are skipped and counted in ``.report``;
    raises ParseError for an unreadable or foreign file (no line parsed)."""
    fmt = _str("format", format, "nvidia-smi")
    if fmt not in _TRACE_FORMATS:
        raise ValueError(f"format: {fmt!r} is not one of {', '.join(_TRACE_FORMATS)}")
    return _core.triage.read_trace(_text("path", path, "a trace file path"), fmt)


def default_power_bands(hardware: HardwareLike) -> _core.triage.PowerBands:
    """The default (uncalibrated) power bands of a hardware profile."""
    return _core.triage.default_power_bands(_hardware(hardware))


def power_bands(hardware: HardwareLike = "h100", *,
                calibration: PathLike | None = None) -> _core.triage.PowerBands:
    """Power bands for ``hardware``: the ``power_bands`` section of a calibration file made
    on it (the harness writes one), else the default, uncalibrated bands."""
    hw = _hardware(hardware)
    if calibration is None:
        return _core.triage.default_power_bands(hw)
    return _core.triage.read_power_bands(_text("calibration", calibration, "a calibration file path"), hw)


def _bands(hardware: HardwareLike, bands: Any, calibration: PathLike | None) -> _core.triage.PowerBands:
    if bands is not None and calibration is not None:
        raise ValueError("give bands or calibration, not both")
    if bands is None:
        return power_bands(hardware, calibration=calibration)
    if not isinstance(bands, _core.triage.PowerBands):
        raise TypeError(f"bands: expected a PowerBands, got {type(bands).__name__}")
    return bands


#: The triage options' defaults (the option schema's; libscale.options.defaults("triage")).
TRIAGE_DEFAULTS: dict[str, Any] = _options.defaults("triage")


def triage_options(**options: Any) -> _core.triage.TriageOptions:
    """TriageOptions from the triage option group (libscale.options.options("triage")),
    each checked by the core, plus checkpoint_windows [(start_s, end_s), ...]: declared
    saves inside which the deadlock detector is silent. smoothing_s is the earlier name of
    smoothing_window_s. (expected_checkpoint_s not set: the core derives the deadlock time T
    from checkpoint_duration_s.)"""
    values = dict(options)
    windows = values.pop("checkpoint_windows", None)
    if "smoothing_s" in values:
        values["smoothing_window_s"] = values.pop("smoothing_s")
    result: _core.triage.TriageOptions = _core.spec.make_options("triage", values)
    if windows:  # not a single value, so not in the option table: the bound structs take it
        d, c = result.detector, result.detector.checkpoints
        checkpoints = _core.triage.CheckpointSchedule(
            first_start_s=c.first_start_s, interval_s=c.interval_s, duration_s=c.duration_s,
            windows=[(_float("checkpoint_windows start", a), _float("checkpoint_windows end", b)) for a, b in windows])
        result.detector = _core.triage.DetectorOptions(
            **{k: getattr(d, k) for k in type(d)._fields if k != "checkpoints"}, checkpoints=checkpoints)
        result.validate()
    return result


def triage(
    trace: PathLike | _core.triage.PowerTrace,
    *,
    hardware: HardwareLike | None = None,
    bands: _core.triage.PowerBands | None = None,
    calibration: PathLike | None = None,
    format: str = "auto",
    **options: Any,
) -> TriageResult:
    """Classify a power trace into phases and detect deadlocks, starvation and stragglers.

    trace: a PowerTrace (read_trace) or a path (read with ``format``). hardware: whose
    bands (default: the GPU an nvidia-smi log's ``name`` column names, else h100). bands:
    PowerBands (default: power_bands(hardware, calibration=calibration)). options: the
    triage option group's (see triage_options)."""
    if not isinstance(trace, _core.triage.PowerTrace):
        trace = read_trace(trace, format=format)
    if hardware is None:
        from .watch.sources import catalog_hardware_of

        named = trace.report.gpu_name and catalog_hardware_of([{"name": trace.report.gpu_name}])
        hardware = named or "h100"
    bands = _bands(hardware, bands, calibration)
    o = triage_options(**options)
    return TriageResult(_core.triage.triage(trace, bands, o.classifier, o.detector), trace, bands)


def triage_stream(
    *,
    hardware: HardwareLike = "h100",
    bands: _core.triage.PowerBands | None = None,
    calibration: PathLike | None = None,
    stale_after_s: float = 5.0,
    **options: Any,
) -> _core.triage.TriageStream:
    """A live triage stream (what ``libscale watch`` runs): push one poll of samples at a
    time with ``.push(time_s, gpu, power_w, utilization_pct)``; phase changes and alerts
    come back. Same bands and options as triage()."""
    o = triage_options(**options)
    return _core.triage.TriageStream(_bands(hardware, bands, calibration), o.classifier, o.detector,
                                     _core.triage.StreamOptions(stale_after_s=_float("stale_after_s", stale_after_s)))
