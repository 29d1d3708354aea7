"""A trainer-step run's results and their measurement file: each measured case becomes a
``"kind": "step"`` record of ``libscale.measurements/2`` (docs/formats.md), each case that
ran out of memory an entry of the file's top-level ``skipped`` list (as the calibration
harness writes its own). Pure Python: nothing here imports torch, so a recorded result
(``RunResult.to_dict()``) can be turned into a file anywhere."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from .._core import calibrate as _calibrate
from .grid import Case, Settings, finite_positive, median

__all__ = ["SCHEMA", "SKIP_PHASE", "CaseResult", "Environment", "RunResult", "check", "document",
           "is_out_of_memory_message", "skipped_entry", "step_record", "table_rows"]

SCHEMA = "libscale.measurements/2"
#: The ``phase`` of this tool's ``skipped`` entries (the harness names its own phases).
SKIP_PHASE = "trainer_steps"
# An out-of-memory message is kept to its start: PyTorch's runs to a paragraph of allocator
# statistics, and the file needs the reason, not the dump.
_MAX_WHY_CHARS = 400
_GIB = float(1 << 30)


def is_out_of_memory_message(message: str) -> bool:
    """Whether an error's text says the device (or host) ran out of memory: PyTorch's
    "CUDA out of memory" (torch.OutOfMemoryError), the "out of memory" of a failed
    cudaMalloc inside a library call, cuBLAS / cuDNN workspace allocation failures, and the
    CPU allocator's "can't allocate memory" (c10's alloc_cpu.cpp)."""
    m = message.lower()
    return any(s in m for s in ("out of memory", "status_alloc_failed", "can't allocate memory",
                                "cannot allocate memory"))


def _short(message: str) -> str:
    text = " ".join(message.split())
    return text if len(text) <= _MAX_WHY_CHARS else text[: _MAX_WHY_CHARS - 3] + "..."


@dataclass(frozen=True)
class Environment:
    """Where the steps ran. ``device`` is "cuda" or "cpu"; ``distributed_backend`` the
    process group's ("nccl" on GPUs, "gloo" on the CPU); ``launcher`` "torchrun" when the
    process was started with RANK / WORLD_SIZE set, else "single process" (world size 1)."""

    device: str
    device_name: str
    distributed_backend: str
    world_size: int
    local_world_size: int
    launcher: str
    torch: str
    transformers: str
    cuda: str | None = None
    cudnn: int | None = None
    nccl: str | None = None
    date: str = ""
    hosts: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["hosts"] = list(self.hosts)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Environment:
        return cls(**{**d, "hosts": tuple(d.get("hosts", ()))})


@dataclass(frozen=True)
class CaseResult:
    """One case as run: the timed steps (each the slowest rank's), the peak memory of the
    timed steps (the largest rank's, CUDA only: None on the CPU), the parameters of the cut
    model, the AdamW implementation used, and the config.json keys that cut it. ``skipped``
    says why a case has no times (out of memory), ``skipped_rank`` the first rank it hit."""

    case: Case
    model_overrides: dict[str, Any]
    step_times_s: tuple[float, ...] = ()
    memory_allocated_gib: float | None = None
    memory_reserved_gib: float | None = None
    parameters: int = 0
    optimizer: str = ""
    skipped: str | None = None
    skipped_rank: int = 0

    def __post_init__(self) -> None:
        if self.skipped is None:
            if not self.step_times_s:
                raise ValueError(f"case {self.case.label}: no step times and no reason it was skipped")
            for t in self.step_times_s:
                finite_positive("step_times_s", t)
            for name in ("memory_allocated_gib", "memory_reserved_gib"):
                if getattr(self, name) is not None:
                    finite_positive(name, getattr(self, name))

    @property
    def step_time_s(self) -> float:
        """The median timed step, s."""
        return median(self.step_times_s)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["case"] = self.case.to_dict()
        d["step_times_s"] = list(self.step_times_s)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> CaseResult:
        return cls(**{**d, "case": Case.from_dict(d["case"]), "step_times_s": tuple(d.get("step_times_s", ()))})


@dataclass(frozen=True)
class RunResult:
    """A whole run: its settings, the record's model name (catalog name or config.json
    path), where it ran and each case's result, in grid order. ``rank``: this process's
    (only rank 0 writes the file)."""

    settings: Settings
    model: str
    environment: Environment
    results: tuple[CaseResult, ...] = field(default_factory=tuple)
    rank: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"settings": self.settings.to_dict(), "model": self.model, "environment": self.environment.to_dict(),
                "results": [r.to_dict() for r in self.results], "rank": self.rank}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RunResult:
        return cls(settings=Settings.from_dict(d["settings"]), model=d["model"],
                   environment=Environment.from_dict(d["environment"]),
                   results=tuple(CaseResult.from_dict(r) for r in d["results"]), rank=d.get("rank", 0))


