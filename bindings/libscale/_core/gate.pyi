"""Sequence packing as trainers do it and the pre-launch packing gate."""

from __future__ import annotations

import collections.abc
import typing

import numpy
import numpy.typing

from . import Progress, _Pybind11Type

class OverflowCounts(metaclass=_Pybind11Type):
    """What happened to samples longer than seq_len, and to samples the trainer drops."""
    _fields: typing.ClassVar[tuple[str, ...]]

    @property
    def truncated_samples(self) -> int: ...

    @property
    def truncated_tokens(self) -> int:
        """tokens cut off and lost"""

    @property
    def split_samples(self) -> int:
        """samples cut into ≥ 2 pieces (no tokens lost)"""

    @property
    def dropped_samples(self) -> int:
        """samples the trainer filters out whole (TRL: 0-token ones; LLaMA-Factory: longer than seq_len)"""

    @property
    def dropped_tokens(self) -> int: ...

    def __init__(self, *args: typing.Never, **kwargs: typing.Never) -> None:
        """No constructor: made by the core only (TypeError)."""

    def to_dict(self) -> dict[str, typing.Any]:
        """The fields in declaration order, then derived properties; nested structs as dicts."""

    def __repr__(self) -> str: ...

    def __copy__(self) -> OverflowCounts: ...

    def __deepcopy__(self, memo: dict[int, typing.Any]) -> OverflowCounts: ...

class PackResult(metaclass=_Pybind11Type):
    """Bins as CSR: bin b holds entries offsets[b]:offsets[b+1] of samples (input index) and entry_tokens, in the
    trainer's order.
    """
    _fields: typing.ClassVar[tuple[str, ...]]

    @property
    def offsets(self) -> numpy.typing.NDArray[numpy.int64]:
        """int64, num_bins + 1"""

    @property
    def samples(self) -> numpy.typing.NDArray[numpy.uint32]:
        """uint32: the input index of each entry"""

    @property
    def entry_tokens(self) -> numpy.typing.NDArray[numpy.uint32]:
        """uint32: each entry's tokens after truncation or splitting"""

    @property
    def bin_tokens(self) -> numpy.typing.NDArray[numpy.int64]:
        """int64: tokens per bin"""

    @property
    def overflow(self) -> OverflowCounts: ...

    @property
    def input_tokens(self) -> int:
        """sum of the input lengths"""

    @property
    def packer(self) -> str: ...

    @property
    def seq_len(self) -> int: ...

    @property
    def num_bins(self) -> int: ...

    def __init__(self, *args: typing.Never, **kwargs: typing.Never) -> None:
        """No constructor: made by the core only (TypeError)."""

    def __len__(self) -> int: ...

    def __repr__(self) -> str: ...

    def to_dict(self) -> dict[str, typing.Any]:
        """Every field, in order."""

