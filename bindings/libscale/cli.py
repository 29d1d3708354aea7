"""The ``libscale`` command line.

    libscale project  --model M --hardware H --gpus 4,8,16 [--calibration C [--quantiles]] [options]
                      [--require-fit] [--json]
    libscale sweep    --model M --hardware H --gpus 8,16 --micro-batch 1,2 --seq-len 4096,8192 [--json]
    libscale solve    --model M --hardware H (--deadline-h H | --max-gpu-hours G | --max-cost-usd C) [--json]
    libscale models   [--json]
    libscale hardware [NAME] [--json]
    libscale gate     --lengths FILE --world-size N --seq-len T [--packing bfd] [options] [--json]
    libscale fit      MEASUREMENTS... -o calibration.json [--hardware H] [--format F] [--relative-error E]
                      [config] [--json]
    libscale triage   TRACE [--hardware H] [--calibration FILE] [--format auto|nvidia-smi|dcgm]
                      [--checkpoint-interval-s S --checkpoint-duration-s D] [--json]
    libscale watch    [--source nvml | --nvidia-smi-csv FILE [--follow | --speed N] | --dcgm URL|FILE]
                      [--kill-on deadlock] [--dry-run] [--hook CMD] [--prometheus-textfile FILE]
                      (--pid PID | -- CMD ARGS...)

Tables for people by default (every column header carries its unit), one JSON object
with ``--json``. Bad input exits with status 2 and one line on stderr,
``libscale: error: ...`` (and ``fit`` writes no file). A GPU count that does not fit in
memory is not bad input: ``project``, ``sweep`` and ``solve`` show it (the "fits" column,
and what would fit under the table) and exit 0, unless ``--require-fit`` makes it exit 2
with the DoesNotFitError message. ``solve`` exits with 1 when no GPU count meets the target; ``gate`` exits with 1 when the ranks' micro-batch counts differ.
``watch`` exits with the job's status, or 3 when it terminated the job after an alert.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from typing import Any, Callable, NoReturn, Optional, Sequence

import numpy as np

from . import _api, _core, _format
from . import plan as _plan
from ._results import to_jsonable

PROG = "libscale"


class CliError(Exception):
    """Bad command-line input: reported as one line, exit status 2."""


def _one_line(message: str) -> str:
    return " ".join(str(message).split())


def _fail(message: str) -> NoReturn:
    sys.stderr.write(f"{PROG}: error: {_one_line(message)}\n")
    sys.stderr.flush()
    raise SystemExit(2)


class _Parser(argparse.ArgumentParser):
    """argparse, but errors are a single line (no usage block) and name the option
    the way it was typed: '--gpus: ...' rather than 'argument --gpus: ...'."""

    def error(self, message: str) -> NoReturn:  # type: ignore[override]
        _fail(re.sub(r"^argument ([^:]+): ", r"\1: ", message))


# --- option value parsers ------------------------------------------------------------


def _int_list(text: str) -> list[int]:
    items = [s.strip() for s in text.split(",")]
    if not items or any(not re.fullmatch(r"\+?\d+", s) or int(s) <= 0 for s in items):
        raise argparse.ArgumentTypeError(
            f"'{text}' is not a comma-separated list of positive integers (e.g. 4,8,16)")
    return [int(s) for s in items]


def _integer(text: str) -> int:
    if not re.fullmatch(r"[+-]?\d+", text.strip()):
        raise argparse.ArgumentTypeError(f"'{text}' is not an integer")
    return int(text)


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number (e.g. 1e9)") from None
    return value


def _json_object(text: str) -> dict[str, Any]:
    source = text
    if not text.lstrip().startswith("{") and os.path.exists(text):
        with open(text, encoding="utf-8") as f:
            source = f.read()
    try:
        value = json.loads(source)
    except json.JSONDecodeError as e:
        raise argparse.ArgumentTypeError(f"malformed JSON at line {e.lineno}, column {e.colno}: {e.msg}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError("expected a JSON object of field: value pairs")
    return value


# --- parser --------------------------------------------------------------------------


def _add_target(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", required=True,
                   help="catalog name (see `libscale models`) or a path to a Hugging Face config.json")
    p.add_argument("--hardware", required=True,
                   help="catalog name (see `libscale hardware`) or a path to a libscale.hardware/1 JSON file")


def _add_config(p: argparse.ArgumentParser, *, lists: bool = False) -> None:
    """Training-configuration options (lists=True: sweep axes take comma lists)."""
    if not lists:
        p.add_argument("--gpus-per-node", type=_integer, default=None, metavar="N",
                       help="GPUs per node (default: the hardware's)")
        p.add_argument("--seq-len", type=_integer, default=8192, metavar="TOKENS",
                       help="sequence length, tokens (default 8192)")
        p.add_argument("--micro-batch", type=_integer, default=1, metavar="SEQS",
                       help="sequences per micro-batch per GPU (default 1)")
        p.add_argument("--global-batch-tokens", type=_integer, default=None, metavar="TOKENS",
                       help="tokens per optimizer step, kept fixed in strong scaling "
                            "(default: the smallest GPU count with no accumulation)")
    p.add_argument("--strategy", default="fsdp",
                   help="fsdp (= zero3, full_shard), hsdp, ddp, zero1, zero2 (default fsdp)")
    p.add_argument("--activation-checkpointing", default="full", metavar="{none,selective,full}",
                   help="activation checkpointing (default full)")
    p.add_argument("--no-reshard-after-forward", dest="reshard_after_forward", action="store_false",
                   help="keep each unit's parameters gathered from forward to backward (FSDP2 "
                        "reshard_after_forward=False)")
    p.add_argument("--reduce-dtype", default="bf16", metavar="{bf16,fp32}",
                   help="gradient reduction dtype (default bf16)")
    p.add_argument("--grad-sync", default="every_micro_batch", metavar="{every_micro_batch,last_micro_batch}",
                   help="when gradients are reduced under accumulation (default every_micro_batch)")
    p.add_argument("--attention-span-tokens", type=_number, default=None, metavar="TOKENS",
                   help="mean attended span, tokens (default: causal, seq_len / 2)")
    p.add_argument("--precision", default="bf16", metavar="{bf16,fp8}",
                   help="decoder-layer GEMMs in bf16 or fp8 (torchao Float8Linear, tensorwise scaling; needs fp8 "
                        "tensor cores) (default bf16)")
    p.add_argument("--fp8-all-gather", action="store_true",
                   help="FSDP all-gathers fp8 weights (torchtitan enable_fsdp_float8_all_gather; needs --precision "
                        "fp8 and fsdp or hsdp)")
    p.add_argument("--optimizer", default="adamw", metavar="{adamw,adamw_8bit,sgd,adafactor}",
                   help="optimizer state per parameter (default adamw)")
    p.add_argument("--master-weights", default="fp32", metavar="{fp32,bf16}",
                   help="fp32 master weights with bf16 compute copies, or bf16 weights updated in place "
                        "(default fp32)")
    p.add_argument("--loss-kernel", default="eager", metavar="{eager,fused}",
                   help="eager cross-entropy on fp32 logits, or a fused loss that never materializes them "
                        "(default eager)")
    p.add_argument("--attention-kernel", default="flash2",
                   metavar="{flash2,flash3,cudnn,flash1,flash_triton,llm_foundry_triton,xformers,eager}",
                   help="fused-attention implementation (default flash2)")
    p.add_argument("--torch-compile", action="store_true", help="torch.compile of each decoder layer")
    p.add_argument("--checkpoint-every", type=_integer, default=1, metavar="K",
                   help="activation checkpointing on every K-th decoder layer only (default 1: every layer)")
    p.add_argument("--data", type=_json_object, default=None, metavar="JSON",
                   help="input pipeline as a JSON object (or file) of DataPipeline fields, e.g. "
                        "'{\"corpus_in_page_cache\": false, \"storage_read_gbps_per_node\": 2}'")
    p.add_argument("--checkpoint-every-steps", type=_integer, default=0, metavar="STEPS",
                   help="write a checkpoint every STEPS optimizer steps (default 0: never)")
    p.add_argument("--checkpoint-write-gbps", type=_number, default=0.0, metavar="GB/S",
                   help="checkpoint write bandwidth per node, GB/s")


def _add_require_fit(p: argparse.ArgumentParser) -> None:
    p.add_argument("--require-fit", action="store_true",
                   help="exit with status 2 (and say what would fit) when a configuration does not fit in memory, "
                        "instead of showing it")


def _add_calibration(p: argparse.ArgumentParser) -> None:
    p.add_argument("--calibration", default=None, metavar="PATH_OR_NAME",
                   help="a calibration file (from `libscale fit`) or a shipped one by name, e.g. "
                        "derived-b300-qwen3-32b (default: the hardware's uncalibrated default)")


def _add_job(p: argparse.ArgumentParser) -> None:
    p.add_argument("--scaling", default="strong", metavar="{strong,weak}",
                   help="strong: global batch fixed; weak: per-GPU batch fixed (default strong)")
    p.add_argument("--tokens", type=_number, default=1e9, help="tokens per epoch (default 1e9)")
    p.add_argument("--epochs", type=_number, default=1.0, help="epochs (default 1)")
    p.add_argument("--price-per-gpu-hour", type=_number, default=None, metavar="USD",
                   help="USD per GPU-hour (default: the hardware's, an assumption to override)")


def _add_triage(p: argparse.ArgumentParser) -> None:
    """Bands and detector options shared by `triage` and `watch`."""
    p.add_argument("--hardware", default=None,
                   help="catalog name or hardware JSON file whose power bands apply (default h100; `watch` "
                        "on NVML: the GPU's own name when it is in the catalog)")
    p.add_argument("--calibration", default=None, metavar="FILE",
                   help="a calibration file with a power_bands section (measured bands; default: the "
                        "hardware's default, uncalibrated bands)")
    p.add_argument("--checkpoint-interval-s", type=_number, default=None, metavar="S",
                   help="declared checkpoint saves every S seconds from the start (needs "
                        "--checkpoint-duration-s)")
    p.add_argument("--checkpoint-duration-s", type=_number, default=None, metavar="D",
                   help="how long one checkpoint save lasts, s (also sets the deadlock threshold "
                        "T = max(2 D, 60 s); default T 600 s)")
    p.add_argument("--deadlock-after-s", type=_number, default=None, metavar="T",
                   help="deadlock threshold T, s (default: from --checkpoint-duration-s, else 600)")
    p.add_argument("--util-threshold-pct", type=_number, default=90.0, metavar="PCT",
                   help="utilization at or above which near-idle watts mean a hang (default 90)")


def build_parser() -> argparse.ArgumentParser:
    from . import __version__

    parser = _Parser(prog=PROG, description="Strong-scaling, GPU-hour and cost calculator for FSDP / ZeRO "
                                            "training.")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser("project", help="throughput, wall time, GPU-hours, cost and energy per GPU count",
                       description="Project a training job over GPU counts.")
    _add_target(p)
    p.add_argument("--gpus", type=_int_list, required=True, metavar="LIST", help="GPU counts, e.g. 4,8,16")
    _add_config(p)
    _add_job(p)
    _add_calibration(p)
    p.add_argument("--quantiles", action="store_true",
                   help="P10 / P90 of each projected figure from the calibration's covariance")
    p.add_argument("--samples", type=_integer, default=2000, metavar="N",
                   help="samples for --quantiles (default 2000)")
    p.add_argument("--seed", type=_integer, default=None, metavar="SEED",
                   help="random seed for --quantiles (default: a fixed seed)")
    _add_require_fit(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_cmd_project)

    p = sub.add_parser("sweep", help="vectorized step estimates over the cartesian product of lists",
                       description="Evaluate every combination of the given lists (one C++ call).")
    _add_target(p)
    p.add_argument("--gpus", type=_int_list, required=True, metavar="LIST", help="GPU counts, e.g. 8,16,32")
    p.add_argument("--micro-batch", type=_int_list, default=[1], metavar="LIST",
                   help="sequences per micro-batch per GPU (default 1)")
    p.add_argument("--seq-len", type=_int_list, default=[8192], metavar="LIST",
                   help="sequence lengths, tokens (default 8192)")
    p.add_argument("--global-batch-tokens", type=_int_list, default=None, metavar="LIST",
                   help="tokens per optimizer step (default: no accumulation)")
    p.add_argument("--gpus-per-node", type=_integer, default=None, metavar="N",
                   help="GPUs per node (default: the hardware's)")
    _add_config(p, lists=True)
    _add_calibration(p)
    _add_require_fit(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_cmd_sweep)

    p = sub.add_parser("gate", help="pre-launch packing gate: equal micro-batch counts on every rank, or exit 1",
                       description="Pack the per-sample token lengths as the trainer does, shard them as "
                                   "DistributedSampler does and check that every rank runs the same number of "
                                   "micro-batches. Exit status 0 on PASS, 1 on FAIL (the run would hang at the "
                                   "epoch end), 2 on bad input: `libscale gate ... && srun ...` guards a launch.")
    p.add_argument("--lengths", required=True, metavar="FILE",
                   help="per-sample token lengths: .npy (uint16/32/64, int32/64), .jsonl (see --length-field) "
                        "or raw little-endian integers (give --dtype)")
    p.add_argument("--world-size", type=_integer, required=True, metavar="RANKS", help="data-parallel ranks")
    p.add_argument("--seq-len", type=_integer, required=True, metavar="TOKENS", help="packed sequence length")
    p.add_argument("--packing", default="bfd", metavar="NAME",
                   help="bfd (TRL, default), bfd_split, wrapped, ffd (NeMo), greedy / greedy_split (torchtune), "
                        "knapsack (LLaMA-Factory), multipack (Axolotl), none; full names such as trl_bfd too")
    p.add_argument("--micro-batch", type=_integer, default=1, metavar="SEQS",
                   help="packed sequences per micro-batch per rank (default 1)")
    p.add_argument("--grad-accum", type=_integer, default=1, metavar="STEPS",
                   help="micro-batches per optimizer step (default 1)")
    p.add_argument("--shuffle-seed", type=_integer, default=None, metavar="SEED",
                   help="DistributedSampler(shuffle=True, seed=SEED) (default: not shuffled)")
    p.add_argument("--drop-last", action="store_true", help="DistributedSampler(drop_last=True)")
    p.add_argument("--no-runtime-equalize", dest="runtime_equalize", action="store_false",
                   help="multipack: the loop does not truncate ranks to the minimum at run time "
                        "(Axolotl before its equalization, or a custom loop)")
    p.add_argument("--shard-before-packing", action="store_true",
                   help="each rank packs its own DistributedSampler shard (an on-the-fly per-rank "
                        "packer) instead of the sampler sharding the packed dataset")
    p.add_argument("--dtype", default=None, metavar="DTYPE",
                   help="item type of a raw --lengths file: uint16, uint32, uint64, int32, int64")
    p.add_argument("--length-field", default="length", metavar="NAME",
                   help="the integer field of a .jsonl --lengths file (default length)")
    p.add_argument("--watchdog-s", type=_number, default=600.0, metavar="SECONDS",
                   help="hang detection time for the GPU-hours at risk (default 600, the NCCL watchdog)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_cmd_gate)

    p = sub.add_parser("solve", help="the cheapest GPU count for a deadline, or the fastest within a budget",
                       description="Choose a GPU count: the cheapest that meets --deadline-h, or the fastest "
                                   "within --max-gpu-hours / --max-cost-usd. Exit status 1 when none does.")
    _add_target(p)
    p.add_argument("--gpus", type=_int_list, default=list(_plan.DEFAULT_CANDIDATES), metavar="LIST",
                   help="candidate GPU counts (default "
                        + ",".join(str(g) for g in _plan.DEFAULT_CANDIDATES) + ")")
    p.add_argument("--deadline-h", type=_number, default=None, metavar="HOURS", help="wall-time deadline, hours")
    p.add_argument("--max-gpu-hours", type=_number, default=None, metavar="GPU_HOURS", help="GPU-hour budget")
    p.add_argument("--max-cost-usd", type=_number, default=None, metavar="USD", help="cost budget, USD")
    _add_config(p)
    _add_job(p)
    _add_calibration(p)
    _add_require_fit(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_cmd_solve)

    p = sub.add_parser("models", help="the shipped models", description="List the shipped models.")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_cmd_models)

    p = sub.add_parser("hardware", help="the shipped hardware profiles",
                       description="List the shipped hardware, or show one profile and its default calibration.")
    p.add_argument("name", nargs="?", default=None, help="a catalog name or a hardware JSON file")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_cmd_hardware)

    p = sub.add_parser("triage", help="offline power triage of an nvidia-smi / dcgm-exporter trace",
                       description="Classify GPU power into compute / communication / data_starvation / "
                                   "checkpoint_or_deadlock / idle, and report deadlock, data-starvation and "
                                   "straggler alerts with timestamps. Alerts are reported, not errors (exit 0).")
    p.add_argument("trace", metavar="TRACE", help="nvidia-smi --query-gpu CSV log or dcgm-exporter text")
    p.add_argument("--format", default="auto", choices=["auto", "nvidia-smi", "dcgm"],
                   help="trace format (default auto)")
    _add_triage(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_cmd_triage)

    p = sub.add_parser(
        "watch", help="watch a job's GPU power live and act on a hang",
        usage="libscale watch [source] [options] (--pid PID | -- CMD [ARGS ...])",
        description="Launch a command (or attach to a PID) and watch its GPUs' power: a JSON line per phase "
                    "change and alert, an optional Prometheus textfile and hook, and on a deadlock SIGTERM to "
                    "the job's process group, SIGKILL after --grace-s. Never acts on missing data. Exit "
                    "status: the job's own; 3 when the watcher terminated it; 2 on bad input (e.g. no NVML).")
    src = p.add_argument_group("source (default: NVML, every GPU)")
    x = src.add_mutually_exclusive_group()
    x.add_argument("--source", choices=["nvml"], default=None, help="NVML through libnvidia-ml.so.1 (the default)")
    x.add_argument("--nvidia-smi-csv", default=None, metavar="FILE",
                   help="an nvidia-smi --query-gpu=timestamp,index,power.draw,utilization.gpu --format=csv log: "
                        "replayed at --speed, or followed as it grows with --follow")
    x.add_argument("--dcgm", default=None, metavar="URL_OR_FILE",
                   help="dcgm-exporter: http://localhost:9400/metrics scraped every poll, or a file of scrapes "
                        "replayed at --speed")
    src.add_argument("--gpus", type=_int_list, default=[], metavar="LIST", help="NVML GPU indices (default all)")
    src.add_argument("--nvml-power", default="average", choices=["average", "instant"],
                     help="NVML power reading: the 1 s average (default) or the instantaneous field 186")
    src.add_argument("--follow", action="store_true", help="follow a growing --nvidia-smi-csv log (tail -f)")
    src.add_argument("--speed", type=_number, default=1.0, metavar="N",
                     help="replay a recorded trace at N x real time (default 1)")
    src.add_argument("--interval-s", type=_number, default=0.5, metavar="S", help="poll interval, s (default 0.5)")
    src.add_argument("--stale-after-s", type=_number, default=5.0, metavar="S",
                     help="a GPU without samples for S seconds is lost; no action while any is (default 5)")
    _add_triage(p)
    p.add_argument("--checkpoint-marker", default=None, metavar="FILE",
                   help="a file the trainer touches when a checkpoint save starts; the detector is silent for "
                        "--checkpoint-duration-s after each touch")
    act = p.add_argument_group("actions")
    act.add_argument("--kill-on", default="deadlock", metavar="KINDS",
                     help="alert kinds that terminate the job: comma list of deadlock, data_starvation, "
                          "straggler, or none (default deadlock)")
    act.add_argument("--grace-s", type=_number, default=30.0, metavar="S",
                     help="seconds between SIGTERM and SIGKILL (default 30)")
    act.add_argument("--dry-run", action="store_true",
                     help="log the signals it would send and send none (hooks and files are still written)")
    act.add_argument("--hook", default=None, metavar="CMD",
                     help="shell command run on each alert, with LIBSCALE_EVENT (JSON), LIBSCALE_ALERT_KIND, "
                          "LIBSCALE_ALERT_MESSAGE and LIBSCALE_JOB_PID in its environment")
    act.add_argument("--prometheus-textfile", default=None, metavar="FILE",
                     help="write phase, watts, seconds in phase and alert counts here (atomically) for "
                          "node_exporter's textfile collector")
    act.add_argument("--prometheus-interval-s", type=_number, default=5.0, metavar="S",
                     help="seconds between textfile writes (default 5)")
    act.add_argument("--events", default="-", metavar="FILE",
                     help="where the JSON lines go: a file (appended) or - for stdout (default)")
    p.add_argument("--pid", type=_integer, default=None, help="attach to a running process instead of launching")
    p.add_argument("command", nargs=argparse.REMAINDER, metavar="-- CMD ARGS",
                   help="the command to launch and watch, after --")
    p.set_defaults(func=_cmd_watch)

    p = sub.add_parser("fit", help="fit a calibration to measurements or trainer logs",
                       description="Fit the step model's coefficients to measurement records (JSON, schema "
                                   "libscale.measurements/2 or /1: GEMM, attention, bandwidth, collective and "
                                   "step records) or trainer logs (Hugging Face, torchtitan, CSV), by maximum a "
                                   "posteriori against the hardware's default prior, and write a calibration "
                                   "file for `project --calibration`. On any error no file is written.")
    p.add_argument("measurements", nargs="+", metavar="MEASUREMENTS",
                   help="measurement JSON files and/or trainer logs")
    p.add_argument("-o", "--output", required=True, metavar="CALIBRATION_JSON",
                   help="calibration file to write (atomically)")
    p.add_argument("--hardware", default=None,
                   help="hardware to fit (default: the one the records name, when they all agree)")
    p.add_argument("--format", default="auto", choices=("auto", "json") + tuple(f for f in _LOG_FORMATS),
                   metavar="{auto,json,hf,torchtitan,csv}",
                   help="how to read the files (default auto: JSON measurement files as such, logs by content)")
    g = p.add_argument_group("configuration of logs (what the log does not say)")
    g.add_argument("--model", default=None, help="catalog name or config.json path")
    g.add_argument("--gpus", type=_integer, default=None, metavar="N", help="GPUs of the run")
    g.add_argument("--gpus-per-node", type=_integer, default=None, metavar="N")
    g.add_argument("--seq-len", type=_integer, default=None, metavar="TOKENS")
    g.add_argument("--micro-batch", type=_integer, default=None, metavar="SEQS")
    g.add_argument("--grad-accum", type=_integer, default=None, metavar="STEPS")
    g.add_argument("--activation-checkpointing", default=None, metavar="{none,selective,full}")
    g.add_argument("--strategy", default=None, help="fsdp, hsdp, ddp, zero1, zero2")
    p.add_argument("--no-overhead", dest="fit_overhead", action="store_false",
                   help="do not fit a fixed per-step overhead")
    p.add_argument("--relative-error", type=_number, default=0.03, metavar="E",
                   help="relative error (1 sd) of each record that states none (default 0.03)")
    p.add_argument("--json", action="store_true", help="print the fit result as one JSON object")
    p.set_defaults(func=_cmd_fit)

    p = sub.add_parser("validate", help="the step model against the shipped published step timings",
                       description="Calibrate each series of published step timings (one table of one codebase "
                                   "on one GPU) on its first row, predict the other rows, and report the errors by "
                                   "what differs from the calibration row (docs/model.md, 'Validation').")
    p.add_argument("measurements", nargs="*", metavar="MEASUREMENTS",
                   help="measurement JSON files (default: calibration/data/measurements, shipped)")
    p.add_argument("--rows", action="store_true", help="also print every row")
    p.add_argument("--json", action="store_true", help="print the report as one JSON object")
    p.set_defaults(func=_cmd_validate)
    return parser


# --- commands ------------------------------------------------------------------------


def _config_kwargs(a: argparse.Namespace) -> dict[str, Any]:
    return dict(
        strategy=a.strategy, activation_checkpointing=a.activation_checkpointing,
        reshard_after_forward=a.reshard_after_forward, reduce_dtype=a.reduce_dtype, grad_sync=a.grad_sync,
        attention_span_tokens=a.attention_span_tokens, precision=a.precision, fp8_all_gather=a.fp8_all_gather,
        optimizer=a.optimizer, master_weights=a.master_weights, loss_kernel=a.loss_kernel,
        attention_kernel=a.attention_kernel, torch_compile=a.torch_compile, checkpoint_every=a.checkpoint_every,
        data=a.data,
        checkpoint={"every_steps": a.checkpoint_every_steps, "write_gbps_per_node": a.checkpoint_write_gbps},
    )


def _scalar_kwargs(a: argparse.Namespace) -> dict[str, Any]:
    return dict(gpus_per_node=a.gpus_per_node, seq_len=a.seq_len, micro_batch=a.micro_batch,
                global_batch_tokens=a.global_batch_tokens, **_config_kwargs(a))


def _job_kwargs(a: argparse.Namespace) -> dict[str, Any]:
    return dict(scaling=a.scaling, tokens=a.tokens, epochs=a.epochs, price_per_gpu_hour_usd=a.price_per_gpu_hour)


def _calibration_kwargs(a: argparse.Namespace) -> dict[str, Any]:
    return {"calibration": a.calibration} if getattr(a, "calibration", None) is not None else {}


def _print_json(obj: Any) -> None:
    print(json.dumps(to_jsonable(obj), indent=2, allow_nan=False))


def _cmd_project(a: argparse.Namespace) -> int:
    extra: dict[str, Any] = {}
    if a.quantiles:
        extra = dict(quantiles=True, samples=a.samples, seed=a.seed)
    elif a.seed is not None or a.samples != 2000:
        raise CliError("--samples and --seed apply only with --quantiles")
    p = _plan.project(a.model, a.hardware, gpus=a.gpus, **_job_kwargs(a), **_scalar_kwargs(a),
                     **_calibration_kwargs(a), require_fit=a.require_fit, **extra)
    if a.json:
        _print_json(p.to_dict())
        return 0
    print(p.text())
    return 0


def _cmd_sweep(a: argparse.Namespace) -> int:
    axes = {"gpus": a.gpus, "micro_batch": a.micro_batch, "seq_len": a.seq_len}
    if a.global_batch_tokens is not None:
        axes["global_batch_tokens"] = a.global_batch_tokens
    grids = np.meshgrid(*[np.asarray(v, dtype=np.int64) for v in axes.values()], indexing="ij")
    r = _plan.sweep(a.model, a.hardware, gpus_per_node=a.gpus_per_node, **dict(zip(axes, grids)),
                   **_config_kwargs(a), **_calibration_kwargs(a))
    rows = r.records()
    if a.require_fit:
        misfit = next((x for x in rows if x["issue"] == 0 and not x["fits"]), None)
        if misfit is not None:  # the one estimate again, for the core's message
            _plan.estimate_step(a.model, a.hardware, **{k: misfit[k] or None for k in _plan.SWEEP_AXES},
                               **_config_kwargs(a), **_calibration_kwargs(a), require_fit=True)
    if a.json:
        _print_json(r.to_dict())
        return 0
    print(r.text())
    return 0


def _cmd_gate(a: argparse.Namespace) -> int:
    raw = a.dtype is not None
    g = _api.gate(a.lengths, world_size=a.world_size, seq_len=a.seq_len, packing=a.packing,
                  micro_batch=a.micro_batch, grad_accum=a.grad_accum, shuffle_seed=a.shuffle_seed,
                  drop_last=a.drop_last, watchdog_s=a.watchdog_s, runtime_equalize=a.runtime_equalize,
                  shard_before_packing=a.shard_before_packing, dtype=a.dtype, field=a.length_field, format="raw" if raw else "auto")
    d = g.to_dict()
    if a.json:
        _print_json({"schema": "libscale.gate/1", **d})
    else:
        print(_format.gate_header(d))
        print()
        print(_format.text_table(_format.GATE_COLUMNS, _format.gate_rank_rows(d)))
        print()
        print(_format.gate_verdict(d))
    sys.stdout.flush()
    return 0 if g.passed else 1


def _cmd_solve(a: argparse.Namespace) -> int:
    budget = a.max_gpu_hours is not None or a.max_cost_usd is not None
    if a.deadline_h is not None and budget:
        raise CliError("give either --deadline-h or a budget (--max-gpu-hours / --max-cost-usd), not both")
    kwargs = dict(gpus=a.gpus, **_job_kwargs(a), **_scalar_kwargs(a), **_calibration_kwargs(a),
                  require_fit=a.require_fit)
    if a.deadline_h is not None:
        s = _plan.solve_deadline(a.model, a.hardware, deadline_h=a.deadline_h, **kwargs)
        goal = f"the cheapest GPU count that finishes within {a.deadline_h:g} h"
    elif budget:
        s = _plan.solve_budget(a.model, a.hardware, max_gpu_hours=a.max_gpu_hours, max_cost_usd=a.max_cost_usd,
                              **kwargs)
        caps = []
        if a.max_gpu_hours is not None:
            caps.append(f"{a.max_gpu_hours:,g} GPU-h")
        if a.max_cost_usd is not None:
            caps.append(f"${a.max_cost_usd:,.2f}")
        goal = f"the fastest GPU count within {' and '.join(caps)}"
    else:
        raise CliError("give --deadline-h HOURS, or --max-gpu-hours and/or --max-cost-usd")
    d = s.to_dict()
    if a.json:
        _print_json(d)
        return 0 if d["found"] else 1
    header = _format.projection_header(dict(d, rows=d["candidates"]))
    print(header)
    print()
    if d["candidates"]:
        print(_format.text_table([_format.Column("chosen", "chosen", lambda v: "*" if v else "", "<")]
                                 + _format.PROJECTION_COLUMNS,
                                 [dict(r, chosen=d["found"] and r["gpus"] == d["row"]["gpus"])
                                  for r in _format.with_fit(d["candidates"])]))
        print()
    if d["found"]:
        row = d["row"]
        print(f"{goal}: {row['gpus']} GPUs ({row['nodes']} node{'' if row['nodes'] == 1 else 's'}), {row['wall_time_h']:,.2f} h wall, "
              f"{row['gpu_hours']:,.1f} GPU-h, ${row['cost_usd']:,.2f}, {row['energy_kwh']:,.1f} kWh")
        return 0
    fitting = sum(1 for r in d["candidates"] if r["fits"])
    print(f"no GPU count among {','.join(str(g) for g in a.gpus)} meets the target ({goal}); "
          f"{len(d['candidates'])} valid counts were evaluated, {fitting} of them fit in memory", file=sys.stderr)
    return 1


def _cmd_models(a: argparse.Namespace) -> int:
    specs = [_core.io.find_model(n) for n in _core.io.model_names()]
    if a.json:
        _print_json({"schema": "libscale.models/1", "models": [s.to_dict() for s in specs]})
        return 0
    columns = [
        _format.Column("name", "name", _format.text, "<"),
        _format.Column("parameters", "parameters", _format.integer),
        _format.Column("num_layers", "layers", _format.integer),
        _format.Column("hidden_size", "hidden", _format.integer),
        _format.Column("intermediate_size", "MLP width", _format.integer),
        _format.Column("heads", "heads/kv", _format.text),
        _format.Column("head_dim", "head dim", _format.integer),
        _format.Column("vocab_size", "vocab tokens", _format.integer),
        _format.Column("max_position_embeddings", "max positions tokens", _format.integer),
        _format.Column("tie_word_embeddings", "tied embeddings", _format.yes_no),
    ]
    rows = [dict(s.to_dict(), heads=f"{s.num_heads}/{s.num_kv_heads}") for s in specs]
    print(_format.text_table(columns, rows))
    return 0


_HARDWARE_COLUMNS = [
    _format.Column("name", "name", _format.text, "<"),
    _format.Column("peak_bf16_tflops", "bf16 dense TFLOP/s", _format.fixed(1)),
    _format.Column("peak_fp8_tflops", "fp8 dense TFLOP/s", _format.fixed(1)),
    _format.Column("sm_count", "SMs", _format.integer),
    _format.Column("hbm_gib", "HBM GiB", _format.fixed(1)),
    _format.Column("hbm_tbps", "HBM TB/s", _format.fixed(2)),
    _format.Column("nvlink_gbps_bidir", "NVLink GB/s (bidir)", _format.fixed(0)),
    _format.Column("nic_gbps_per_gpu", "NIC Gb/s per GPU", _format.fixed(0)),
    _format.Column("gpus_per_node", "GPUs/node", _format.integer),
    _format.Column("board_power_w", "board W", _format.fixed(0)),
    _format.Column("idle_power_w", "idle W", _format.fixed(0)),
    _format.Column("price_per_gpu_hour_usd", "$/GPU-h (assumed)", _format.fixed(2)),
    _format.Column("display_name", "description", _format.text, "<"),
]


def _cmd_hardware(a: argparse.Namespace) -> int:
    if a.name is None:
        profiles = [_core.io.find_hardware(n) for n in _core.io.hardware_names()]
        if a.json:
            _print_json({"schema": "libscale.hardware_list/1", "hardware": [h.to_dict() for h in profiles]})
            return 0
        print(_format.text_table(_HARDWARE_COLUMNS, [h.to_dict() for h in profiles]))
        return 0
    hw = _api.hardware(a.name)
    cal = _core.calibrate.default_calibration(hw)
    if a.json:
        _print_json({"schema": "libscale.hardware_list/1", "hardware": hw.to_dict(), "calibration": cal.to_dict()})
        return 0
    print(_format.text_table(_HARDWARE_COLUMNS, [hw.to_dict()]))
    print()
    print(f"calibration: {_format.calibration_kind(cal.kind)}, from {cal.source}")
    table = _core.calibrate.calibration_coefficients()
    width = max(len(c["name"]) for c in table)
    for c in table:
        value = _core.calibrate.get_parameter(cal, c["name"])
        print(f"  {c['name']:<{width}}  {value:>12.4g} {c['unit']:<9} {c['help']}")
    return 0


_LOG_FORMATS = ("hf", "torchtitan", "csv")


def _is_measurement_json(path: str) -> bool:
    """A JSON measurement file (a list of records or a libscale.measurements object), as
    opposed to a trainer log, a CSV or a trainer_state.json. A *.json file that does not
    parse is left to the measurement reader (which names the line)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return True  # let the reader report the missing file
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return path.lower().endswith(".json")
    if isinstance(value, list):
        return True
    return isinstance(value, dict) and ("records" in value or str(value.get("schema", "")).startswith(
        "libscale.measurements"))


