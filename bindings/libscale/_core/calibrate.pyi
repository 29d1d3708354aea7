"""Calibrations and their coefficient table, calibration files, measurements, the fitter, validation against published
step timings.
"""

from __future__ import annotations

import collections.abc
import typing

import numpy
import numpy.typing

from . import Progress, _Pybind11Type, spec, triage

class LinkLevel(metaclass=_Pybind11Type):
    """Ring collective latency and bus bandwidth of one link level."""
    _fields: typing.ClassVar[tuple[str, ...]]
    alpha_s: float
    busbw_bytes_per_s: float

    def __init__(self, *, alpha_s: float = 0.0, busbw_bytes_per_s: float = 0.0) -> None:
        """Every field by keyword."""

    def to_dict(self) -> dict[str, typing.Any]:
        """The fields in declaration order, then derived properties; nested structs as dicts."""

    def __repr__(self) -> str: ...

    def __copy__(self) -> LinkLevel: ...

    def __deepcopy__(self, memo: dict[int, typing.Any]) -> LinkLevel: ...

class GemmLaw(metaclass=_Pybind11Type):
    """GEMM law: tiles of tile_m × tile_n run in waves of sm_count blocks at a fraction eta_max · K/(K + k_half) of
    per-SM peak (docs/model.md 'GEMM').
    """
    _fields: typing.ClassVar[tuple[str, ...]]
    eta_max: float
    fp8_eta_max: float
    tile_m: float
    tile_n: float
    k_half: float

    def __init__(
        self,
        *,
        eta_max: float = 0.0,
        fp8_eta_max: float = 0.0,
        tile_m: float = 128.0,
        tile_n: float = 256.0,
        k_half: float = 0.0,
    ) -> None:
        """Every field by keyword; unset fields keep the C++ defaults."""

    def to_dict(self) -> dict[str, typing.Any]:
        """The fields in declaration order, then derived properties; nested structs as dicts."""

    def __repr__(self) -> str: ...

    def __copy__(self) -> GemmLaw: ...

    def __deepcopy__(self, memo: dict[int, typing.Any]) -> GemmLaw: ...

class AttentionLaw(metaclass=_Pybind11Type):
    """Fused-attention law: peak · eta_max · s/(s + half_seq) · g(head_dim), forward and backward (docs/model.md
    'Attention').
    """
    _fields: typing.ClassVar[tuple[str, ...]]
    forward_eta_max: float
    forward_half_seq: float
    backward_eta_max: float
    backward_half_seq: float
    head_dim_half: float

    def __init__(
        self,
        *,
        forward_eta_max: float = 0.0,
        forward_half_seq: float = 0.0,
        backward_eta_max: float = 0.0,
        backward_half_seq: float = 0.0,
        head_dim_half: float = 0.0,
    ) -> None:
        """Every field by keyword; unset fields keep the C++ defaults."""

    def to_dict(self) -> dict[str, typing.Any]:
        """The fields in declaration order, then derived properties; nested structs as dicts."""

    def __repr__(self) -> str: ...

    def __copy__(self) -> AttentionLaw: ...

    def __deepcopy__(self, memo: dict[int, typing.Any]) -> AttentionLaw: ...

