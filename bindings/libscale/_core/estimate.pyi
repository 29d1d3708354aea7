"""The compute laws, the step and memory model, projections over GPU counts, the deadline and budget solvers, vectorized
sweeps and projection quantiles.
"""

from __future__ import annotations

import collections.abc
import typing

import numpy
import numpy.typing

from . import Progress, _Pybind11Type, calibrate, spec

class ComputeTimes(metaclass=_Pybind11Type):
    """Compute time of one micro-batch per GPU, by part (compute_times())."""
    _fields: typing.ClassVar[tuple[str, ...]]

    @property
    def layers(self) -> float:
        """decoder layers, L"""

    @property
    def layer_forward_s(self) -> float:
        """one decoder layer"""

    @property
    def layer_backward_s(self) -> float:
        """one decoder layer, with what activation checkpointing recomputes"""

    @property
    def head_forward_s(self) -> float:
        """final norm, output projection, loss"""

    @property
    def head_backward_s(self) -> float: ...

    @property
    def embed_forward_s(self) -> float: ...

    @property
    def embed_backward_s(self) -> float: ...

    @property
    def gemm_s(self) -> float:
        """device time in GEMMs (all layers, head, embedding)"""

    @property
    def attention_s(self) -> float:
        """device time in fused attention"""

    @property
    def memory_s(self) -> float:
        """device time in memory-bound kernels"""

    @property
    def fsdp_copy_s(self) -> float:
        """of memory_s: FSDP2's copies on the compute stream (casts, copy-out, chunk_cat)"""

    @property
    def loss_s(self) -> float:
        """of memory_s: the loss over the vocabulary"""

    @property
    def host_wait_s(self) -> float:
        """time the GPU waits on the host"""

    @property
    def micro_batch_s(self) -> float:
        """L·(layer forward + backward) + head + embedding"""

    def __init__(self, *args: typing.Never, **kwargs: typing.Never) -> None:
        """No constructor: made by the core only (TypeError)."""

    def to_dict(self) -> dict[str, typing.Any]:
        """The fields in declaration order, then derived properties; nested structs as dicts."""

    def __repr__(self) -> str: ...

    def __copy__(self) -> ComputeTimes: ...

    def __deepcopy__(self, memo: dict[int, typing.Any]) -> ComputeTimes: ...

class MemoryBreakdown(metaclass=_Pybind11Type):
    """Memory per GPU, GiB."""
    _fields: typing.ClassVar[tuple[str, ...]]

    @property
    def weights_gib(self) -> float:
        """at the peak: sharded weights (FSDP: the master weights)"""

    @property
    def grads_gib(self) -> float:
        """at the peak: gradients alive (none before backward)"""

    @property
    def optimizer_gib(self) -> float:
        """at the peak: optimizer states (DDP, ZeRO: with fp32 masters)"""

    @property
    def activations_gib(self) -> float:
        """at the peak: saved for backward, a recomputed layer, backward's working set"""

    @property
    def logits_gib(self) -> float:
        """at the peak: logits and what the loss makes of them"""

    @property
    def buffers_gib(self) -> float:
        """at the peak: unsharded parameters and gradients, reduction buffers"""

    @property
    def peak_phase(self) -> str:
        """the phase whose live tensors are the peak: 'forward', 'loss', 'backward', 'reduction' or 'optimizer'"""

    @property
    def phase_gib(self) -> dict[str, float]:
        """allocated in each phase of the step (the peak is their maximum), GiB"""

    @property
    def fragmentation_gib(self) -> float:
        """the caching allocator's reserved-but-unallocated share"""

    @property
    def reserved_gib(self) -> float:
        """CUDA context, workspaces, NCCL"""

    @property
    def allocated_gib(self) -> float:
        """what torch.cuda.max_memory_allocated counts: the tensors"""

    @property
    def allocator_reserved_gib(self) -> float:
        """what torch.cuda.max_memory_reserved counts: allocated plus fragmentation"""

    @property
    def total_gib(self) -> float: ...

    @property
    def available_gib(self) -> float:
        """the GPU's HBM"""

    @property
    def margin(self) -> float:
        """relative uncertainty of total_gib"""

    @property
    def status(self) -> str:
        """'fits' (with the margin), 'uncertain' (the limit lies within the margin) or 'does_not_fit'"""

    @property
    def fits(self) -> bool:
        """status == 'fits' ('uncertain' is not fitting)"""

    def __init__(self, *args: typing.Never, **kwargs: typing.Never) -> None:
        """No constructor: made by the core only (TypeError)."""

    def to_dict(self) -> dict[str, typing.Any]:
        """The fields in declaration order, then derived properties; nested structs as dicts."""

    def __repr__(self) -> str: ...

    def __copy__(self) -> MemoryBreakdown: ...

    def __deepcopy__(self, memo: dict[int, typing.Any]) -> MemoryBreakdown: ...