def _log_config(a: argparse.Namespace) -> dict[str, Any]:
    keys = ("model", "hardware", "gpus", "gpus_per_node", "seq_len", "micro_batch", "grad_accum",
            "activation_checkpointing", "strategy")
    return {k: getattr(a, k) for k in keys if getattr(a, k) is not None}


def _read_fit_inputs(a: argparse.Namespace) -> tuple[Any, list[str]]:
    from . import logs

    sets = []
    notes: list[str] = []
    for path in a.measurements:
        if a.format == "json" or (a.format == "auto" and _is_measurement_json(path)):
            sets.append(_core.calibrate.read_measurements(path))
            continue
        try:
            records = logs.parse_log(path, format=a.format, per_step=True, **_log_config(a))
        except TypeError as e:  # a keyword the log parser needs, named the Python way
            raise CliError(str(e)) from None
        except ValueError as e:
            # parse_log names the keyword to pass; on the command line that is an option
            raise CliError(re.sub(r"\b(model|hardware|gpus|gpus_per_node|seq_len|micro_batch|grad_accum|"
                                  r"activation_checkpointing|strategy)=",
                                  lambda m: "--" + m.group(1).replace("_", "-") + " ", str(e))) from None
        notes.extend(n if path in n else f"{path}: {n}" for n in getattr(records, "notes", []))
        sets.append(_core.calibrate.measurements_from_json(list(records), origin=path))
    data = _api.read_measurements(*sets)
    data.sources = list(a.measurements)
    return data, notes