class Calibration(metaclass=_Pybind11Type):
    """Coefficients the step model consumes, in absolute units (default_calibration(hw)). Its numbers are
    calibration_coefficients(): gemm.* and attention.* on .gemm and .attention, the link levels on .intra_node /
    .inter_node, the rest here with '.' written '_' (power.compute_w is .power_compute_w).
    """
    _fields: typing.ClassVar[tuple[str, ...]]
    hardware: str
    kind: str
    source: str
    gemm: GemmLaw
    attention: AttentionLaw
    attention_kernel: str
    hbm_efficiency: float
    framework_efficiency: float
    kernel_overhead_s: float
    layer_overhead_s: float
    intra_node: LinkLevel
    inter_node: LinkLevel
    reserved_gib: float
    fragmentation: float
    memory_margin: float
    power_compute_w: float
    power_comm_w: float
    power_idle_w: float
    step_overhead_s: float

    def __init__(
        self,
        *,
        hardware: str = '',
        kind: str = 'default',
        source: str = '',
        gemm: GemmLaw = ...,
        attention: AttentionLaw = ...,
        attention_kernel: str = 'flash2',
        hbm_efficiency: float = 0.0,
        framework_efficiency: float = 1.0,
        kernel_overhead_s: float = 0.0,
        layer_overhead_s: float = 0.0,
        intra_node: LinkLevel = ...,
        inter_node: LinkLevel = ...,
        reserved_gib: float = 0.0,
        fragmentation: float = 0.0,
        memory_margin: float = 0.0,
        power_compute_w: float = 0.0,
        power_comm_w: float = 0.0,
        power_idle_w: float = 0.0,
        step_overhead_s: float = 0.0,
    ) -> None:
        """Every field by keyword; usually start from default_calibration(hw) and copy.copy() it."""

    def to_dict(self) -> dict[str, typing.Any]:
        """The fields in declaration order, then derived properties; nested structs as dicts."""

    def validate(self) -> None:
        """Raise ValueError naming the first coefficient outside its valid range."""

    def __repr__(self) -> str: ...

    def __copy__(self) -> Calibration: ...

    def __deepcopy__(self, memo: dict[int, typing.Any]) -> Calibration: ...

class GemmRun(metaclass=_Pybind11Type):
    """One GEMM C[m×n] = A[m×k]·B[k×n], median time of repeated runs."""
    _fields: typing.ClassVar[tuple[str, ...]]

    @property
    def hardware(self) -> str: ...

    @property
    def m(self) -> float: ...

    @property
    def n(self) -> float: ...

    @property
    def k(self) -> float: ...

    @property
    def fp8(self) -> bool:
        """dtype 'fp8' (else bf16)"""

    @property
    def seconds(self) -> float: ...

    def __init__(self, *args: typing.Never, **kwargs: typing.Never) -> None:
        """No constructor: made by the core only (TypeError)."""

    def to_dict(self) -> dict[str, typing.Any]:
        """The fields in declaration order, then derived properties; nested structs as dicts."""

    def __repr__(self) -> str: ...

class AttentionRun(metaclass=_Pybind11Type):
    """One fused attention kernel over batch × seq_len query tokens."""
    _fields: typing.ClassVar[tuple[str, ...]]

    @property
    def hardware(self) -> str: ...

    @property
    def batch(self) -> float: ...

    @property
    def seq_len(self) -> float: ...

    @property
    def heads(self) -> float: ...

    @property
    def head_dim(self) -> float: ...

    @property
    def causal(self) -> bool: ...

    @property
    def backward(self) -> bool:
        """pass 'backward' (else forward)"""

    @property
    def seconds(self) -> float: ...

    def __init__(self, *args: typing.Never, **kwargs: typing.Never) -> None:
        """No constructor: made by the core only (TypeError)."""

    def to_dict(self) -> dict[str, typing.Any]:
        """The fields in declaration order, then derived properties; nested structs as dicts."""

    def __repr__(self) -> str: ...

class BandwidthRun(metaclass=_Pybind11Type):
    """A memory-bound kernel that reads and writes `bytes` in all (a copy counts both)."""
    _fields: typing.ClassVar[tuple[str, ...]]

    @property
    def hardware(self) -> str: ...

    @property
    def bytes(self) -> float: ...

    @property
    def seconds(self) -> float: ...

    def __init__(self, *args: typing.Never, **kwargs: typing.Never) -> None:
        """No constructor: made by the core only (TypeError)."""

    def to_dict(self) -> dict[str, typing.Any]:
        """The fields in declaration order, then derived properties; nested structs as dicts."""

    def __repr__(self) -> str: ...

class CollectiveRun(metaclass=_Pybind11Type):
    """One collective micro-run (nccl-tests)."""
    _fields: typing.ClassVar[tuple[str, ...]]

    @property
    def hardware(self) -> str: ...

    @property
    def op(self) -> str:
        """'all_gather', 'reduce_scatter' or 'all_reduce'"""

    @property
    def ranks(self) -> int: ...

    @property
    def ranks_per_node(self) -> int:
        """GPUs of the ring in each node"""

    @property
    def bytes(self) -> float:
        """full buffer size S, as nccl-tests reports 'size'"""

    @property
    def seconds(self) -> float: ...

    def __init__(self, *args: typing.Never, **kwargs: typing.Never) -> None:
        """No constructor: made by the core only (TypeError)."""

    def to_dict(self) -> dict[str, typing.Any]:
        """The fields in declaration order, then derived properties; nested structs as dicts."""

    def __repr__(self) -> str: ...

