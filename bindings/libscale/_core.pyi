"""Type stubs for libscale._core, the compiled C++ core (see bindings/src)."""

from typing import Any, Optional, Sequence

import numpy as np
import numpy.typing as npt

__version__: str
ISSUE_COUNT: int

# --- errors (errors.cpp) -------------------------------------------------------------

class LibscaleError(ValueError): ...

class UnknownNameError(LibscaleError):
    suggestions: tuple[str, ...]

class DoesNotFitError(LibscaleError):
    needed_gib: Optional[float]
    available_gib: Optional[float]

class ParseError(LibscaleError): ...

# --- model (model.cpp) ---------------------------------------------------------------

class ModelSpec:
    name: str
    hidden_size: int
    intermediate_size: int
    num_layers: int
    num_heads: int
    num_kv_heads: int
    head_dim: int
    vocab_size: int
    max_position_embeddings: int
    tie_word_embeddings: bool
    qk_norm: bool
    gated_mlp: bool
    qkv_bias: bool
    o_bias: bool
    mlp_bias: bool
    source: str
    def __init__(
        self,
        *,
        name: str = "",
        hidden_size: int = 0,
        intermediate_size: int = 0,
        num_layers: int = 0,
        num_heads: int = 0,
        num_kv_heads: int = 0,
        head_dim: int = 0,
        vocab_size: int = 0,
        max_position_embeddings: int = 0,
        tie_word_embeddings: bool = False,
        qk_norm: bool = False,
        gated_mlp: bool = True,
        qkv_bias: bool = False,
        o_bias: bool = False,
        mlp_bias: bool = False,
        source: str = "",
    ) -> None: ...
    def validate(self) -> None: ...
    @property
    def parameters(self) -> int: ...
    def to_dict(self) -> dict[str, Any]: ...
    def __copy__(self) -> "ModelSpec": ...
    def __deepcopy__(self, memo: dict) -> "ModelSpec": ...

class ParameterCounts:
    @property
    def embedding(self) -> int: ...
    @property
    def lm_head(self) -> int: ...
    @property
    def final_norm(self) -> int: ...
    @property
    def q_proj(self) -> int: ...
    @property
    def k_proj(self) -> int: ...
    @property
    def v_proj(self) -> int: ...
    @property
    def o_proj(self) -> int: ...
    @property
    def qk_norm(self) -> int: ...
    @property
    def mlp(self) -> int: ...
    @property
    def layer_norms(self) -> int: ...
    @property
    def per_layer(self) -> int: ...
    @property
    def per_layer_matmul(self) -> int: ...
    @property
    def layers(self) -> int: ...
    @property
    def total(self) -> int: ...
    @property
    def non_embedding(self) -> int: ...
    @property
    def root_unit(self) -> int: ...
    @property
    def matmul_forward(self) -> int: ...
    def to_dict(self) -> dict[str, Any]: ...

class FlopsPerToken:
    @property
    def matmul_forward(self) -> float: ...
    @property
    def attention_forward(self) -> float: ...
    @property
    def forward(self) -> float: ...
    @property
    def backward(self) -> float: ...
    @property
    def recompute(self) -> float: ...
    @property
    def model(self) -> float: ...
    @property
    def hardware(self) -> float: ...
    def to_dict(self) -> dict[str, Any]: ...

def count_parameters(model: ModelSpec) -> ParameterCounts: ...
def causal_attention_span(seq_len: int) -> float: ...
def packed_attention_span(document_lengths: npt.ArrayLike) -> float: ...
def flops_per_token(
    model: ModelSpec, attention_span_tokens: float, *, activation_checkpointing: str = "full"
) -> FlopsPerToken: ...

# --- hardware (hardware.cpp) ---------------------------------------------------------