def _series(run: RunResult) -> str:
    if run.settings.series:
        return run.settings.series
    name = run.model if "/" not in run.model else run.model.rstrip("/").rsplit("/", 2)[-2]
    where = run.settings.hardware if run.environment.device == "cuda" else f"cpu-as-{run.settings.hardware}"
    return f"{where}-fsdp2-transformers-{name}"


def _config(run: RunResult, r: CaseResult) -> dict[str, Any]:
    """The record's configuration: what was measured and every training option the runner
    fixes (libscale's training option names, so `libscale fit` models this very setup)."""
    s, env, c = run.settings, run.environment, r.case
    return {
        "kind": "step",
        "model": run.model,
        "model_overrides": dict(r.model_overrides),
        "hardware": s.hardware,
        "gpus": env.world_size,
        "gpus_per_node": env.local_world_size,
        "seq_len": c.seq_len,
        "micro_batch": c.micro_batch,
        "grad_accum": c.grad_accum,
        "activation_checkpointing": c.activation_checkpointing,
        "strategy": "fsdp",
        "reshard_after_forward": True,
        "reduce_dtype": s.reduce_dtype,
        "grad_sync": s.grad_sync,
        "precision": "bf16",
        "master_weights": "fp32",
        "optimizer": "adamw",
        # transformers' causal-LM loss upcasts the logits to fp32 before cross-entropy
        "loss_kernel": "eager",
        "attention_kernel": s.attention_kernel,
        # the steps run transformers' own modules (docs/model.md "the model code")
        "implementation": "transformers",
        "torch_compile": False,
        "clip_grad_norm": False,
        # the runner keeps only the loss of the model's output (`net(...).loss`)
        "keep_logits": False,
        # AdamW(fused=True), or torch.optim's multi-tensor path where fused is refused
        "fused_optimizer": r.optimizer == "fused",
    }


def _count(n: int, what: str) -> str:
    return f"{n} {what}" + ("" if n == 1 else "s")


def _times(values: Sequence[float]) -> str:
    return "[" + ", ".join(f"{t:.4g}" for t in values) + "]"


def step_record(run: RunResult, r: CaseResult) -> dict[str, Any]:
    """The ``"kind": "step"`` record of one measured case."""
    if r.skipped is not None:
        raise ValueError(f"case {r.case.label} was skipped ({r.skipped}); it has no step record")
    s, env = run.settings, run.environment
    rec = _config(run, r)
    rec["step_time_s"] = round(r.step_time_s, 6)
    memory = "no memory figures (the CPU has no CUDA allocator statistics)"
    if r.memory_allocated_gib is not None:
        rec["memory_gib"] = round(r.memory_allocated_gib, 3)
        rec["memory_kind"] = "allocated"
        memory = ("peak torch.cuda.max_memory_allocated (memory_gib) and max_memory_reserved (memory_reserved_gib) "
                  "over the timed steps, less what was allocated and reserved before the case began")
    if r.memory_reserved_gib is not None:
        rec["memory_reserved_gib"] = round(r.memory_reserved_gib, 3)
    rec["series"] = _series(run)
    ranks = "" if env.world_size == 1 else ", the slowest of the ranks"
    timed = _count(len(r.step_times_s), "timed step")
    rec["source"] = (f"libscale trainer-steps {r.case.label}: median of {timed} after "
                     f"{_count(s.warmup, 'warm-up step')}{ranks}, step times {_times(r.step_times_s)} s; {memory}; "
                     f"{r.parameters:,} parameters; AdamW {r.optimizer}")
    if env.device != "cuda":
        rec["validation_exclude"] = (f"measured on the CPU ({env.device_name}, gloo), not on {s.hardware}: the "
                                     "times are the CPU's")
    return rec


def skipped_entry(run: RunResult, r: CaseResult) -> dict[str, Any]:
    """A case that was not measured, as the harness lists its own: phase, case, rank, why,
    and the configuration a step record would have had (``config``)."""
    if r.skipped is None:
        raise ValueError(f"case {r.case.label} was measured; it is a record, not a skipped case")
    return {"phase": SKIP_PHASE, "case": r.case.label, "rank": r.skipped_rank, "why": _short(r.skipped),
            "config": _config(run, r)}