def _fit_hardware(a: argparse.Namespace, data: Any) -> str:
    if a.hardware is not None:
        return a.hardware
    names = list(data.hardware)
    if len(names) == 1:
        return names[0]
    if not names:
        raise CliError("the measurements name no hardware; give --hardware")
    raise CliError(f"the measurements name several hardware profiles ({', '.join(names)}); "
                   f"give --hardware to choose one")


def _cmd_fit(a: argparse.Namespace) -> int:
    from . import __version__
    import datetime

    data, notes = _read_fit_inputs(a)
    hw = _fit_hardware(a, data)
    result = _api.fit(data, hw, fit_overhead=a.fit_overhead, relative_error=a.relative_error)
    provenance = {
        "hardware": result.hardware.name,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "libscale_version": __version__,
        "source": [os.path.abspath(p) if not os.path.isabs(p) else p for p in a.measurements],
        "command": "libscale fit " + " ".join(a.measurements),
    }
    out = a.output
    result.write(out, provenance=provenance)
    d = result.to_dict()
    if a.json:
        _print_json({"schema": "libscale.fit/1", **d, "output": out, "provenance": provenance, "notes": notes})
        return 0
    counts = [(data.step_count, "step"), (data.gemm_count, "GEMM"), (data.attention_count, "attention"),
              (data.bandwidth_count, "bandwidth"), (data.collective_count, "collective"), (data.power_count, "power")]
    what = ", ".join(f"{n} {k}" for n, k in counts if n)
    print(f"fit on {result.hardware.name}: {result.records_used} of {len(data)} records used ({what}) "
          f"from {', '.join(a.measurements)}")
    for n in notes:
        print(f"  note: {n}")
    print()
    print(f"coefficients (maximum a posteriori, records at ±{a.relative_error:g} relative error unless they state "
          "theirs; sd: posterior standard deviation; prior: value before the fit and the sd of its log; "
          "identified: the data narrowed the prior to under 0.7 of its sd):")
    print(_format.text_table(_format.COEFFICIENT_COLUMNS, [_format.coefficient_row(c) for c in result.coefficients]))
    print()
    if d["unidentified"]:
        print("not identified by the data (they stay at or near their prior):")
        for u in d["unidentified"]:
            print(f"  - {u}")
        print()
    print(f"relative error: rms {_format.percent(2)(d['rms_relative_error'])} %, leave-one-out "
          + (f"{_format.percent(2)(d['loo_relative_error'])} %" if d["loo_relative_error"] is not None
             else "n/a (no stage has more points than parameters)"))
    print()
    print("model families (leave-one-out relative error):")
    print(_format.text_table(_format.FAMILY_COLUMNS, d["families"]))
    print(f"chosen: {d['chosen_family']} ({d['family_reason']})")
    print()
    print(f"wrote {out} (libscale.calibration/2, kind {result.calibration.kind}, hardware {result.hardware.name})")
    return 0