class StepBreakdown(metaclass=_Pybind11Type):
    """One optimizer step: time per phase, throughput, memory."""
    _fields: typing.ClassVar[tuple[str, ...]]

    @property
    def gpus(self) -> int: ...

    @property
    def gpus_per_node(self) -> int: ...

    @property
    def nodes(self) -> int:
        """nodes the GPUs span (the last may be partial)"""

    @property
    def grad_accum(self) -> int:
        """micro-batches per step"""

    @property
    def tokens_per_micro_batch(self) -> float:
        """per GPU"""

    @property
    def tokens_per_step(self) -> float:
        """global batch, tokens"""

    @property
    def compute_s(self) -> float:
        """all GPU compute: gemm_s + attention_s + memory_bound_s + host_wait_s"""

    @property
    def gemm_s(self) -> float:
        """of compute_s: GEMMs"""

    @property
    def attention_s(self) -> float:
        """of compute_s: fused attention"""

    @property
    def memory_bound_s(self) -> float:
        """of compute_s: memory-bound kernels"""

    @property
    def host_wait_s(self) -> float:
        """of compute_s: the GPU waiting on the host"""

    @property
    def comm_s(self) -> float:
        """all collectives, hidden or not"""

    @property
    def exposed_comm_s(self) -> float:
        """collective time not hidden under compute"""

    @property
    def optimizer_s(self) -> float: ...

    @property
    def data_s(self) -> float:
        """input pipeline time not hidden by prefetch"""

    @property
    def checkpoint_s(self) -> float:
        """checkpoint write, amortized per step"""

    @property
    def step_time_s(self) -> float: ...

    @property
    def tokens_per_s(self) -> float: ...

    @property
    def tokens_per_s_per_gpu(self) -> float: ...

    @property
    def mfu(self) -> float:
        """model FLOPs utilization, fraction"""

    @property
    def hfu(self) -> float:
        """hardware FLOPs utilization, fraction"""

    @property
    def comm_hidden(self) -> bool:
        """every unit's communication fits under its compute"""

    @property
    def energy_per_step_j(self) -> float:
        """all GPUs, J"""

    @property
    def memory(self) -> MemoryBreakdown: ...

    @property
    def memory_gib(self) -> float:
        """memory.total_gib"""

    def __init__(self, *args: typing.Never, **kwargs: typing.Never) -> None:
        """No constructor: made by the core only (TypeError)."""

    def to_dict(self) -> dict[str, typing.Any]:
        """The fields in declaration order, then derived properties; nested structs as dicts."""

    def __repr__(self) -> str: ...

    def __copy__(self) -> StepBreakdown: ...

    def __deepcopy__(self, memo: dict[int, typing.Any]) -> StepBreakdown: ...

class Job(metaclass=_Pybind11Type):
    """The training job: tokens per epoch, epochs, price."""
    _fields: typing.ClassVar[tuple[str, ...]]
    tokens: float
    epochs: float
    price_per_gpu_hour_usd: float | None
    _options_group: typing.ClassVar[str]

    def __init__(
        self,
        *,
        tokens: float = 1000000000.0,
        epochs: float = 1.0,
        price_per_gpu_hour_usd: float | None = None,
    ) -> None:
        """Every option by keyword, each checked by the core."""

    def to_dict(self) -> dict[str, typing.Any]:
        """The options in table order (None: not set), then nested structs as dicts, then derived properties."""

    def __repr__(self) -> str: ...

    def __copy__(self) -> Job: ...

    def __deepcopy__(self, memo: dict[int, typing.Any]) -> Job: ...

    def validate(self) -> None:
        """Raise ValueError naming the first invalid field."""