class StepRun(metaclass=_Pybind11Type):
    """One end-to-end training step configuration and its measured step time."""
    _fields: typing.ClassVar[tuple[str, ...]]

    @property
    def model(self) -> str:
        """catalog name or config.json path"""

    @property
    def model_overrides(self) -> typing.Any:
        """config.json keys replaced"""

    @property
    def hardware(self) -> str: ...

    @property
    def config(self) -> spec.TrainingConfig: ...

    @property
    def step_time_s(self) -> float: ...

    @property
    def memory_gib(self) -> float:
        """published peak memory per GPU (0: none)"""

    @property
    def memory_kind(self) -> str:
        """reserved | allocated | active | nvidia-smi"""

    @property
    def memory_reserved_gib(self) -> float:
        """peak memory the caching allocator reserved per GPU, beside an allocated memory_gib (0: none)"""

    @property
    def reported_mfu(self) -> float:
        """as the source computed it (0: none)"""

    @property
    def relative_error(self) -> float:
        """1 sd, relative (0: the fit's default)"""

    @property
    def series(self) -> str: ...

    @property
    def validation_exclude(self) -> str:
        """why validate() leaves the record out ('': used)"""

    @property
    def source(self) -> str: ...

    @property
    def layers(self) -> int:
        """step micro-runs: the decoder layers run (0: a whole step)"""

    def __init__(self, *args: typing.Never, **kwargs: typing.Never) -> None:
        """No constructor: made by the core only (TypeError)."""

    def to_dict(self) -> dict[str, typing.Any]:
        """The fields in declaration order, then derived properties; nested structs as dicts."""

    def __repr__(self) -> str: ...

class PowerRecord(metaclass=_Pybind11Type):
    """Board power in one phase."""
    _fields: typing.ClassVar[tuple[str, ...]]

    @property
    def hardware(self) -> str: ...

    @property
    def phase(self) -> str:
        """compute | communication | data_starvation | checkpoint_or_deadlock | idle"""

    @property
    def watts(self) -> float: ...

    def __init__(self, *args: typing.Never, **kwargs: typing.Never) -> None:
        """No constructor: made by the core only (TypeError)."""

    def to_dict(self) -> dict[str, typing.Any]:
        """The fields in declaration order, then derived properties; nested structs as dicts."""

    def __repr__(self) -> str: ...

class MeasurementSet(metaclass=_Pybind11Type):
    """Validated measurement records (schema libscale.measurements/2; /1 files are read too)."""
    _fields: typing.ClassVar[tuple[str, ...]]

    @property
    def gemm(self) -> list[GemmRun]: ...

    @property
    def attention(self) -> list[AttentionRun]: ...

    @property
    def bandwidth(self) -> list[BandwidthRun]: ...

    @property
    def collectives(self) -> list[CollectiveRun]: ...

    @property
    def steps(self) -> list[StepRun]: ...

    @property
    def microruns(self) -> list[StepRun]: ...

    @property
    def power(self) -> list[PowerRecord]: ...

    @property
    def gemm_count(self) -> int: ...

    @property
    def attention_count(self) -> int: ...

    @property
    def bandwidth_count(self) -> int: ...

    @property
    def collective_count(self) -> int: ...

    @property
    def step_count(self) -> int: ...

    @property
    def microrun_count(self) -> int: ...

    @property
    def power_count(self) -> int: ...

    @property
    def hardware(self) -> list[str]:
        """distinct hardware names of the records, in order of appearance"""

    def __init__(self) -> None: ...

    def to_dict(self) -> dict[str, typing.Any]:
        """The fields in declaration order, then derived properties; nested structs as dicts."""

    def __len__(self) -> int: ...

    def to_json(self) -> typing.Any:
        """The records as the measurement file's JSON object (dicts and lists)."""

    def merge(self, other: MeasurementSet) -> None:
        """Append other's records."""

    def __repr__(self) -> str: ...

    def __copy__(self) -> MeasurementSet: ...

    def __deepcopy__(self, memo: dict[int, typing.Any]) -> MeasurementSet: ...