_TRIAGE_COLUMNS = [
    _format.Column("phase", "phase", _format.text, "<"),
    _format.Column("seconds", "time (s)", _format.fixed(1)),
    _format.Column("percent", "time (%)", _format.fixed(1)),
    _format.Column("energy_kwh", "energy (kWh)", _format.fixed(4)),
]


def _triage_kwargs(a: argparse.Namespace, first_start_s: float) -> dict[str, Any]:
    if a.checkpoint_interval_s is not None and a.checkpoint_duration_s is None:
        raise CliError("--checkpoint-interval-s needs --checkpoint-duration-s")
    return {"deadlock_after_s": a.deadlock_after_s, "util_threshold_pct": a.util_threshold_pct,
            "checkpoint_first_start_s": first_start_s, "checkpoint_interval_s": a.checkpoint_interval_s,
            "checkpoint_duration_s": a.checkpoint_duration_s}


def _cmd_validate(a: argparse.Namespace) -> int:
    from .validation import validate

    v = validate(*a.measurements)
    if a.json:
        _print_json(v.to_dict())
        return 0
    print(v)
    if a.rows:
        print()
        print(f"{'cat':3}  {'file':42} {'model':28} {'GPUs':>5} {'seq':>6} {'mb':>4} {'tok/s/GPU':>10} "
              f"{'default':>8} {'error':>7}  fit")
        for r in v.rows():
            print(f"{r['category']:3}  {r['file'][:42]:42} {r['model'][:28]:28} {r['gpus']:>5} {r['seq_len']:>6} "
                  f"{r['micro_batch']:>4} {r['measured_tokens_per_s_per_gpu']:>10,.0f} x{r['default_ratio']:>7.2f} "
                  f"{100 * r['calibrated_error']:>+6.1f}%  {r['fit_status']}")
    return 0