class ProjectionRow(metaclass=_Pybind11Type):
    """One GPU count of a projection."""
    _fields: typing.ClassVar[tuple[str, ...]]

    @property
    def step(self) -> StepBreakdown: ...

    @property
    def speedup(self) -> float:
        """tokens/s over the smallest count's"""

    @property
    def scaling_efficiency(self) -> float:
        """speedup / (gpus / smallest gpus)"""

    @property
    def steps(self) -> float:
        """optimizer steps for the job"""

    @property
    def wall_time_h(self) -> float:
        """total tokens / tokens per second"""

    @property
    def gpu_hours(self) -> float:
        """gpus × wall hours"""

    @property
    def cost_usd(self) -> float: ...

    @property
    def energy_kwh(self) -> float: ...

    @property
    def fit_suggestion(self) -> str:
        """what would make it fit when step.memory.status is not 'fits' ('' otherwise)"""

    @property
    def fits(self) -> bool:
        """step.memory.fits: the status is 'fits' ('uncertain' is not fitting)"""

    @property
    def fit_status(self) -> str:
        """step.memory.status: 'fits', 'uncertain' or 'does_not_fit'"""

    @property
    def needed_gib(self) -> float:
        """step.memory.total_gib"""

    @property
    def available_gib(self) -> float:
        """step.memory.available_gib"""

    def __init__(self, *args: typing.Never, **kwargs: typing.Never) -> None:
        """No constructor: made by the core only (TypeError)."""

    def to_dict(self) -> dict[str, typing.Any]:
        """The fields in declaration order, then derived properties; nested structs as dicts."""

    def __repr__(self) -> str: ...

    def __copy__(self) -> ProjectionRow: ...

    def __deepcopy__(self, memo: dict[int, typing.Any]) -> ProjectionRow: ...

class FitChange(metaclass=_Pybind11Type):
    """One change that makes a configuration fit in GPU memory."""
    _fields: typing.ClassVar[tuple[str, ...]]

    @property
    def change(self) -> str:
        """the change in the API's keyword spelling"""

    @property
    def config(self) -> spec.TrainingConfig:
        """the configuration with the change"""

    @property
    def memory_gib(self) -> float:
        """the memory estimate with the change (total_gib)"""

    @property
    def step_time_s(self) -> float: ...

    @property
    def tokens_per_s_per_gpu(self) -> float: ...

    @property
    def gpu_hours_ratio(self) -> float:
        """GPU-hours for the same tokens relative to the configuration as given"""

    @property
    def caveat(self) -> str:
        """what else the change alters ('' when only time and memory)"""

    def __init__(self, *args: typing.Never, **kwargs: typing.Never) -> None:
        """No constructor: made by the core only (TypeError)."""

    def to_dict(self) -> dict[str, typing.Any]:
        """The fields in declaration order, then derived properties; nested structs as dicts."""

    def __repr__(self) -> str: ...

    def __copy__(self) -> FitChange: ...

    def __deepcopy__(self, memo: dict[int, typing.Any]) -> FitChange: ...

class FitAdvice(metaclass=_Pybind11Type):
    """What would make a configuration fit, and how far it can grow."""
    _fields: typing.ClassVar[tuple[str, ...]]

    @property
    def step(self) -> StepBreakdown:
        """the configuration as given"""

    @property
    def changes(self) -> list[FitChange]:
        """each alone makes it fit; cheapest first"""

    @property
    def max_micro_batch(self) -> int:
        """largest micro-batch that fits, every other option as given (0: none)"""

    @property
    def max_seq_len(self) -> int:
        """largest sequence length that fits, up to max_position_embeddings (0: none)"""

    def __init__(self, *args: typing.Never, **kwargs: typing.Never) -> None:
        """No constructor: made by the core only (TypeError)."""

    def to_dict(self) -> dict[str, typing.Any]:
        """The fields in declaration order, then derived properties; nested structs as dicts."""

    def __repr__(self) -> str: ...

    def __copy__(self) -> FitAdvice: ...

    def __deepcopy__(self, memo: dict[int, typing.Any]) -> FitAdvice: ...

