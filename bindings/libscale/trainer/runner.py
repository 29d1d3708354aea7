"""Real FSDP2 training steps with PyTorch and transformers. torch and transformers are
imported inside the functions that run steps, never when the module is imported, so
``import libscale`` (and the command line) works without them.

One process per GPU: under torchrun (RANK and WORLD_SIZE set) the process group is
torchrun's; otherwise a single process of world size 1. On a machine without CUDA the
steps run on the CPU with gloo (tiny models only; the records keep the hardware name the
user gave and say that the times are the CPU's)."""

from __future__ import annotations

import contextlib
import datetime
import gc
import importlib
import itertools
import os
import platform
import socket
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from .grid import Case, ModelConfig, Settings, model_config
from .records import CaseResult, Environment, RunResult, is_out_of_memory_message

__all__ = ["TorchMissingError", "require_torch", "run"]

_GIB = float(1 << 30)
_INSTALL = "pip install torch transformers"


class TorchMissingError(ImportError):
    """torch or transformers is not importable: the message says what to install."""


def require_torch() -> tuple[Any, Any]:
    """(torch, transformers), or TorchMissingError naming what failed and how to install."""
    # import_module: the modules stay untyped (Any) for mypy, which checks this package
    # where torch is not installed.
    try:
        torch = importlib.import_module("torch")
        transformers = importlib.import_module("transformers")
    except ImportError as e:
        raise TorchMissingError(f"trainer steps need torch and transformers, which do not import here ({e}): "
                                f"{_INSTALL}") from None
    return torch, transformers


@dataclass
class _World:
    torch: Any
    dist: Any
    device: Any
    rank: int
    world_size: int
    local_world_size: int
    environment: Environment

    @property
    def cuda(self) -> bool:
        return bool(self.device.type == "cuda")

    def synchronize(self) -> None:
        if self.cuda:
            self.torch.cuda.synchronize(self.device)


def _int_env(name: str, default: int) -> int:
    value = os.environ.get(name)
    try:
        return int(value) if value is not None else default
    except ValueError:
        raise ValueError(f"environment variable {name} = {value!r}; expected an integer (set by torchrun)") from None


@contextlib.contextmanager
def _world(torch: Any, transformers: Any) -> Iterator[_World]:
    """The process group this process belongs to: one already initialized (kept), torchrun's
    (env://), or a world of one in memory (HashStore: no port to pick)."""
    dist = importlib.import_module("torch.distributed")
    launched = "RANK" in os.environ and "WORLD_SIZE" in os.environ
    cuda = bool(torch.cuda.is_available())
    local_rank = _int_env("LOCAL_RANK", 0)
    if cuda:
        device = torch.device("cuda", local_rank % torch.cuda.device_count())
        torch.cuda.set_device(device)
    else:
        device = torch.device("cpu")
    backend = "nccl" if cuda else "gloo"
    owned = not dist.is_initialized()
    if owned:
        if launched:
            dist.init_process_group(backend)
        else:
            dist.init_process_group(backend, store=dist.HashStore(), rank=0, world_size=1)
    try:
        rank, world_size = int(dist.get_rank()), int(dist.get_world_size())
        local_world_size = _int_env("LOCAL_WORLD_SIZE", world_size)
        hosts: list[Any] = [None] * world_size
        dist.all_gather_object(hosts, socket.gethostname())
        env = Environment(
            device=device.type,
            device_name=str(torch.cuda.get_device_name(device)) if cuda else _cpu_name(),
            distributed_backend=str(dist.get_backend()),
            world_size=world_size,
            local_world_size=local_world_size,
            launcher="torchrun" if launched else "single process",
            torch=str(torch.__version__),
            transformers=str(transformers.__version__),
            cuda=str(torch.version.cuda) if cuda and torch.version.cuda else None,
            cudnn=int(torch.backends.cudnn.version()) if cuda and torch.backends.cudnn.is_available() else None,
            nccl=_nccl_version(torch) if cuda else None,
            date=datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            hosts=tuple(sorted({str(h) for h in hosts})),
        )
        yield _World(torch, dist, device, rank, world_size, local_world_size, env)
    finally:
        if owned:
            dist.destroy_process_group()