def _cmd_triage(a: argparse.Namespace) -> int:
    if not os.path.isfile(a.trace):
        raise CliError(f"{a.trace}: no such file")
    trace = _api.read_trace(a.trace, format=a.format)
    if len(trace) == 0:
        raise CliError(f"{a.trace}: no samples")
    first_start = float(np.min(trace.time_s))
    result = _api.triage(trace, hardware=a.hardware or "h100", calibration=a.calibration,
                         **_triage_kwargs(a, first_start))
    d = result.to_dict()
    if a.json:
        _print_json({"schema": "libscale.triage/1", **d})
        return 0
    total_s = sum(v["seconds"] for v in d["job"].values())
    rows = [{"phase": name, "seconds": v["seconds"],
             "percent": 100.0 * v["seconds"] / total_s if total_s > 0 else 0.0,
             "energy_kwh": v["energy_j"] / 3.6e6} for name, v in d["job"].items()]
    print(f"{a.trace}: {len(trace.gpus)} GPUs, {total_s:.1f} s; bands: {d['bands']['label']}")
    print(_format.text_table(_TRIAGE_COLUMNS, rows))
    print()
    if d["alerts"]:
        print(f"alerts ({len(d['alerts'])}):")
        for al in d["alerts"]:
            print(f"  t = {al['time_s']:.1f} s (+{al['time_s'] - first_start:.1f} s)  {al['kind']}  "
                  f"GPUs {','.join(str(g) for g in al['gpus'])}: {al['message']}")
    else:
        print("alerts: none")
    print(f"parse: {trace.report.summary()}")
    return 0