class HardwareProfile:
    name: str
    display_name: str
    peak_bf16_tflops: float
    hbm_gib: float
    hbm_tbps: float
    nvlink_gbps_bidir: float
    nic_gbps_per_gpu: float
    gpus_per_node: int
    board_power_w: float
    idle_power_w: Optional[float]
    price_per_gpu_hour_usd: float
    source: str
    def __init__(
        self,
        *,
        name: str = "",
        display_name: str = "",
        peak_bf16_tflops: float = 0.0,
        hbm_gib: float = 0.0,
        hbm_tbps: float = 0.0,
        nvlink_gbps_bidir: float = 0.0,
        nic_gbps_per_gpu: float = 0.0,
        gpus_per_node: int = 8,
        board_power_w: float = 0.0,
        idle_power_w: Optional[float] = None,
        price_per_gpu_hour_usd: float = 0.0,
        source: str = "",
    ) -> None: ...
    def validate(self) -> None: ...
    @property
    def peak_flops(self) -> float: ...
    @property
    def nvlink_bytes_per_s_unidir(self) -> float: ...
    @property
    def nic_bytes_per_s(self) -> float: ...
    @property
    def hbm_bytes_per_s(self) -> float: ...
    def to_dict(self) -> dict[str, Any]: ...
    def __copy__(self) -> "HardwareProfile": ...
    def __deepcopy__(self, memo: dict) -> "HardwareProfile": ...

class LinkLevel:
    alpha_s: float
    busbw_bytes_per_s: float
    def __init__(self, *, alpha_s: float = 0.0, busbw_bytes_per_s: float = 0.0) -> None: ...
    def to_dict(self) -> dict[str, Any]: ...

class Calibration:
    hardware: str
    kind: str
    source: str
    eta_max: float
    half_saturation_tokens: float
    intra_node: LinkLevel
    inter_node: LinkLevel
    hbm_efficiency: float
    reserved_gib: float
    power_compute_w: float
    power_comm_w: float
    power_idle_w: float
    def __init__(
        self,
        *,
        hardware: str = "",
        kind: str = "default",
        source: str = "",
        eta_max: float = 0.0,
        half_saturation_tokens: float = 0.0,
        intra_node: LinkLevel = ...,
        inter_node: LinkLevel = ...,
        hbm_efficiency: float = 0.0,
        reserved_gib: float = 0.0,
        power_compute_w: float = 0.0,
        power_comm_w: float = 0.0,
        power_idle_w: float = 0.0,
    ) -> None: ...
    def validate(self) -> None: ...
    def eta(self, tokens_per_micro_batch: float) -> float: ...
    def to_dict(self) -> dict[str, Any]: ...
    def __copy__(self) -> "Calibration": ...
    def __deepcopy__(self, memo: dict) -> "Calibration": ...

def default_calibration(hardware: HardwareProfile) -> Calibration: ...

# --- catalog (catalog.cpp) -----------------------------------------------------------

def model_names() -> list[str]: ...
def hardware_names() -> list[str]: ...
def find_model(name_or_path: str) -> ModelSpec: ...
def find_hardware(name_or_path: str) -> HardwareProfile: ...
def catalog_file(relative_path: str) -> str: ...
def catalog_files() -> list[str]: ...

# --- step model (step.cpp) -----------------------------------------------------------

class DataPipeline:
    pretokenized: bool
    bytes_per_token: float
    corpus_in_page_cache: bool
    storage_read_gbps_per_node: float
    tokenize_tokens_per_s_per_core: float
    loader_workers_per_rank: int
    cpu_cores_per_node: int
    def __init__(
        self,
        *,
        pretokenized: bool = True,
        bytes_per_token: float = 4.0,
        corpus_in_page_cache: bool = True,
        storage_read_gbps_per_node: float = 0.0,
        tokenize_tokens_per_s_per_core: float = 0.0,
        loader_workers_per_rank: int = 2,
        cpu_cores_per_node: int = 0,
    ) -> None: ...
    def to_dict(self) -> dict[str, Any]: ...

class CheckpointPolicy:
    every_steps: int
    write_gbps_per_node: float
    def __init__(self, *, every_steps: int = 0, write_gbps_per_node: float = 0.0) -> None: ...
    def to_dict(self) -> dict[str, Any]: ...

