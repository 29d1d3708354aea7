"""Models, hardware profiles, training configurations, FLOP counting."""

from __future__ import annotations

import typing
from collections.abc import Mapping
from typing import Any

import numpy
import numpy.typing

from . import _Pybind11Type

class ModelSpec(metaclass=_Pybind11Type):
    """A dense decoder-only transformer (every family of docs/architectures.md)."""
    _fields: typing.ClassVar[tuple[str, ...]]
    name: str
    model_type: str
    hidden_size: int
    intermediate_size: int
    num_layers: int
    num_heads: int
    num_kv_heads: int
    head_dim: int
    vocab_size: int
    max_position_embeddings: int
    tie_word_embeddings: bool
    mlp: str
    activation: str
    norm: str
    norm_bias: bool
    norm_affine: bool
    norms_per_layer: int
    final_norm: bool
    qk_norm: str
    qkv_bias: bool
    o_bias: bool
    mlp_bias: bool
    lm_head_bias: bool
    positions: str
    position_embedding_rows: int
    parallel_block: bool
    fused_qkv: bool
    fused_gate_up: bool
    sliding_window: int
    sliding_window_layers: int
    attn_logit_softcap: float
    final_logit_softcap: float
    embed_proj_dim: int
    source: str

    @property
    def parameters(self) -> int:
        """Total parameter count (count_parameters(model).total)."""

    def __init__(
        self,
        *,
        name: str = '',
        model_type: str = '',
        hidden_size: int = 0,
        intermediate_size: int = 0,
        num_layers: int = 0,
        num_heads: int = 0,
        num_kv_heads: int = 0,
        head_dim: int = 0,
        vocab_size: int = 0,
        max_position_embeddings: int = 0,
        tie_word_embeddings: bool = False,
        mlp: str = 'gated',
        activation: str = 'silu',
        norm: str = 'rms',
        norm_bias: bool = False,
        norm_affine: bool = True,
        norms_per_layer: int = 2,
        final_norm: bool = True,
        qk_norm: str = 'none',
        qkv_bias: bool = False,
        o_bias: bool = False,
        mlp_bias: bool = False,
        lm_head_bias: bool = False,
        positions: str = 'rope',
        position_embedding_rows: int = 0,
        parallel_block: bool = False,
        fused_qkv: bool = False,
        fused_gate_up: bool = False,
        sliding_window: int = 0,
        sliding_window_layers: int = 0,
        attn_logit_softcap: float = 0.0,
        final_logit_softcap: float = 0.0,
        embed_proj_dim: int = 0,
        source: str = '',
    ) -> None:
        """Every field by keyword (enums as strings); call validate() (or any estimate) to check it."""

    def to_dict(self) -> dict[str, typing.Any]:
        """The fields in declaration order, then derived properties; nested structs as dicts."""

    def validate(self) -> None:
        """Raise ValueError naming the first invalid field."""

    def __repr__(self) -> str: ...

    def __copy__(self) -> ModelSpec: ...

    def __deepcopy__(self, memo: dict[int, typing.Any]) -> ModelSpec: ...