class Projection(metaclass=_Pybind11Type):
    """A projection over GPU counts (rows in ascending GPU count)."""
    _fields: typing.ClassVar[tuple[str, ...]]

    @property
    def scaling(self) -> str:
        """'strong' or 'weak'"""

    @property
    def job(self) -> Job: ...

    @property
    def price_per_gpu_hour_usd(self) -> float:
        """as applied"""

    @property
    def rows(self) -> list[ProjectionRow]:
        """ascending GPU count"""

    @property
    def comm_exposed_from_gpus(self) -> int | None:
        """smallest GPU count at which communication stops hiding under compute, or None"""

    def __init__(self, *args: typing.Never, **kwargs: typing.Never) -> None:
        """No constructor: made by the core only (TypeError)."""

    def to_dict(self) -> dict[str, typing.Any]:
        """The fields in declaration order, then derived properties; nested structs as dicts."""

    def __repr__(self) -> str: ...

    def __copy__(self) -> Projection: ...

    def __deepcopy__(self, memo: dict[int, typing.Any]) -> Projection: ...

class Solution(metaclass=_Pybind11Type):
    """The answer of solve_deadline / solve_budget."""
    _fields: typing.ClassVar[tuple[str, ...]]

    @property
    def found(self) -> bool: ...

    @property
    def row(self) -> ProjectionRow | None:
        """the chosen GPU count's row, or None when nothing meets the target"""

    @property
    def candidates(self) -> list[ProjectionRow]:
        """every valid count evaluated, fitting or not (the chosen row fits)"""

    def __init__(self, *args: typing.Never, **kwargs: typing.Never) -> None:
        """No constructor: made by the core only (TypeError)."""

    def to_dict(self) -> dict[str, typing.Any]:
        """The fields in declaration order, then derived properties; nested structs as dicts."""

    def __repr__(self) -> str: ...

    def __copy__(self) -> Solution: ...

    def __deepcopy__(self, memo: dict[int, typing.Any]) -> Solution: ...

class Quantiles(metaclass=_Pybind11Type):
    """P10 / P50 / P90 of one projected figure."""
    _fields: typing.ClassVar[tuple[str, ...]]

    @property
    def p10(self) -> float: ...

    @property
    def p50(self) -> float: ...

    @property
    def p90(self) -> float: ...

    def __init__(self, *args: typing.Never, **kwargs: typing.Never) -> None:
        """No constructor: made by the core only (TypeError)."""

    def to_dict(self) -> dict[str, typing.Any]:
        """The fields in declaration order, then derived properties; nested structs as dicts."""

    def __repr__(self) -> str: ...

class RowQuantiles(metaclass=_Pybind11Type):
    """The quantiles of one GPU count's projected figures."""
    _fields: typing.ClassVar[tuple[str, ...]]

    @property
    def gpus(self) -> int: ...

    @property
    def step_time_s(self) -> Quantiles: ...

    @property
    def tokens_per_s(self) -> Quantiles: ...

    @property
    def tokens_per_s_per_gpu(self) -> Quantiles: ...

    @property
    def wall_time_h(self) -> Quantiles: ...

    @property
    def gpu_hours(self) -> Quantiles: ...

    @property
    def cost_usd(self) -> Quantiles: ...

    @property
    def energy_kwh(self) -> Quantiles: ...

    def __init__(self, *args: typing.Never, **kwargs: typing.Never) -> None:
        """No constructor: made by the core only (TypeError)."""

    def to_dict(self) -> dict[str, typing.Any]:
        """The fields in declaration order, then derived properties; nested structs as dicts."""

    def __repr__(self) -> str: ...

class UncertaintyOptions(metaclass=_Pybind11Type):
    """Sampling options of projection_quantiles."""
    _fields: typing.ClassVar[tuple[str, ...]]
    samples: int
    seed: int

    def __init__(self, *, samples: int = 2000, seed: int = 379422) -> None:
        """Every field by keyword."""

    def to_dict(self) -> dict[str, typing.Any]:
        """The fields in declaration order, then derived properties; nested structs as dicts."""

    def __repr__(self) -> str: ...