class TrainingConfig:
    gpus: int
    gpus_per_node: int
    seq_len: int
    micro_batch: int
    global_batch_tokens: int
    strategy: str
    activation_checkpointing: str
    reshard_after_forward: bool
    reduce_dtype: str
    reduce_bytes: int
    grad_sync: str
    attention_span_tokens: float
    data: DataPipeline
    checkpoint: CheckpointPolicy
    def __init__(
        self,
        *,
        gpus: int = 8,
        gpus_per_node: int = 0,
        seq_len: int = 4096,
        micro_batch: int = 1,
        global_batch_tokens: int = 0,
        strategy: str = "fsdp",
        activation_checkpointing: str = "full",
        reshard_after_forward: bool = True,
        reduce_dtype: str = "bf16",
        grad_sync: str = "every_micro_batch",
        attention_span_tokens: float = 0.0,
        data: DataPipeline = ...,
        checkpoint: CheckpointPolicy = ...,
    ) -> None: ...
    def to_dict(self) -> dict[str, Any]: ...
    def __copy__(self) -> "TrainingConfig": ...
    def __deepcopy__(self, memo: dict) -> "TrainingConfig": ...

class MemoryBreakdown:
    @property
    def weights_gib(self) -> float: ...
    @property
    def grads_gib(self) -> float: ...
    @property
    def optimizer_gib(self) -> float: ...
    @property
    def activations_gib(self) -> float: ...
    @property
    def logits_gib(self) -> float: ...
    @property
    def buffers_gib(self) -> float: ...
    @property
    def reserved_gib(self) -> float: ...
    @property
    def total_gib(self) -> float: ...
    @property
    def available_gib(self) -> float: ...
    @property
    def fits(self) -> bool: ...
    def to_dict(self) -> dict[str, Any]: ...

class StepBreakdown:
    @property
    def gpus(self) -> int: ...
    @property
    def gpus_per_node(self) -> int: ...
    @property
    def nodes(self) -> int: ...
    @property
    def grad_accum(self) -> int: ...
    @property
    def tokens_per_micro_batch(self) -> float: ...
    @property
    def tokens_per_step(self) -> float: ...
    @property
    def eta(self) -> float: ...
    @property
    def compute_s(self) -> float: ...
    @property
    def comm_s(self) -> float: ...
    @property
    def exposed_comm_s(self) -> float: ...
    @property
    def optimizer_s(self) -> float: ...
    @property
    def data_s(self) -> float: ...
    @property
    def checkpoint_s(self) -> float: ...
    @property
    def step_time_s(self) -> float: ...
    @property
    def tokens_per_s(self) -> float: ...
    @property
    def tokens_per_s_per_gpu(self) -> float: ...
    @property
    def mfu(self) -> float: ...
    @property
    def hfu(self) -> float: ...
    @property
    def comm_hidden(self) -> bool: ...
    @property
    def energy_per_step_j(self) -> float: ...
    @property
    def memory(self) -> MemoryBreakdown: ...
    @property
    def memory_gib(self) -> float: ...
    def to_dict(self) -> dict[str, Any]: ...
    def _repr_html_(self) -> str: ...

def estimate_step(
    model: ModelSpec, hardware: HardwareProfile, config: TrainingConfig, *, calibration: Optional[Calibration] = None
) -> StepBreakdown: ...
def require_fit(
    model: ModelSpec,
    hardware: HardwareProfile,
    config: TrainingConfig,
    step: StepBreakdown,
    *,
    calibration: Optional[Calibration] = None,
) -> None: ...
def fit_suggestion(
    model: ModelSpec, hardware: HardwareProfile, config: TrainingConfig, *, calibration: Optional[Calibration] = None
) -> str: ...
def validate_config(model: ModelSpec, hardware: HardwareProfile, config: TrainingConfig) -> None: ...
def check_config(model: ModelSpec, hardware: HardwareProfile, config: TrainingConfig) -> int: ...