def _cpu_name() -> str:
    """The CPU's model name (Linux: /proc/cpuinfo), else what platform knows."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            # The first CPU's block names it within its first lines; read no further.
            for line in itertools.islice(f, 64):
                if line.startswith("model name") and ":" in line:
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "cpu"


def _nccl_version(torch: Any) -> str | None:
    try:
        v = torch.cuda.nccl.version()
    except (AttributeError, RuntimeError):
        return None
    return ".".join(str(x) for x in v) if isinstance(v, tuple) else str(v)


def _is_out_of_memory(torch: Any, e: BaseException) -> bool:
    oom = getattr(torch, "OutOfMemoryError", None) or getattr(torch.cuda, "OutOfMemoryError", None)
    if isinstance(e, MemoryError) or (oom is not None and isinstance(e, oom)):
        return True
    return isinstance(e, RuntimeError) and is_out_of_memory_message(str(e))


def run(settings: Settings, cases: Sequence[Case], *, progress: Callable[[str], None] | None = None) -> RunResult:
    """Run every case: build the model cut to its layers, shard it, train ``settings.warmup``
    steps, then time ``settings.steps`` steps. A case that runs out of memory is recorded
    as skipped (on every rank: the ranks agree after each case) and the run goes on; any
    other error ends the run. ``progress`` (rank 0 only) gets one line per case."""
    torch, transformers = require_torch()
    model = model_config(settings.model)
    # Every cut checked by libscale's reader before any device time is spent.
    overrides = {c.layers: model.overrides(c.layers) for c in cases}
    results: list[CaseResult] = []
    with _world(torch, transformers) as w:
        for case in cases:
            r = _case(w, transformers, settings, model, case, overrides[case.layers])
            results.append(r)
            if progress is not None and w.rank == 0:
                progress(_progress_line(r))
        return RunResult(settings, model.name, w.environment, tuple(results), rank=w.rank)


def _progress_line(r: CaseResult) -> str:
    if r.skipped is not None:
        return f"{r.case.label}: skipped ({' '.join(r.skipped.split())[:160]})"
    memory = "" if r.memory_allocated_gib is None else \
        f", {r.memory_allocated_gib:.2f} GiB allocated, {r.memory_reserved_gib or 0:.2f} GiB reserved"
    return f"{r.case.label}: {r.step_time_s:.4f} s/step{memory}"


def _case(w: _World, transformers: Any, settings: Settings, model: ModelConfig, case: Case,
          overrides: dict[str, Any]) -> CaseResult:
    torch, dist = w.torch, w.dist
    why: str | None = None
    measured: tuple[list[float], float | None, float | None, int, str] | None = None
    if w.cuda:
        torch.cuda.reset_peak_memory_stats(w.device)
    try:
        measured = _measure(w, transformers, settings, model, case)
    except Exception as e:
        if not _is_out_of_memory(torch, e):
            raise
        why = f"out of memory: {e}"
    # The failed step's tensors are freed with its traceback (gone after the except block);
    # the next case starts from an empty cache.
    gc.collect()
    if w.cuda:
        torch.cuda.empty_cache()
    # The ranks agree: a case any rank could not run is skipped on all of them, and the
    # first rank that ran out of memory is named.
    flag = torch.tensor([w.rank if why is not None else w.world_size], dtype=torch.float64, device=w.device)
    dist.all_reduce(flag, op=dist.ReduceOp.MIN)
    first = int(flag.item())
    if first < w.world_size:
        if w.world_size > 1:  # every rank (rank 0 writes) gets that rank's own message
            message = [why]
            dist.broadcast_object_list(message, src=first)
            why = str(message[0])
        return CaseResult(case, overrides, skipped=why or f"out of memory on rank {first}", skipped_rank=first)
    assert measured is not None
    times, allocated, reserved, parameters, optimizer = measured
    # A step ends when its slowest rank does; memory is the fullest rank's.
    values = torch.tensor([*times, allocated or 0.0, reserved or 0.0], dtype=torch.float64, device=w.device)
    dist.all_reduce(values, op=dist.ReduceOp.MAX)
    v = [float(x) for x in values.tolist()]
    n = len(times)
    return CaseResult(case, overrides, step_times_s=tuple(v[:n]),
                      memory_allocated_gib=v[n] if allocated is not None else None,
                      memory_reserved_gib=v[n + 1] if reserved is not None else None,
                      parameters=parameters, optimizer=optimizer)


def _decoder_layers(torch: Any, net: Any, layers: int) -> list[Any]:
    """The model's decoder layers: the ModuleList of ``layers`` blocks (model.layers in
    Llama / Qwen, transformer.h in GPT-2, transformer.blocks in MPT, ...)."""
    lists = [m for _, m in net.named_modules() if isinstance(m, torch.nn.ModuleList) and len(m) == layers]
    named = [m for m in lists if type(m[0]).__name__.endswith(("DecoderLayer", "Layer", "Block"))]
    found = named or lists
    if not found:
        raise ValueError(f"{type(net).__name__}: no list of {layers} decoder layers to shard")
    return list(found[0])


def _enable_checkpointing(net: Any) -> None:
    """transformers' activation checkpointing of every decoder layer, non-reentrant (the
    form that composes with FSDP2's hooks). Newer transformers name it
    activation_checkpointing_enable; older ones gradient_checkpointing_enable."""
    if not getattr(net, "supports_gradient_checkpointing", False):
        raise ValueError(f"{type(net).__name__}: transformers has no activation checkpointing for this model; "
                         "use activation checkpointing none")
    enable = getattr(net, "activation_checkpointing_enable", None)
    if enable is not None:
        enable(activation_checkpointing_kwargs={"use_reentrant": False})
    else:
        net.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})


def _fsdp() -> tuple[Any, Any]:
    """FSDP2's fully_shard and MixedPrecisionPolicy."""
    fsdp = importlib.import_module("torch.distributed.fsdp")
    if not hasattr(fsdp, "fully_shard"):  # torch < 2.6 kept FSDP2 under _composable
        fsdp = importlib.import_module("torch.distributed._composable.fsdp")
    return fsdp.fully_shard, fsdp.MixedPrecisionPolicy


