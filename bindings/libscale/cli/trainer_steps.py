"""``libscale trainer-steps``: real FSDP2 training steps of a model cut to a few decoder
layers, written as a ``libscale.measurements/2`` file for ``libscale fit``."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from typing import Any

import libscale

from .. import _format, trainer
from .._files import check_target, write_atomic
from ._common import CliError, add_format, emit_table, int_list, integer

#: The subcommand's name (the module is trainer_steps: a name cannot hold '-').
NAME = "trainer-steps"

COLUMNS = [
    _format.Column("layers", "layers", _format.integer),
    _format.Column("seq_len", "seq len tokens", _format.integer),
    _format.Column("micro_batch", "micro-batch seqs", _format.integer),
    _format.Column("grad_accum", "grad accum", _format.integer),
    _format.Column("activation_checkpointing", "checkpointing", _format.text, "<"),
    _format.Column("step_time_s", "step s", _format.fixed(4)),
    _format.Column("tokens_per_s_per_gpu", "tokens/s/GPU", _format.fixed(0)),
    _format.Column("memory_allocated_gib", "allocated GiB", _format.fixed(2)),
    _format.Column("memory_reserved_gib", "reserved GiB", _format.fixed(2)),
    _format.Column("status", "status", _format.text, "<"),
]


def _choices(valid: tuple[str, ...]) -> Any:
    """A comma list of some of ``valid`` (argparse type)."""
    def parse(text: str) -> list[str]:
        items = [s.strip() for s in text.split(",")]
        bad = [s for s in items if s not in valid]
        if bad:
            raise argparse.ArgumentTypeError(f"'{bad[0]}' is not one of {', '.join(valid)} (a comma-separated list "
                                             f"of them, e.g. {','.join(valid)})")
        return list(dict.fromkeys(items))
    return parse


def add_parser(sub: Any) -> None:
    p = sub.add_parser(NAME, help="measure real FSDP2 training steps (PyTorch) and write step records",
                       description="Train a model cut to a few decoder layers with PyTorch FSDP2 (fully_shard per "
                                   "decoder layer and on the root, bf16 compute, fp32 parameters, fused AdamW) on "
                                   "random tokens, over a grid of layers x sequence length x micro-batch x "
                                   "checkpointing x gradient accumulation, and write the median step time and peak "
                                   "memory of each case as libscale.measurements/2 step records for `libscale fit`. "
                                   "Cases that run out of memory are listed under 'skipped'. Needs torch and "
                                   "transformers; one process per GPU under torchrun, else one process (the CPU "
                                   "with gloo where there is no GPU: tiny models only).")
    p.add_argument("--model", required=True,
                   help="catalog name (see `libscale models`), a Hugging Face config.json path or a Hub id org/name")
    p.add_argument("--hardware", required=True,
                   help="catalog name (see `libscale hardware`) or libscale.hardware/1 JSON file the records are for "
                        "(the GPU the steps run on)")
    p.add_argument("-o", "--output", required=True, metavar="OUT_JSON",
                   help="measurement file to write (atomically, by rank 0)")
    g = p.add_argument_group("the grid (each a comma-separated list; every combination runs)")
    g.add_argument("--layers", type=int_list, default=[4], metavar="N,...",
                   help="decoder layers the model is cut to (default 4)")
    g.add_argument("--seq-len", type=int_list, default=[2048], metavar="TOKENS,...",
                   help="tokens per sequence (default 2048)")
    g.add_argument("--micro-batch", type=int_list, default=[1], metavar="SEQS,...",
                   help="sequences per micro-batch per GPU (default 1)")
    g.add_argument("--activation-checkpointing", type=_choices(trainer.ACTIVATION_CHECKPOINTING), default=["full"],
                   metavar="{none,full},...", help="none, or full (transformers' checkpointing of every decoder "
                                                   "layer) (default full)")
    g.add_argument("--grad-accum", type=int_list, default=[1], metavar="STEPS,...",
                   help="micro-batches per optimizer step (default 1)")
    s = p.add_argument_group("what every case shares")
    s.add_argument("--reduce-dtype", choices=trainer.REDUCE_DTYPES, default="fp32",
                   help="FSDP2 gradient reduction dtype: fp32 (torchtitan's default) or bf16 (reduce_dtype unset) "
                        "(default fp32)")
    s.add_argument("--grad-sync", choices=trainer.GRAD_SYNC, default="every_micro_batch",
                   help="under --grad-accum: reduce-scatter gradients after every micro-batch, or only the last "
                        "(default every_micro_batch)")
    s.add_argument("--attention-kernel", choices=trainer.ATTENTION_KERNELS, default="flash2",
                   help="SDPA pinned to PyTorch's FlashAttention-2 or cuDNN backend, or transformers' eager attention "
                        "(default flash2)")
    s.add_argument("--warmup", type=integer, default=2, metavar="STEPS",
                   help="untimed steps first, at least 1 (default 2)")
    s.add_argument("--steps", type=integer, default=4, metavar="STEPS",
                   help="timed steps; the record's step time is their median (default 4)")
    s.add_argument("--seed", type=integer, default=0, metavar="N", help="seed of the weights and tokens (default 0)")
    s.add_argument("--series", default=None, metavar="NAME",
                   help="the records' series (default HARDWARE-fsdp2-transformers-MODEL)")
    add_format(p)
    p.set_defaults(run=run)


def _settings(a: argparse.Namespace) -> trainer.Settings:
    for flag, value in (("--warmup", a.warmup), ("--steps", a.steps)):
        if value < 1:
            raise CliError(f"{flag}: {value} is not a step count; give an integer >= 1")
    if a.seed < 0:
        raise CliError(f"--seed: {a.seed}; give an integer >= 0")
    if a.series is not None and not a.series.strip():
        raise CliError("--series: empty; give a name or leave the flag out")
    return trainer.Settings(model=a.model, hardware=a.hardware, reduce_dtype=a.reduce_dtype, grad_sync=a.grad_sync,
                            attention_kernel=a.attention_kernel, warmup=a.warmup, steps=a.steps, seed=a.seed,
                            series=a.series)


def preflight(settings: trainer.Settings, cases: list[trainer.Case], gpus: int) -> None:
    """Every case as `libscale fit` will read it, before any step runs: the model and its
    cut, the hardware, and the configuration (a sequence longer than the model's positions,
    a global batch past a token count). CliError names the flag."""
    try:
        model = trainer.model_config(settings.model)
    except (libscale.LibscaleError, ValueError, OSError) as e:
        raise CliError(f"--model {settings.model}: {e}") from None
    try:
        hardware = libscale.hardware(settings.hardware)
    except (libscale.LibscaleError, ValueError, OSError) as e:
        raise CliError(f"--hardware {settings.hardware}: {e}") from None
    for case in cases:
        try:
            overrides = model.overrides(case.layers)
        except ValueError as e:
            raise CliError(f"--layers {case.layers}: {e}") from None
        spec = libscale._core.io.find_model(model.name, overrides)
        try:
            # The flags' strings, checked by the core as the option table declares them.
            config: dict[str, Any] = {
                "gpus": gpus, "seq_len": case.seq_len, "micro_batch": case.micro_batch,
                "global_batch_tokens": gpus * case.micro_batch * case.seq_len * case.grad_accum,
                "activation_checkpointing": case.activation_checkpointing, "reduce_dtype": settings.reduce_dtype,
                "grad_sync": settings.grad_sync, "attention_kernel": settings.attention_kernel,
                "master_weights": "fp32"}
            libscale.estimate_step(spec, hardware, **config)
        except ValueError as e:
            raise CliError(f"case {case.label}: {e}") from None


def _check_output(path: str) -> None:
    """The output can be written: refused now rather than after the steps have run."""
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise CliError(f"-o {path}: the folder {directory} does not exist")
    target = check_target(path, "the measurement file")
    directory = os.path.dirname(os.path.abspath(target))
    if not os.access(directory, os.W_OK):
        raise CliError(f"-o {path}: the folder {directory} is not writable")


def emit(doc: dict[str, Any], rows: list[dict[str, Any]], fmt: str, output: str) -> None:
    """The file's document (json), one row per case (csv), or the table and where it went."""
    def text() -> str:
        return (f"{_format.text_table(COLUMNS, rows)}\n\nwrote {output}: {len(doc['records'])} step records, "
                f"{len(doc['skipped'])} cases skipped")
    emit_table(fmt, doc, COLUMNS, rows, text)


def run(a: argparse.Namespace) -> int:
    settings = _settings(a)
    cases = trainer.grid(a.layers, a.seq_len, a.micro_batch, a.activation_checkpointing, a.grad_accum)
    _check_output(a.output)
    # torchrun sets WORLD_SIZE; the pre-flight needs the GPU count the records will carry.
    gpus = int(os.environ.get("WORLD_SIZE", "1") or 1)
    preflight(settings, cases, gpus)
    try:
        trainer.require_torch()
    except trainer.TorchMissingError as e:
        raise CliError(str(e)) from None
    # One line per case on stderr (a log of a long run, not a bar: shown off a terminal too).
    progress = None if getattr(a, "quiet", False) else (lambda line: print(line, file=sys.stderr, flush=True))
    result = trainer.run(settings, cases, progress=progress)
    if result.rank != 0:
        return 0
    command = "libscale " + " ".join(shlex.quote(s) for s in getattr(a, "argv", []))
    doc = trainer.document(result, command=command)
    trainer.check(doc, a.output)  # what `libscale fit` reads, read back before it is written
    write_atomic(a.output, (json.dumps(doc, indent=1, allow_nan=False) + "\n").encode())
    emit(doc, trainer.table_rows(result), a.output_format, a.output)
    return 0