class ParameterCounts(metaclass=_Pybind11Type):
    """Parameters per component of a ModelSpec."""
    _fields: typing.ClassVar[tuple[str, ...]]

    @property
    def embedding(self) -> int:
        """vocab × embedding width"""

    @property
    def position_embedding(self) -> int:
        """learned position table"""

    @property
    def embed_projections(self) -> int:
        """OPT project_in + project_out"""

    @property
    def lm_head(self) -> int:
        """0 when tied (a bias still counts)"""

    @property
    def final_norm(self) -> int: ...

    @property
    def q_proj(self) -> int:
        """per decoder layer"""

    @property
    def k_proj(self) -> int:
        """per decoder layer"""

    @property
    def v_proj(self) -> int:
        """per decoder layer"""

    @property
    def o_proj(self) -> int:
        """per decoder layer"""

    @property
    def qk_norm(self) -> int:
        """per decoder layer"""

    @property
    def mlp(self) -> int:
        """per decoder layer"""

    @property
    def layer_norms(self) -> int:
        """per decoder layer"""

    @property
    def per_layer(self) -> int: ...

    @property
    def per_layer_matmul(self) -> int:
        """q, k, v, o, MLP weights without biases"""

    @property
    def layers(self) -> int:
        """per_layer × num_layers"""

    @property
    def total(self) -> int: ...

    @property
    def non_embedding(self) -> int:
        """total − embedding − position_embedding"""

    @property
    def root_unit(self) -> int:
        """FSDP2 root unit: embeddings, projections, final norm, lm_head"""

    @property
    def matmul_forward(self) -> int:
        """matmul weights that see every token in forward"""

    def __init__(self, *args: typing.Never, **kwargs: typing.Never) -> None:
        """No constructor: made by the core only (TypeError)."""

    def to_dict(self) -> dict[str, typing.Any]:
        """The fields in declaration order, then derived properties; nested structs as dicts."""

    def __repr__(self) -> str: ...

    def __copy__(self) -> ParameterCounts: ...

    def __deepcopy__(self, memo: dict[int, typing.Any]) -> ParameterCounts: ...

class FlopsPerToken(metaclass=_Pybind11Type):
    """FLOPs per token of one training step."""
    _fields: typing.ClassVar[tuple[str, ...]]

    @property
    def matmul_forward(self) -> float:
        """2 · matmul weights"""

    @property
    def attention_forward(self) -> float:
        """4 · h · d_h · s_eff · L"""

    @property
    def forward(self) -> float: ...

    @property
    def backward(self) -> float: ...

    @property
    def recompute(self) -> float: ...

    @property
    def model(self) -> float:
        """forward + backward: what MFU counts"""

    @property
    def hardware(self) -> float:
        """model + recompute: what HFU counts"""

    def __init__(self, *args: typing.Never, **kwargs: typing.Never) -> None:
        """No constructor: made by the core only (TypeError)."""

    def to_dict(self) -> dict[str, typing.Any]:
        """The fields in declaration order, then derived properties; nested structs as dicts."""

    def __repr__(self) -> str: ...

    def __copy__(self) -> FlopsPerToken: ...

    def __deepcopy__(self, memo: dict[int, typing.Any]) -> FlopsPerToken: ...

class HardwareProfile(metaclass=_Pybind11Type):
    """One GPU type: peak figures, the typical node, power and a default price."""
    _fields: typing.ClassVar[tuple[str, ...]]
    name: str
    display_name: str
    peak_bf16_tflops: float
    peak_fp8_tflops: float
    sm_count: int
    hbm_gib: float
    hbm_tbps: float
    nvlink_gbps_bidir: float
    nic_gbps_per_gpu: float
    gpus_per_node: int
    board_power_w: float
    idle_power_w: float | None
    price_per_gpu_hour_usd: float
    source: str

    @property
    def peak_flops(self) -> float:
        """dense bf16, FLOP/s"""

    @property
    def peak_fp8_flops(self) -> float:
        """dense fp8, FLOP/s"""

    @property
    def nvlink_bytes_per_s_unidir(self) -> float:
        """B/s"""

    @property
    def nic_bytes_per_s(self) -> float:
        """B/s"""

    @property
    def hbm_bytes_per_s(self) -> float:
        """B/s"""

    def __init__(
        self,
        *,
        name: str = '',
        display_name: str = '',
        peak_bf16_tflops: float = 0.0,
        peak_fp8_tflops: float = 0.0,
        sm_count: int = 0,
        hbm_gib: float = 0.0,
        hbm_tbps: float = 0.0,
        nvlink_gbps_bidir: float = 0.0,
        nic_gbps_per_gpu: float = 0.0,
        gpus_per_node: int = 8,
        board_power_w: float = 0.0,
        idle_power_w: float | None = None,
        price_per_gpu_hour_usd: float = 0.0,
        source: str = '',
    ) -> None:
        """Every field by keyword; idle_power_w None means unknown."""

    def to_dict(self) -> dict[str, typing.Any]:
        """The fields in declaration order, then derived properties; nested structs as dicts."""

    def validate(self) -> None:
        """Raise ValueError naming the first invalid field."""

    def __repr__(self) -> str: ...

    def __copy__(self) -> HardwareProfile: ...

    def __deepcopy__(self, memo: dict[int, typing.Any]) -> HardwareProfile: ...