def _attention_context(w: _World, settings: Settings) -> Callable[[], Any]:
    """Pins SDPA to the kernel the records name (forward, backward and the recompute of
    checkpointing all run inside). On the CPU, flash2 pins PyTorch's flash backend (its CPU
    kernel); cuDNN has none there, so nothing is pinned."""
    if settings.attention_kernel == "eager" or (not w.cuda and settings.attention_kernel == "cudnn"):
        return contextlib.nullcontext
    attention = importlib.import_module("torch.nn.attention")
    backend = {"flash2": attention.SDPBackend.FLASH_ATTENTION,
               "cudnn": attention.SDPBackend.CUDNN_ATTENTION}[settings.attention_kernel]
    return lambda: attention.sdpa_kernel([backend])


def _measure(w: _World, transformers: Any, settings: Settings, model: ModelConfig,
             case: Case) -> tuple[list[float], float | None, float | None, int, str]:
    torch = w.torch
    fully_shard, MixedPrecisionPolicy = _fsdp()
    init_device_mesh = importlib.import_module("torch.distributed.device_mesh").init_device_mesh

    # What an earlier case left allocated (the cache is emptied after each) is not this
    # case's: its peak is counted above it.
    base_allocated = base_reserved = 0.0
    if w.cuda:
        base_allocated = float(torch.cuda.memory_allocated(w.device)) / _GIB
        base_reserved = float(torch.cuda.memory_reserved(w.device)) / _GIB
    torch.manual_seed(settings.seed)
    hf = model.hf_config(case.layers)
    model_type = hf.pop("model_type", None)
    if not model_type:
        raise ValueError(f"model {model.name}: config.json has no model_type; transformers cannot build it")
    config = transformers.AutoConfig.for_model(model_type, **hf)
    attention = "eager" if settings.attention_kernel == "eager" else "sdpa"
    with torch.device(w.device):
        net = transformers.AutoModelForCausalLM.from_config(config, attn_implementation=attention)
    net.float()  # fp32 master weights; FSDP2 casts to bf16 for compute
    net.train()
    parameters = int(sum(p.numel() for p in net.parameters()))
    layers = _decoder_layers(torch, net, case.layers)
    if case.activation_checkpointing == "full":
        _enable_checkpointing(net)
    mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16,
                              reduce_dtype=torch.float32 if settings.reduce_dtype == "fp32" else None)
    mesh = init_device_mesh(w.device.type, (w.world_size,))
    for layer in layers:
        fully_shard(layer, mesh=mesh, mp_policy=mp)
    fully_shard(net, mesh=mesh, mp_policy=mp)

    def adamw(**impl: bool) -> Any:
        return torch.optim.AdamW(net.parameters(), lr=1e-5, **impl)

    try:
        optimizer, impl = adamw(fused=True), "fused"
    except (RuntimeError, ValueError) as e:  # a device or dtype without the fused kernel
        optimizer, impl = adamw(foreach=True), f"foreach (fused refused: {' '.join(str(e).split())[:120]})"
    generator = torch.Generator(device=w.device).manual_seed(settings.seed + w.rank)
    vocab = int(getattr(config, "vocab_size", model.vocab_size))
    ids = torch.randint(0, vocab, (case.micro_batch, case.seq_len), device=w.device, generator=generator)
    attention_context = _attention_context(w, settings)
    sync_last_only = settings.grad_sync == "last_micro_batch" and case.grad_accum > 1

    def step() -> None:
        with attention_context():
            for i in range(case.grad_accum):
                if sync_last_only:
                    net.set_requires_gradient_sync(i == case.grad_accum - 1)
                loss = net(input_ids=ids, labels=ids).loss
                (loss / case.grad_accum).backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)

    try:
        step()
    except RuntimeError as e:
        # Fused AdamW can refuse at its first step (DTensor or device support): foreach then.
        if impl != "fused" or _is_out_of_memory(torch, e):
            raise
        net.zero_grad(set_to_none=True)
        optimizer = adamw(foreach=True)
        impl = f"foreach (fused refused: {' '.join(str(e).split())[:120]})"
        step()
    for _ in range(settings.warmup - 1):
        step()
    w.synchronize()
    if w.cuda:
        w.torch.cuda.reset_peak_memory_stats(w.device)
    times: list[float] = []
    for _ in range(settings.steps):
        if w.world_size > 1:
            w.dist.barrier()  # every rank starts the step together: its time is the step's
        w.synchronize()
        t0 = time.perf_counter()
        step()
        w.synchronize()
        times.append(time.perf_counter() - t0)
    allocated = reserved = None
    if w.cuda:
        allocated = float(torch.cuda.max_memory_allocated(w.device)) / _GIB - base_allocated
        reserved = float(torch.cuda.max_memory_reserved(w.device)) / _GIB - base_reserved
    return times, allocated, reserved, parameters, impl