class FitOptions(metaclass=_Pybind11Type):
    """Options of fit()."""
    _fields: typing.ClassVar[tuple[str, ...]]
    fit_overhead: bool
    max_iterations: int
    condition_limit: float
    relative_error: float
    prior_log_sd: dict[str, float]

    def __init__(
        self,
        *,
        fit_overhead: bool = True,
        max_iterations: int = 100,
        condition_limit: float = 10000000000.0,
        relative_error: float = 0.03,
        prior_log_sd: collections.abc.Mapping[str, float] = {},
    ) -> None:
        """Every field by keyword."""

    def to_dict(self) -> dict[str, typing.Any]:
        """The fields in declaration order, then derived properties; nested structs as dicts."""

    def __repr__(self) -> str: ...

class Coefficient(metaclass=_Pybind11Type):
    """One calibration parameter after a fit."""
    _fields: typing.ClassVar[tuple[str, ...]]

    @property
    def name(self) -> str: ...

    @property
    def value(self) -> float: ...

    @property
    def std_error(self) -> float:
        """posterior sd; 0 when kept from the prior"""

    @property
    def prior_value(self) -> float:
        """value before the fit"""

    @property
    def prior_log_sd(self) -> float:
        """prior sd of log(value) it was fitted under; 0 when not fitted (or flat prior)"""

    @property
    def fitted(self) -> bool:
        """free in the fit"""

    @property
    def identified(self) -> bool:
        """the data narrowed its prior (posterior log sd < 0.7 × prior log sd)"""

    @property
    def measured(self) -> bool:
        """set from records directly (power), not fitted"""

    @property
    def note(self) -> str:
        """how it was determined"""

    @property
    def interval_80(self) -> tuple[float, float] | None:
        """(low, high) of the 80% interval: value·exp(±1.2816·std_error/value) for a coefficient fitted in log space
        (prior_log_sd > 0), else value ± 1.2816·std_error; None when not fitted
        """

    def __init__(self, *args: typing.Never, **kwargs: typing.Never) -> None:
        """No constructor: made by the core only (TypeError)."""

    def to_dict(self) -> dict[str, typing.Any]:
        """The fields in declaration order, then derived properties; nested structs as dicts."""

    def __repr__(self) -> str: ...

class FamilyScore(metaclass=_Pybind11Type):
    """Leave-one-out score of one scaling-model family."""
    _fields: typing.ClassVar[tuple[str, ...]]

    @property
    def family(self) -> str:
        """'mechanistic', 'amdahl' or 'usl'"""

    @property
    def parameters(self) -> int: ...

    @property
    def loo_relative_error(self) -> float | None:
        """mean |pred − obs| / obs, leave-one-out; None when not computed"""

    @property
    def applicable(self) -> bool:
        """enough points, one configuration series"""

    @property
    def note(self) -> str: ...

    def __init__(self, *args: typing.Never, **kwargs: typing.Never) -> None:
        """No constructor: made by the core only (TypeError)."""

    def to_dict(self) -> dict[str, typing.Any]:
        """The fields in declaration order, then derived properties; nested structs as dicts."""

    def __repr__(self) -> str: ...