class GateConfig(metaclass=_Pybind11Type):
    """How the trainer packs, shards and steps: what the gate simulates."""
    _fields: typing.ClassVar[tuple[str, ...]]

    @property
    def packer(self) -> typing.Literal[
        'trl_bfd', 'trl_bfd_split', 'trl_wrapped', 'nemo_ffd', 'torchtune', 'torchtune_split', 'llamafactory',
        'axolotl_multipack', 'none'
    ]:
        """the trainer's packer, whose code the gate reproduces (none: one padded sample per row)"""

    @property
    def seq_len(self) -> int:
        """packed row length (required) [tokens]"""

    @property
    def world_size(self) -> int:
        """data-parallel ranks the sampler shards over [ranks]"""

    @property
    def micro_batch(self) -> int:
        """DataLoader batch_size: packed rows per micro-batch [rows]"""

    @property
    def grad_accum(self) -> int:
        """micro-batches per optimizer step [micro-batches]"""

    @property
    def shuffle(self) -> bool:
        """DistributedSampler(shuffle=...)"""

    @property
    def seed(self) -> int:
        """DistributedSampler seed (with shuffle)"""

    @property
    def epoch(self) -> int:
        """DistributedSampler.set_epoch (the shuffle's epoch)"""

    @property
    def sampler_drop_last(self) -> bool:
        """DistributedSampler(drop_last=...): drop the tail instead of padding every rank to equal size"""

    @property
    def dataloader_drop_last(self) -> bool:
        """DataLoader(drop_last=...): floor instead of ceil for micro-batches per rank"""

    @property
    def step_rounding(self) -> typing.Literal['ceil', 'floor']:
        """optimizer steps per epoch: ceil (the loop also steps on the remainder) or floor (drops it)"""

    @property
    def map_batch_size(self) -> int:
        """TRL / LLaMA-Factory datasets.map batch (0: the whole dataset in one batch) [samples]"""

    @property
    def num_proc(self) -> int:
        """datasets.map num_proc (each packs its own shard) [processes]"""

    @property
    def watchdog_s(self) -> float:
        """hang detection time for the cost at risk (NCCL's default timeout: 600 s) [s]"""

    @property
    def runtime_equalize(self) -> bool:
        """axolotl_multipack only: Axolotl truncates every rank to the minimum batch count at run time"""

    @property
    def shard_before_packing(self) -> bool:
        """each rank packs its own DistributedSampler shard (an on-the-fly per-rank packer)"""
    _options_group: typing.ClassVar[str]

    def __init__(
        self,
        *,
        packer: typing.Literal[
            'trl_bfd', 'trl_bfd_split', 'trl_wrapped', 'nemo_ffd', 'torchtune', 'torchtune_split', 'llamafactory',
            'axolotl_multipack', 'none'
        ] = 'trl_bfd',
        seq_len: int = 0,
        world_size: int = 1,
        micro_batch: int = 1,
        grad_accum: int = 1,
        shuffle: bool = False,
        seed: int = 0,
        epoch: int = 0,
        sampler_drop_last: bool = False,
        dataloader_drop_last: bool = False,
        step_rounding: typing.Literal['ceil', 'floor'] = 'ceil',
        map_batch_size: int = 1000,
        num_proc: int = 1,
        watchdog_s: float = 600.0,
        runtime_equalize: bool = True,
        shard_before_packing: bool = False,
    ) -> None:
        """Every option by keyword, each checked by the core."""

    def to_dict(self) -> dict[str, typing.Any]:
        """The options in table order (None: not set), then nested structs as dicts, then derived properties."""

    def __repr__(self) -> str: ...

    def __copy__(self) -> GateConfig: ...

    def __deepcopy__(self, memo: dict[int, typing.Any]) -> GateConfig: ...

class GateResult(metaclass=_Pybind11Type):
    """The packing gate's verdict (libscale.gate)."""
    _fields: typing.ClassVar[tuple[str, ...]]

    @property
    def rank(self) -> numpy.typing.NDArray[numpy.int64]:
        """per rank: its index"""

    @property
    def sequences(self) -> numpy.typing.NDArray[numpy.int64]:
        """per rank: packed sequences (rows) it iterates"""

    @property
    def micro_batches(self) -> numpy.typing.NDArray[numpy.int64]:
        """per rank: collective-bearing steps"""

    @property
    def optimizer_steps(self) -> numpy.typing.NDArray[numpy.int64]: ...

    @property
    def tokens(self) -> numpy.typing.NDArray[numpy.int64]: ...

    @property
    def padding_efficiency(self) -> numpy.typing.NDArray[numpy.float64]:
        """tokens / (sequences × seq_len)"""

    @property
    def passed(self) -> bool:
        """every rank runs the same number of micro-batches (or the trainer equalizes them)"""

    @property
    def min_rank(self) -> int: ...

    @property
    def max_rank(self) -> int: ...

    @property
    def min_micro_batches(self) -> int: ...

    @property
    def max_micro_batches(self) -> int: ...

    @property
    def difference(self) -> int: ...

    @property
    def trainer_equalizes(self) -> bool:
        """Axolotl truncates every rank to the minimum itself"""

    @property
    def micro_batches_dropped(self) -> int:
        """by the remedy, summed over ranks"""

    @property
    def steps_dropped(self) -> int:
        """optimizer steps the remedy drops, summed over ranks"""

    @property
    def tokens_dropped(self) -> int: ...

    @property
    def total_tokens(self) -> int:
        """tokens over all ranks before equalizing"""

    @property
    def tokens_dropped_pct(self) -> float: ...

    @property
    def global_bins(self) -> int:
        """packed sequences before sharding (global packers)"""

    @property
    def overflow(self) -> OverflowCounts: ...

    @property
    def hang_cost_gpu_hours(self) -> float:
        """GPU-hours a hang would burn before the watchdog fires"""

    @property
    def cost_at_risk_gpu_hours(self) -> float:
        """hang_cost_gpu_hours when the gate fails, else 0"""

    @property
    def verdict(self) -> str:
        """one line"""

    @property
    def config(self) -> GateConfig:
        """the GateConfig it judged"""

    @property
    def packer(self) -> str:
        """config.packer"""

    @property
    def seq_len(self) -> int:
        """config.seq_len"""

    @property
    def world_size(self) -> int:
        """config.world_size"""

    @property
    def micro_batch(self) -> int:
        """config.micro_batch"""

    @property
    def grad_accum(self) -> int:
        """config.grad_accum"""

    @property
    def shuffle(self) -> bool:
        """config.shuffle"""

    @property
    def seed(self) -> int:
        """config.seed"""

    @property
    def sampler_drop_last(self) -> bool:
        """config.sampler_drop_last"""

    @property
    def watchdog_s(self) -> float:
        """config.watchdog_s"""

    @property
    def gpu_hours_saved(self) -> float:
        """GPU-hours the gate saved by catching the hang before launch (0 on PASS)"""

    def __init__(self, *args: typing.Never, **kwargs: typing.Never) -> None:
        """No constructor: made by the core only (TypeError)."""

    def to_dict(self) -> dict[str, typing.Any]:
        """The fields in declaration order, then derived properties; nested structs as dicts."""

    def __bool__(self) -> bool: ...

    def __repr__(self) -> str: ...