# --- projection (projection.cpp) -----------------------------------------------------

class Job:
    tokens: float
    epochs: float
    price_per_gpu_hour_usd: Optional[float]
    def __init__(
        self, *, tokens: float = 1e9, epochs: float = 1.0, price_per_gpu_hour_usd: Optional[float] = None
    ) -> None: ...
    def validate(self) -> None: ...
    def to_dict(self) -> dict[str, Any]: ...

class ProjectionRow:
    @property
    def step(self) -> StepBreakdown: ...
    @property
    def speedup(self) -> float: ...
    @property
    def scaling_efficiency(self) -> float: ...
    @property
    def steps(self) -> float: ...
    @property
    def wall_time_h(self) -> float: ...
    @property
    def gpu_hours(self) -> float: ...
    @property
    def cost_usd(self) -> float: ...
    @property
    def energy_kwh(self) -> float: ...
    def to_dict(self) -> dict[str, Any]: ...

class Projection:
    # Set by libscale.project: model, hardware, calibration, config, gpus_requested.
    model: ModelSpec
    hardware: HardwareProfile
    calibration: Calibration
    config: TrainingConfig
    gpus_requested: list[int]
    @property
    def scaling(self) -> str: ...
    @property
    def job(self) -> Job: ...
    @property
    def price_per_gpu_hour_usd(self) -> float: ...
    @property
    def rows(self) -> list[ProjectionRow]: ...
    @property
    def comm_exposed_from_gpus(self) -> Optional[int]: ...
    def to_dict(self) -> dict[str, Any]: ...
    def to_pandas(self) -> Any: ...
    def _repr_html_(self) -> str: ...

class Solution:
    # Set by libscale.solve_deadline / solve_budget, as on Projection, plus job, scaling, target.
    model: ModelSpec
    hardware: HardwareProfile
    calibration: Calibration
    config: TrainingConfig
    @property
    def found(self) -> bool: ...
    @property
    def row(self) -> Optional[ProjectionRow]: ...
    @property
    def candidates(self) -> list[ProjectionRow]: ...
    def to_dict(self) -> dict[str, Any]: ...
    def to_pandas(self) -> Any: ...
    def _repr_html_(self) -> str: ...

def project(
    model: ModelSpec,
    hardware: HardwareProfile,
    config: TrainingConfig,
    gpus: Sequence[int],
    *,
    scaling: str = "strong",
    job: Job = ...,
    calibration: Optional[Calibration] = None,
) -> Projection: ...
def solve_deadline(
    model: ModelSpec,
    hardware: HardwareProfile,
    config: TrainingConfig,
    gpus: Sequence[int],
    *,
    deadline_h: float,
    scaling: str = "strong",
    job: Job = ...,
    calibration: Optional[Calibration] = None,
) -> Solution: ...
def solve_budget(
    model: ModelSpec,
    hardware: HardwareProfile,
    config: TrainingConfig,
    gpus: Sequence[int],
    *,
    max_gpu_hours: Optional[float] = None,
    max_cost_usd: Optional[float] = None,
    scaling: str = "strong",
    job: Job = ...,
    calibration: Optional[Calibration] = None,
) -> Solution: ...

# --- sweep (sweep.cpp) ---------------------------------------------------------------

def sweep(
    model: ModelSpec,
    hardware: HardwareProfile,
    config: TrainingConfig,
    *,
    gpus: Optional[npt.ArrayLike] = None,
    gpus_per_node: Optional[npt.ArrayLike] = None,
    micro_batch: Optional[npt.ArrayLike] = None,
    seq_len: Optional[npt.ArrayLike] = None,
    global_batch_tokens: Optional[npt.ArrayLike] = None,
    calibration: Optional[Calibration] = None,
    threads: int = 0,
) -> dict[str, np.ndarray]: ...
def describe_issue(code: int) -> str: ...
def issue_name(code: int) -> str: ...