class FitResult(metaclass=_Pybind11Type):
    """A fitted calibration with its covariance and quality."""
    _fields: typing.ClassVar[tuple[str, ...]]

    @property
    def calibration(self) -> Calibration:
        """the prior with the fitted values in place"""

    @property
    def parameters(self) -> list[str]:
        """names with an uncertainty, covariance order"""

    @property
    def covariance(self) -> typing.Annotated[numpy.typing.NDArray[numpy.float64], '[m, n]']:
        """of `parameters`, natural units"""

    @property
    def coefficients(self) -> list[Coefficient]:
        """every coefficient, fitted or kept"""

    @property
    def unidentified(self) -> list[str]:
        """'name: reason' for what the data cannot pin down"""

    @property
    def notes(self) -> list[str]:
        """records the fit set aside, and why"""

    @property
    def power_bands(self) -> triage.PowerBands | None:
        """from the power records of all five phases; None otherwise"""

    @property
    def power_bands_note(self) -> str:
        """why the power records gave no bands ('' when they did, or there were none)"""

    @property
    def relative_residuals(self) -> numpy.typing.NDArray[numpy.float64]:
        """(pred − obs)/obs per record used: intra-node collectives, cross-node collectives, GEMM, attention, bandwidth,
        steps, each in input order
        """

    @property
    def loo_relative_errors(self) -> numpy.typing.NDArray[numpy.float64]:
        """per record, as relative_residuals: (pred − obs)/obs with the record left out (steps: refit up to 32, else
        leverage; collectives: leverage, exact for their linear fit); NaN where none (GEMM, attention, bandwidth
        micro-runs; an unfitted collective level; a single step)
        """

    @property
    def record_kinds(self) -> list[str]:
        """per record, as relative_residuals: its measurement kind ('collective', 'gemm', 'attention', 'bandwidth',
        'step')
        """

    @property
    def record_indices(self) -> numpy.typing.NDArray[numpy.uint64]:
        """per record, as relative_residuals: its index in its kind's list of the MeasurementSet"""

    @property
    def rms_relative_error(self) -> float: ...

    @property
    def loo_relative_error(self) -> float | None:
        """mean |leave-one-out relative error|; None when no stage has more points than parameters"""

    @property
    def families(self) -> list[FamilyScore]:
        """end-to-end step series only"""

    @property
    def chosen_family(self) -> str: ...

    @property
    def family_reason(self) -> str: ...

    @property
    def records_used(self) -> int: ...

    @property
    def prior_log_sd(self) -> dict[str, float]:
        """the prior used (kept for later refits)"""

    def __init__(self, *args: typing.Never, **kwargs: typing.Never) -> None:
        """No constructor: made by the core only (TypeError)."""

    def to_dict(self) -> dict[str, typing.Any]:
        """The fields in declaration order, then derived properties; nested structs as dicts."""

    def calibration_json(self, provenance: typing.Any = {}) -> typing.Any:
        """The calibration file's JSON object (libscale.calibration/2)."""

    def __repr__(self) -> str: ...

    def __copy__(self) -> FitResult: ...

    def __deepcopy__(self, memo: dict[int, typing.Any]) -> FitResult: ...

class CalibrationFile(metaclass=_Pybind11Type):
    """A calibration with its uncertainty, quality and provenance (schema libscale.calibration/2)."""
    _fields: typing.ClassVar[tuple[str, ...]]

    @property
    def calibration(self) -> Calibration: ...

    @property
    def parameters(self) -> list[str]:
        """names with an uncertainty, covariance order"""

    @property
    def covariance(self) -> typing.Annotated[numpy.typing.NDArray[numpy.float64], '[m, n]']:
        """of `parameters`; empty: no uncertainty"""

    @property
    def quality(self) -> typing.Any:
        """residuals, rms / leave-one-out error, families"""

    @property
    def provenance(self) -> typing.Any:
        """hardware, versions, date, source, notes"""

    @property
    def sources(self) -> typing.Any:
        """coefficient name → where its value came from"""

    @property
    def prior_log_sd(self) -> dict[str, float]:
        """the fitter's prior: sd of log(value) per coefficient name"""

    @property
    def kind(self) -> str:
        """calibration.kind"""

    @property
    def hardware(self) -> str:
        """calibration.hardware"""

    @property
    def source(self) -> str:
        """calibration.source"""

    def __init__(
        self,
        *,
        calibration: Calibration = ...,
        parameters: collections.abc.Sequence[str] = [],
        covariance: typing.Annotated[numpy.typing.ArrayLike, numpy.float64, '[m, n]'] = ...,
        quality: typing.Any = None,
        provenance: typing.Any = None,
        sources: typing.Any = None,
        prior_log_sd: collections.abc.Mapping[str, float] = {},
    ) -> None:
        """Every field by keyword; CalibrationFile(calibration=c) is a bare calibration: no covariance, so no
        uncertainty.
        """

    def to_dict(self) -> dict[str, typing.Any]:
        """The fields in declaration order, then derived properties; nested structs as dicts."""

    def to_json(self) -> typing.Any:
        """The file's JSON object."""

    def __repr__(self) -> str: ...

    def __copy__(self) -> CalibrationFile: ...

    def __deepcopy__(self, memo: dict[int, typing.Any]) -> CalibrationFile: ...