class Scenario(metaclass=_Pybind11Type):
    """A model on a hardware profile, with a calibration file and a training configuration: what every estimate is of.
    """
    _fields: typing.ClassVar[tuple[str, ...]]
    model: spec.ModelSpec
    hardware: spec.HardwareProfile
    calibration: calibrate.CalibrationFile
    config: spec.TrainingConfig

    def __init__(
        self,
        *,
        model: spec.ModelSpec,
        hardware: spec.HardwareProfile,
        calibration: calibrate.CalibrationFile,
        config: spec.TrainingConfig,
    ) -> None: ...

    def copy(self) -> Scenario:
        """A copy."""

    def validate(self) -> None:
        """Raise ValueError for the first invalid part: model, hardware, calibration (and that it was made for this
        hardware), configuration.
        """

def attention_time_s(
    hardware: spec.HardwareProfile,
    calibration: calibrate.Calibration | None,
    tokens: float,
    width: float,
    head_dim: float,
    span: float,
    seq_len: float,
    backward: bool = False,
    kernel: str = 'flash2',
) -> float:
    """Time of one fused attention kernel: `tokens` queries of width heads × head_dim attending `span` keys on average,
    in sequences of seq_len (causal: span = seq_len / 2).
    """

def check_config(model: spec.ModelSpec, hardware: spec.HardwareProfile, config: spec.TrainingConfig) -> int:
    """The configuration's issue code (0: none; describe_issue(code) says what it means)."""

def compute_times(
    model: spec.ModelSpec,
    hardware: spec.HardwareProfile,
    calibration: calibrate.Calibration | None,
    config: spec.TrainingConfig,
) -> ComputeTimes:
    """Compute time of one micro-batch (config.micro_batch × seq_len tokens per GPU), by part."""

def describe_issue(code: int) -> str:
    """What a sweep's issue code means ('ok' for 0)."""

@typing.overload
def estimate_step(
    model: spec.ModelSpec,
    hardware: spec.HardwareProfile,
    calibration: calibrate.Calibration | None,
    config: spec.TrainingConfig,
) -> StepBreakdown:
    """Validate everything, then estimate one step. Does not raise when the model does not fit (memory.fits says so; see
    require_fit). calibration None: default_calibration(hardware).
    """

@typing.overload
def estimate_step(scenario: Scenario) -> StepBreakdown:
    """One optimizer step of the scenario (validates everything; does not raise when it does not fit)."""

def fit_advice(scenario: Scenario) -> FitAdvice:
    """What would make the scenario fit (each change with its GPU-hour cost, cheapest first) and the largest micro-batch
    and sequence length that fit.
    """

def fit_advice_text(advice: FitAdvice, max_changes: int = 4) -> str:
    """The advice as a sentence ('' when there is no change)."""

@typing.overload
def fit_suggestion(
    model: spec.ModelSpec,
    hardware: spec.HardwareProfile,
    calibration: calibrate.Calibration | None,
    config: spec.TrainingConfig,
) -> str:
    """What would make a non-fitting configuration fit ('' if nothing)."""

@typing.overload
def fit_suggestion(scenario: Scenario) -> str:
    """What would make a non-fitting scenario fit ('' if nothing found)."""

def gemm_time_s(
    hardware: spec.HardwareProfile,
    calibration: calibrate.Calibration | None,
    m: float,
    n: float,
    k: float,
    fp8: bool = False,
) -> float:
    """Time of one GEMM C[m×n] = A[m×k]·B[k×n] by the calibration's GEMM law (waves of tiles, bounded below by HBM
    traffic). fp8 falls back to bf16 where the GPU or the calibration has no fp8.
    """

def issue_name(code: int) -> str:
    """Short name of a sweep issue code ('none' for 0)."""

def memory_time_s(
    hardware: spec.HardwareProfile,
    calibration: calibrate.Calibration | None,
    bytes: float,
) -> float:
    """Time of a memory-bound kernel moving `bytes` (reads plus writes) over HBM."""