def distributed_sampler_indices(
    n: int,
    world_size: int,
    rank: int,
    shuffle: bool = False,
    seed: int = 0,
    epoch: int = 0,
    drop_last: bool = False,
) -> numpy.typing.NDArray[numpy.int64]:
    """torch DistributedSampler's indices for one rank (shuffled order is libscale's own)."""

def equalize_to_minimum(
    rank_bin_tokens: collections.abc.Sequence[typing.Any],
    config: GateConfig,
) -> list[typing.Any]:
    """The remedy applied: every rank keeps its first min(micro-batches) × micro_batch rows."""

def gate(lengths: typing.Any, config: GateConfig, *, progress: Progress | None = None) -> GateResult:
    """Pack, shard and judge: the pre-launch packing gate (run_gate). progress counts samples (per-rank packing: the
    samples of every rank's shard).
    """

def judge(rank_bin_tokens: collections.abc.Sequence[typing.Any], config: GateConfig) -> GateResult:
    """Judge given per-rank packed rows (their token counts, in order)."""

def pack(
    packer: str,
    lengths: typing.Any,
    seq_len: int,
    map_batch_size: int = 1000,
    num_proc: int = 1,
    *,
    progress: Progress | None = None,
) -> PackResult:
    """Pack lengths as the named trainer does (not axolotl_multipack: see pack_axolotl_rank). progress counts samples.
    """

def pack_axolotl_rank(
    lengths: typing.Any,
    indices: typing.Annotated[numpy.typing.ArrayLike, numpy.int64],
    seq_len: int,
) -> PackResult:
    """Axolotl MultipackBatchSampler's bins on one rank, over that rank's sampler indices."""

def packer_names() -> list[str]:
    """The packer names pack() and gate() accept, e.g. 'trl_bfd'."""

def read_lengths(
    path: str,
    *,
    format: str = 'auto',
    dtype: str | None = None,
    field: str = 'length',
) -> numpy.typing.NDArray[numpy.uint32]:
    """Per-sample token lengths from a .npy (any integer dtype, either byte order), raw (give dtype) or JSONL (field)
    file, as a uint32 numpy array.
    """

def shard_and_pack(
    lengths: typing.Any,
    config: GateConfig,
    *,
    progress: Progress | None = None,
) -> list[typing.Any]:
    """Per rank, the tokens of each packed row in the order the trainer feeds them. progress: as gate's."""
NCCL_DEFAULT_TIMEOUT_S: float