class DataPipeline(metaclass=_Pybind11Type):
    """Where a step's tokens come from (defaults: pretokenized, in the page cache)."""
    _fields: typing.ClassVar[tuple[str, ...]]
    pretokenized: bool
    bytes_per_token: float
    corpus_in_page_cache: bool
    storage_read_gbps_per_node: float
    tokenize_tokens_per_s_per_core: float
    loader_workers_per_rank: int
    cpu_cores_per_node: int
    _options_group: typing.ClassVar[str]

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
    ) -> None:
        """Every option by keyword, each checked by the core."""

    def to_dict(self) -> dict[str, typing.Any]:
        """The options in table order (None: not set), then nested structs as dicts, then derived properties."""

    def __repr__(self) -> str: ...

    def __copy__(self) -> DataPipeline: ...

    def __deepcopy__(self, memo: dict[int, typing.Any]) -> DataPipeline: ...

class CheckpointPolicy(metaclass=_Pybind11Type):
    """How often the training state is written, and how fast."""
    _fields: typing.ClassVar[tuple[str, ...]]
    every_steps: int
    write_gbps_per_node: float
    _options_group: typing.ClassVar[str]

    def __init__(self, *, every_steps: int = 0, write_gbps_per_node: float = 0.0) -> None:
        """Every option by keyword, each checked by the core."""

    def to_dict(self) -> dict[str, typing.Any]:
        """The options in table order (None: not set), then nested structs as dicts, then derived properties."""

    def __repr__(self) -> str: ...

    def __copy__(self) -> CheckpointPolicy: ...

    def __deepcopy__(self, memo: dict[int, typing.Any]) -> CheckpointPolicy: ...