class ValidationRow(metaclass=_Pybind11Type):
    """One published step timing against the model."""
    _fields: typing.ClassVar[tuple[str, ...]]

    @property
    def file(self) -> str:
        """the measurement file's name"""

    @property
    def series(self) -> str: ...

    @property
    def record(self) -> int:
        """index among the file's step records"""

    @property
    def model(self) -> str: ...

    @property
    def hardware(self) -> str: ...

    @property
    def config(self) -> spec.TrainingConfig: ...

    @property
    def category(self) -> str:
        """'x' the calibration row; 'a' other GPU count; 'b' other model; 'c' other configuration"""

    @property
    def measured_tokens_per_s_per_gpu(self) -> float: ...

    @property
    def default_ratio(self) -> float:
        """the default calibration's tokens/s over the measured"""

    @property
    def default_inside_p10_p90(self) -> bool:
        """the measured tokens/s lies within the default's P10-P90"""

    @property
    def calibrated_error(self) -> float:
        """tokens/s calibrated on the series' first row, over the measured, minus 1"""

    @property
    def fit_status(self) -> str:
        """'fits', 'uncertain' or 'does_not_fit'"""

    @property
    def memory_gib(self) -> float:
        """estimated per GPU"""

    @property
    def available_gib(self) -> float: ...

    @property
    def published_memory_gib(self) -> float:
        """when the source gives one (0: none)"""

    @property
    def published_memory_kind(self) -> str: ...

    @property
    def memory_estimate_gib(self) -> float:
        """the estimate of what the published figure counts (allocated, reserved or nvidia-smi); NaN without one"""

    @property
    def memory_error(self) -> float:
        """memory_estimate_gib over the published figure, minus 1"""

    def __init__(self, *args: typing.Never, **kwargs: typing.Never) -> None:
        """No constructor: made by the core only (TypeError)."""

    def to_dict(self) -> dict[str, typing.Any]:
        """The fields in declaration order, then derived properties; nested structs as dicts."""

class ValidationSeries(metaclass=_Pybind11Type):
    """One table of one codebase on one GPU."""
    _fields: typing.ClassVar[tuple[str, ...]]

    @property
    def file(self) -> str: ...

    @property
    def series(self) -> str: ...

    @property
    def hardware(self) -> str: ...

    @property
    def rows(self) -> int: ...

    @property
    def calibration(self) -> Calibration:
        """fitted to the first row"""

    def __init__(self, *args: typing.Never, **kwargs: typing.Never) -> None:
        """No constructor: made by the core only (TypeError)."""

    def to_dict(self) -> dict[str, typing.Any]:
        """The fields in declaration order, then derived properties; nested structs as dicts."""

class ErrorSummary(metaclass=_Pybind11Type):
    """Absolute calibrated errors of one category."""
    _fields: typing.ClassVar[tuple[str, ...]]

    @property
    def count(self) -> int: ...

    @property
    def median_abs(self) -> float: ...

    @property
    def max_abs(self) -> float: ...

    def __init__(self, *args: typing.Never, **kwargs: typing.Never) -> None:
        """No constructor: made by the core only (TypeError)."""

    def to_dict(self) -> dict[str, typing.Any]:
        """The fields in declaration order, then derived properties; nested structs as dicts."""

class ValidationReport(metaclass=_Pybind11Type):
    """Every series calibrated on its first row."""
    _fields: typing.ClassVar[tuple[str, ...]]

    @property
    def rows(self) -> list[ValidationRow]: ...

    @property
    def series(self) -> list[ValidationSeries]: ...

    @property
    def excluded(self) -> list[str]:
        """'file record N: reason'"""

    @property
    def gpu_counts(self) -> ErrorSummary:
        """(a) other GPU counts"""

    @property
    def model_sizes(self) -> ErrorSummary:
        """(b) other models"""

    @property
    def configurations(self) -> ErrorSummary:
        """(c) other configurations"""

    @property
    def default_count(self) -> int: ...

    @property
    def default_ratio_median(self) -> float: ...

    @property
    def default_ratio_min(self) -> float: ...

    @property
    def default_ratio_max(self) -> float: ...

    @property
    def default_inside_p10_p90(self) -> int:
        """rows whose measured tokens/s lies within the default's P10-P90"""

    @property
    def not_fitting(self) -> int:
        """published runs estimated not to fit (should be 0)"""

    @property
    def memory(self) -> ErrorSummary:
        """peak memory against every published figure, like with like"""

    @property
    def memory_allocated(self) -> ErrorSummary:
        """peak memory against the figures of max_memory_allocated (or active)"""

    @property
    def memory_reserved(self) -> ErrorSummary:
        """peak memory against the figures of max_memory_reserved"""

    def __init__(self, *args: typing.Never, **kwargs: typing.Never) -> None:
        """No constructor: made by the core only (TypeError)."""

    def to_dict(self) -> dict[str, typing.Any]:
        """The fields in declaration order, then derived properties; nested structs as dicts."""