def _watch_source(a: argparse.Namespace) -> Any:
    from . import watch as _watch

    if a.nvidia_smi_csv:
        if not os.path.isfile(a.nvidia_smi_csv):
            raise CliError(f"{a.nvidia_smi_csv}: no such file")
        if a.follow:
            return _watch.FollowCsvSource(a.nvidia_smi_csv)
        return _watch.ReplaySource(_api.read_trace(a.nvidia_smi_csv, format="nvidia-smi"), speed=a.speed,
                                   name=f"replay of {a.nvidia_smi_csv} at {a.speed:g}x")
    if a.dcgm and re.match(r"https?://", a.dcgm):
        return _watch.DcgmSource(a.dcgm)
    if a.dcgm:
        if not os.path.isfile(a.dcgm):
            raise CliError(f"{a.dcgm}: no such file (give an http:// URL to scrape dcgm-exporter live)")
        return _watch.ReplaySource(_api.read_trace(a.dcgm, format="dcgm"), speed=a.speed,
                                   name=f"replay of {a.dcgm} at {a.speed:g}x")
    return _watch.NvmlPollSource(a.gpus, power=a.nvml_power)


def _cmd_watch(a: argparse.Namespace) -> int:
    import time

    from . import watch as _watch

    command = list(a.command)
    if command and command[0] == "--":
        command = command[1:]
    if a.pid is not None and command:
        raise CliError("give --pid or a command after --, not both")
    kill_on = {k.strip() for k in a.kill_on.split(",") if k.strip()} - {"none"}
    bad = kill_on - {"deadlock", "data_starvation", "straggler"}
    if bad:
        raise CliError(f"--kill-on: {', '.join(sorted(bad))} not valid; valid: deadlock, data_starvation, "
                       "straggler, none")
    if a.follow and not a.nvidia_smi_csv:
        raise CliError("--follow applies to --nvidia-smi-csv")
    if a.checkpoint_marker and a.checkpoint_duration_s is None:
        raise CliError("--checkpoint-marker needs --checkpoint-duration-s (how long a save lasts after a touch)")
    for name in ("interval_s", "speed", "grace_s", "prometheus_interval_s", "stale_after_s"):
        v = getattr(a, name)
        if not ((v > 0 or (name == "grace_s" and v == 0)) and v < float("inf")):
            raise CliError(f"--{name.replace('_', '-')} = {v:g}; it must be a positive, finite number")

    source = _watch_source(a)
    hardware = a.hardware
    if hardware is None and isinstance(source, _watch.NvmlPollSource):
        hardware = _watch.catalog_hardware_of(source.gpus())
    first = getattr(source, "first_time_s", None)
    if first is None and isinstance(source, _watch.FollowCsvSource) and a.checkpoint_interval_s is not None:
        raise CliError(f"--checkpoint-interval-s with --follow needs {a.nvidia_smi_csv} to hold a sample already "
                       "(the schedule runs on the log's clock); use --checkpoint-marker instead")
    stream = _api.triage_stream(hardware=hardware or "h100", calibration=a.calibration,
                                stale_after_s=a.stale_after_s,
                                **_triage_kwargs(a, time.time() if first is None else first))
    actions = _watch.Actions(kill_on=frozenset(kill_on), grace_s=a.grace_s, dry_run=a.dry_run, hook=a.hook,
                             prometheus_textfile=a.prometheus_textfile,
                             prometheus_interval_s=a.prometheus_interval_s, checkpoint_marker=a.checkpoint_marker,
                             checkpoint_duration_s=a.checkpoint_duration_s or 0.0)
    out = sys.stdout if a.events == "-" else open(a.events, "a", buffering=1)  # noqa: SIM115

    def emit(record: dict[str, Any]) -> None:
        try:
            out.write(json.dumps(to_jsonable({"schema": "libscale.watch_event/1", **record})) + "\n")
            out.flush()
        except BrokenPipeError:
            # the reader went away (e.g. `| head`): the watch goes on; no error at exit
            os.dup2(os.open(os.devnull, os.O_WRONLY), out.fileno())
            raise

    try:
        # Everything that can be refused is checked before the job starts.
        watcher = _watch.Watcher(source, stream, actions=actions, interval_s=a.interval_s, events=emit)
        watcher.job = _watch.Job(command=command) if command else (_watch.Job(pid=a.pid) if a.pid is not None else None)
        return watcher.run()
    finally:
        if out is not sys.stdout:
            out.close()


# --- entry point ---------------------------------------------------------------------


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the command line; returns the exit status (2: bad input)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    func: Callable[[argparse.Namespace], int] = args.func
    try:
        return func(args)
    except (CliError, _core.LibscaleError, ValueError, TypeError, OSError) as e:
        if isinstance(e, BrokenPipeError):
            return _broken_pipe()
        _fail(str(e))
    except KeyboardInterrupt:
        return 130


def _broken_pipe() -> int:
    # The reader went away (e.g. `| head`): stop quietly, as other tools do.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