class TrainingConfig(metaclass=_Pybind11Type):
    """How a run is laid out: GPUs, batch, sharding strategy, input pipeline, checkpoints."""
    _fields: typing.ClassVar[tuple[str, ...]]
    gpus: int
    gpus_per_node: int | None
    seq_len: int
    micro_batch: int
    global_batch_tokens: int | None
    strategy: typing.Literal['fsdp', 'hsdp', 'ddp', 'zero1', 'zero2', 'zero3', 'full_shard', 'hybrid_shard']
    activation_checkpointing: typing.Literal['none', 'selective', 'full', 'off', 'op']
    reshard_after_forward: bool
    reduce_dtype: typing.Literal['bf16', 'fp32']
    grad_sync: typing.Literal['every_micro_batch', 'last_micro_batch']
    attention_span_tokens: float | None
    precision: typing.Literal['bf16', 'fp8']
    fp8_all_gather: bool
    optimizer: typing.Literal['adamw', 'adamw_8bit', 'sgd', 'adafactor']
    master_weights: typing.Literal['fp32', 'bf16']
    loss_kernel: typing.Literal['eager', 'fused']
    attention_kernel: typing.Literal[
        'flash2', 'flash3', 'cudnn', 'flash1', 'flash_triton', 'llm_foundry_triton', 'xformers', 'eager'
    ]
    implementation: typing.Literal['generic', 'transformers', 'torchtitan']
    torch_compile: bool
    checkpoint_every: int
    clip_grad_norm: bool
    keep_logits: bool
    fused_optimizer: bool
    data: DataPipeline
    checkpoint: CheckpointPolicy
    _options_group: typing.ClassVar[str]

    @property
    def reduce_bytes(self) -> int:
        """reduce_dtype's bytes per gradient element: 2 (bf16) or 4 (fp32)"""

    def __init__(
        self,
        *,
        gpus: int = 8,
        gpus_per_node: int | None = None,
        seq_len: int = 8192,
        micro_batch: int = 1,
        global_batch_tokens: int | None = None,
        strategy: typing.Literal[
            'fsdp', 'hsdp', 'ddp', 'zero1', 'zero2', 'zero3', 'full_shard', 'hybrid_shard'
        ] = 'fsdp',
        activation_checkpointing: typing.Literal['none', 'selective', 'full', 'off', 'op'] = 'full',
        reshard_after_forward: bool = True,
        reduce_dtype: typing.Literal['bf16', 'fp32'] = 'bf16',
        grad_sync: typing.Literal['every_micro_batch', 'last_micro_batch'] = 'every_micro_batch',
        attention_span_tokens: float | None = None,
        precision: typing.Literal['bf16', 'fp8'] = 'bf16',
        fp8_all_gather: bool = False,
        optimizer: typing.Literal['adamw', 'adamw_8bit', 'sgd', 'adafactor'] = 'adamw',
        master_weights: typing.Literal['fp32', 'bf16'] = 'fp32',
        loss_kernel: typing.Literal['eager', 'fused'] = 'eager',
        attention_kernel: typing.Literal[
            'flash2', 'flash3', 'cudnn', 'flash1', 'flash_triton', 'llm_foundry_triton', 'xformers', 'eager'
        ] = 'flash2',
        implementation: typing.Literal['generic', 'transformers', 'torchtitan'] = 'generic',
        torch_compile: bool = False,
        checkpoint_every: int = 1,
        clip_grad_norm: bool = False,
        keep_logits: bool = False,
        fused_optimizer: bool = True,
        data: DataPipeline | Mapping[str, Any] | None = None,
        checkpoint: CheckpointPolicy | Mapping[str, Any] | None = None,
    ) -> None:
        """Every option by keyword, each checked by the core."""

    def to_dict(self) -> dict[str, typing.Any]:
        """The options in table order (None: not set), then nested structs as dicts, then derived properties."""

    def __repr__(self) -> str: ...

    def __copy__(self) -> TrainingConfig: ...

    def __deepcopy__(self, memo: dict[int, typing.Any]) -> TrainingConfig: ...

def causal_attention_span(seq_len: int) -> float:
    """Mean attended span of a causal full sequence (tokens)."""

def check_option(group: str, name: str, value: typing.Any) -> typing.Any:
    """One option's value checked alone (type, range, choices; not the rules between options), returned in the option's
    type; ValueError / TypeError as make_options.
    """

def count_parameters(model: ModelSpec) -> ParameterCounts:
    """Exact parameter counts of a ModelSpec."""

def flops_per_token(
    model: ModelSpec,
    attention_span_tokens: float,
    activation_checkpointing: str = 'full',
) -> FlopsPerToken:
    """FLOPs per token with the given mean attention span (causal_attention_span / packed_attention_span)."""

def make_options(group: str, values: dict[str, typing.Any]) -> typing.Any:
    """The group's struct from its defaults and the given options, each checked by the core (ValueError naming the
    option, the value and what is valid; TypeError for a value of no option type). training also takes data= and
    checkpoint= as dicts of their options.
    """

def model_from_hf_config(config: typing.Any, name: str, origin: str = '<config>') -> ModelSpec:
    """A ModelSpec from a Hugging Face config.json's contents (a dict). ParseError names the field, including an
    unsupported or mixture-of-experts model_type.
    """

def option_groups() -> list[str]:
    """The option groups, each the fields of one core struct."""

def option_values(group: str, value: typing.Any) -> dict[str, typing.Any]:
    """The struct's options by name (None: not set)."""

def options(group: str) -> list[typing.Any]:
    """The options of a group as dicts: group, name, type, unit, help, choices, minimum, maximum, exclusive_minimum,
    optional, default (None: not set).
    """

def packed_attention_span(document_lengths: typing.Annotated[numpy.typing.ArrayLike, numpy.int64]) -> float:
    """Mean attended span of packed documents with per-document causal masks (tokens)."""