def _description(run: RunResult) -> str:
    s, env = run.settings, run.environment
    where = (f"{env.world_size} x {env.device_name}" if env.device == "cuda" else
             f"the CPU ({env.device_name}) with gloo, {env.world_size} process(es), records labelled "
             f"'{s.hardware}' as given (their times are the CPU's)")
    versions = f"torch {env.torch}" + (f" (CUDA {env.cuda}, cuDNN {env.cudnn}, NCCL {env.nccl})" if env.cuda else "")
    attention = {"flash2": "attn_implementation='sdpa' pinned to PyTorch's FlashAttention-2 backend",
                 "cudnn": "attn_implementation='sdpa' pinned to cuDNN's fused attention backend",
                 "eager": "attn_implementation='eager'"}[s.attention_kernel]
    if env.device != "cuda" and s.attention_kernel == "flash2":
        attention += " (its CPU kernel)"
    elif env.device != "cuda" and s.attention_kernel == "cudnn":
        attention = "attn_implementation='sdpa' (not pinned: cuDNN has no CPU kernel)"
    reduce = "fp32" if s.reduce_dtype == "fp32" else "unset, so bf16"
    sync = ("every micro-batch" if s.grad_sync == "every_micro_batch" else
            "the last micro-batch only (set_requires_gradient_sync(False) on the others)")
    date = env.date or "an unknown date"
    return (f"Real FSDP2 training steps measured by `libscale trainer-steps` on {where} on {date} "
            f"with {versions} and transformers {env.transformers}: {run.model}'s config cut to the decoder layers of "
            "each record's model_overrides (embeddings, final norm and LM head kept), random weights and tokens "
            "(labels = inputs), fp32 parameters, torch.distributed.fsdp.fully_shard on every decoder layer and on "
            f"the root with MixedPrecisionPolicy(param_dtype=bf16, reduce_dtype {reduce}), gradients reduced after "
            f"{sync}, world size {env.world_size} ({env.distributed_backend}, {env.launcher}), {attention}, "
            "transformers' activation checkpointing (use_reentrant=False) on every decoder layer for 'full', "
            "torch.optim.AdamW (fused, else foreach: each record's source says which), no torch.compile, no "
            "gradient clipping; loss is transformers' causal-LM loss (fp32 logits). Cases that ran out of memory "
            "are listed in 'skipped'.")


def document(run: RunResult, *, command: str | None = None) -> dict[str, Any]:
    """The measurement file of a run: schema, description, provenance, the step records of
    the measured cases and the ``skipped`` list of those that ran out of memory."""
    s = run.settings
    provenance: dict[str, Any] = {"source": "libscale trainer-steps", **run.environment.to_dict(),
                                  "model": run.model, "hardware": s.hardware, "warmup_steps": s.warmup,
                                  "timed_steps": s.steps, "seed": s.seed}
    if command:
        provenance["command"] = command
    return {
        "schema": SCHEMA,
        "description": _description(run),
        "provenance": provenance,
        "records": [step_record(run, r) for r in run.results if r.skipped is None],
        "skipped": [skipped_entry(run, r) for r in run.results if r.skipped is not None],
    }


def check(doc: dict[str, Any], origin: str = "trainer-steps") -> _calibrate.MeasurementSet:
    """The document read back by libscale's measurement reader (the one `libscale fit`
    uses): ParseError names the record and field of anything it refuses."""
    return _calibrate.measurements_from_json(doc, origin)


def table_rows(run: RunResult) -> list[dict[str, Any]]:
    """One row per case for the command's table and CSV: the configuration, the median step,
    tokens per second per GPU, peak memory, and ``status`` (measured, or why skipped)."""
    rows: list[dict[str, Any]] = []
    for r in run.results:
        c = r.case
        row: dict[str, Any] = {"layers": c.layers, "seq_len": c.seq_len, "micro_batch": c.micro_batch,
                               "grad_accum": c.grad_accum, "activation_checkpointing": c.activation_checkpointing,
                               "step_time_s": None, "tokens_per_s_per_gpu": None, "memory_allocated_gib": None,
                               "memory_reserved_gib": None, "status": "measured"}
        if r.skipped is None:
            step = r.step_time_s
            row.update(step_time_s=step, tokens_per_s_per_gpu=c.micro_batch * c.seq_len * c.grad_accum / step,
                       memory_allocated_gib=r.memory_allocated_gib, memory_reserved_gib=r.memory_reserved_gib)
        else:
            row["status"] = "skipped: " + ("out of memory" if is_out_of_memory_message(r.skipped) else r.skipped)
        rows.append(row)
    return rows