def calibration_coefficients() -> list[typing.Any]:
    """Every calibration coefficient, as the core declares it once: a dict of name (dotted, as in a calibration file),
    unit, min, max, min_exclusive (the range is (min, max] rather than [min, max]) and help.
    """

def calibration_from_json(
    obj: typing.Any,
    hardware: spec.HardwareProfile,
    origin: str = '<calibration>',
) -> CalibrationFile:
    """A CalibrationFile from a calibration file's JSON object (a dict), checked as read_calibration_file does."""

def calibration_to_json(file: CalibrationFile) -> typing.Any:
    """The file's JSON object (CalibrationFile.to_json())."""

def coefficient_info(name: str) -> dict[str, typing.Any]:
    """One coefficient's entry (ValueError listing the valid names for an unknown one)."""

def default_calibration(hardware: spec.HardwareProfile) -> Calibration:
    """The shipped default (uncalibrated) calibration for a HardwareProfile."""

def default_calibration_file(hardware: spec.HardwareProfile) -> CalibrationFile:
    """The shipped default as a CalibrationFile: its prior, and the spread of the shipped measurements around it as
    covariance (an uncalibrated projection's P10-P90).
    """

def default_priors(hardware: spec.HardwareProfile) -> dict[str, float]:
    """The default file's prior: standard deviation of log(value) per coefficient the fitter may move."""

def fit(
    data: MeasurementSet,
    hardware: spec.HardwareProfile,
    prior: Calibration | None = None,
    options: FitOptions = ...,
    *,
    progress: Progress | None = None,
) -> FitResult:
    """Fit a calibration to the records for this hardware, by maximum a posteriori (prior None: the hardware's default;
    options.prior_log_sd empty: its default file's prior). progress counts Levenberg-Marquardt iterations,
    max_iterations per planned solve (an upper bound: a solve that converges early adds the rest at once).
    """

def get_parameter(calibration: Calibration, name: str) -> float:
    """A coefficient by its dotted name, e.g. 'gemm.eta_max'."""

def measurements_from_json(records: typing.Any, origin: str = '<records>') -> MeasurementSet:
    """Records from a list of dicts (or {'schema': ..., 'records': [...]}); ParseError names the record and field."""

def measurements_from_json_text(text: str, origin: str = '<text>') -> MeasurementSet: ...

def read_calibration_file(path: str, hardware: spec.HardwareProfile) -> CalibrationFile:
    """A calibration file (either form), or a shipped one by name (e.g. 'derived-b300-qwen3-32b'). ParseError names the
    file and field, including a hardware mismatch and a libscale.calibration/1 file (one efficiency for every FLOP:
    refit it).
    """

def read_measurements(path: str) -> MeasurementSet:
    """A libscale.measurements/2 (or /1) JSON file; v1 GEMM-chain records are refused with a message."""

def set_parameter(calibration: Calibration, name: str, value: float) -> None:
    """Set a coefficient by its dotted name, in place (not validated: call validate())."""

def validate(
    paths: collections.abc.Sequence[str] | None = None,
    options: FitOptions = ...,
) -> ValidationReport:
    """Calibrate each series of published step timings on its first row and predict the rest; paths None: the shipped
    series (calibration/data/measurements).
    """

def write_calibration_file(path: str, file: CalibrationFile) -> None:
    """Write atomically (temporary file, then rename)."""

def write_fit_calibration(path: str, fit: FitResult, provenance: typing.Any = {}) -> None:
    """Write the fitted calibration file atomically (temporary file, then rename)."""