def optimizer_bytes_per_parameter(model: spec.ModelSpec, config: spec.TrainingConfig) -> float:
    """Bytes per parameter the optimizer holds beyond the bf16 weights and gradients (fp32 masters, states)."""

def optimizer_step_s(
    model: spec.ModelSpec,
    hardware: spec.HardwareProfile,
    calibration: calibrate.Calibration | None,
    config: spec.TrainingConfig,
) -> float:
    """The optimizer's step over the local shard, s (bytes over HBM)."""

def project(
    scenario: Scenario,
    gpus: collections.abc.Sequence[int],
    scaling: str = 'strong',
    job: Job = ...,
) -> Projection:
    """Project over GPU counts. Strong scaling keeps config.global_batch_tokens (0: the smallest count with no
    accumulation); weak keeps the per-GPU batch. A count that does not fit is projected all the same: its row's
    step.memory says so and fit_suggestion says what would fit.
    """

def projection_configs(
    config: spec.TrainingConfig,
    gpus: collections.abc.Sequence[int],
    scaling: str = 'strong',
) -> list[spec.TrainingConfig]:
    """The configuration project() evaluates at each count (ascending, duplicates removed)."""

def projection_quantiles(
    scenario: Scenario,
    gpus: collections.abc.Sequence[int],
    scaling: str = 'strong',
    job: Job = ...,
    options: UncertaintyOptions = ...,
) -> list[RowQuantiles]:
    """P10 / P50 / P90 of each projected figure per GPU count, drawn from the calibration's covariance."""

@typing.overload
def require_fit(
    model: spec.ModelSpec,
    hardware: spec.HardwareProfile,
    calibration: calibrate.Calibration | None,
    config: spec.TrainingConfig,
    step: StepBreakdown,
) -> None:
    """Raise DoesNotFitError (needed vs available GiB and what would fit) when step.memory.fits is false."""

@typing.overload
def require_fit(scenario: Scenario, step: StepBreakdown) -> None:
    """Raise DoesNotFitError (needed vs available GiB, what would fit) when the step does not fit."""

def solve_budget(
    scenario: Scenario,
    gpus: collections.abc.Sequence[int],
    scaling: str,
    job: Job,
    max_gpu_hours: float,
    max_cost_usd: float,
) -> Solution:
    """The fastest GPU count within the caps (NaN: no cap)."""

def solve_deadline(
    scenario: Scenario,
    gpus: collections.abc.Sequence[int],
    scaling: str,
    job: Job,
    deadline_h: float,
) -> Solution:
    """The cheapest GPU count whose wall time meets deadline_h."""

def sweep(
    scenario: Scenario,
    *,
    gpus: typing.Annotated[numpy.typing.ArrayLike, numpy.int64] | None = None,
    gpus_per_node: typing.Annotated[numpy.typing.ArrayLike, numpy.int64] | None = None,
    micro_batch: typing.Annotated[numpy.typing.ArrayLike, numpy.int64] | None = None,
    seq_len: typing.Annotated[numpy.typing.ArrayLike, numpy.int64] | None = None,
    global_batch_tokens: typing.Annotated[numpy.typing.ArrayLike, numpy.int64] | None = None,
    threads: int = 0,
    progress: Progress | None = None,
) -> dict[str, typing.Any]:
    """Estimate one step per element of the given int64 arrays (one common shape; None: the scenario config's value).
    Returns a dict of numpy arrays of that shape: step_time_s, tokens_per_s, tokens_per_s_per_gpu, mfu, hfu, compute_s,
    comm_s, exposed_comm_s, memory_gib (float64, NaN where invalid), grad_accum (int64), fits (bool), issue (uint8 code,
    0: valid; see describe_issue). Invalid configurations are flagged, not raised. threads 0: one per core for large
    sweeps. progress counts elements.
    """

def validate_calibration_for(calibration: calibrate.Calibration, config: spec.TrainingConfig) -> None:
    """Raise ValueError when the configuration needs what the calibration lacks (fp8 GEMM coefficients)."""

def validate_config(
    model: spec.ModelSpec,
    hardware: spec.HardwareProfile,
    config: spec.TrainingConfig,
) -> None:
    """Raise ValueError naming the field, its value and what would be valid."""
ISSUE_COUNT: int
