"""Trainer-log ingestion throughput: libscale.logs on large generated logs, MB/s per format.

    .venv/bin/python bench/bench_logs.py [--repeats 3] [--formats hf,hf-json,torchtitan,torchtitan-color,csv]
                                         [--scale 1.0] [--json OUT] [--baseline OUT] [--profile FORMAT]

Target: at least 100 MB/s for every format (input bytes / wall time of one parse, file in
the page cache). Logs are generated into a temp dir, deterministic (seeded), shaped like
tests/python/data/logs:

* hf                a Hugging Face Trainer console log, ~40 MB: the ``***** Running training
                    *****`` banner, a tqdm bar redrawn after every optimizer step (carriage
                    returns, ``  3%|▎         | 10/300 [00:30<14:30,  3.00s/it]``; tqdm.write
                    clears it with spaces before each metrics line), ``{'loss': ...}`` every
                    10 steps (the newer ``f"{v:.4g}"`` string style), an evaluation with its
                    own bar every 2,000 steps, checkpoint lines, the final train_runtime line;
* hf-json           that run's trainer_state.json (log_history, one entry per logging step);
* torchtitan        ~35 MB, almost all step lines ``[rank0]:[titan] ... - step: 10  loss: ...
                    memory: ...GiB(...%)  tps: 5,731  tflops: ...  mfu: ...%`` (log_freq 10),
                    a validate line every 500 steps, GC and checkpoint lines;
* torchtitan-color  the same run printed with torchtitan's default ANSI colours;
* csv               ~20 MB of steps.csv rows (a dozen configuration columns, one timing per row).

Each format is parsed with libscale.logs.parse_log (format auto-detected) and with its own
parser (parse_hf / parse_torchtitan, also per_step=True as ``libscale fit`` calls it /
parse_csv); every call's result is checked against what the generator wrote (so a fast
wrong parser shows up here too). ``read`` is the floor: the file's bytes read and decoded.
--json writes the medians, --baseline prints each median's ratio to an earlier --json run.
--profile FORMAT runs parse_log on that format once under cProfile.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import math
import os
import pstats
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

import libscale
from libscale import logs

TARGET_MBS = 100.0
FORMATS = ("hf", "hf-json", "torchtitan", "torchtitan-color", "csv")
CFG = dict(model="llama-3.1-8b", hardware="h100")


# --- generators ------------------------------------------------------------------------


def _clock(s: float) -> str:
    """tqdm's format_interval: mm:ss, or h:mm:ss from an hour."""
    s = int(s)
    h, m = divmod(s, 3600)
    m, s = divmod(m, 60)
    return f"{h:d}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


def _bar(n: int, total: int, elapsed: float, rate: float) -> str:
    """tqdm's default l_bar{bar}r_bar, 10 cells, unicode eighths (tqdm.std.Bar)."""
    frac = n / total
    cells = frac * 10
    full = int(cells)
    part = int((cells - full) * 8)
    bar = "█" * full + (" ▏▎▍▌▋▊▉"[part] if full < 10 else "")
    bar = bar.ljust(10)
    if rate <= 0:
        return f"{int(frac * 100):3d}%|{bar}| {n}/{total} [00:00<?, ?it/s]"
    speed = f"{1 / rate:5.2f}s/it" if rate < 1 else f"{rate:5.2f}it/s"
    return f"{int(frac * 100):3d}%|{bar}| {n}/{total} [{_clock(elapsed)}<{_clock((total - n) / rate)}, {speed}]"


def _g4(x: float) -> str:
    return f"{x:.4g}"


def write_hf(path: str, target_mb: float, seed: int) -> dict[str, Any]:
    """A Trainer run printed to a file (what `python train.py 2>&1 | tee train.log` keeps)."""
    rng = random.Random(seed)
    per_step = 91  # bytes per optimizer step, measured on this generator's output
    steps = max(100, int(target_mb * 1e6 / per_step))
    mb, ga, gpus = 2, 4, 8
    step_s = 2.37
    log_every, eval_every, eval_batches = 10, 2000, 120
    head = [
        "[WARNING|logging.py:328] 2025-03-02 08:09:41,310 >> `use_cache=True` is incompatible with gradient "
        "checkpointing. Setting `use_cache=False`.",
        "[INFO|trainer.py:2405] 2025-03-02 08:10:00,100 >> ***** Running training *****",
        f"[INFO|trainer.py:2406] 2025-03-02 08:10:00,100 >>   Num examples = {steps * mb * ga * gpus:,}",
        "[INFO|trainer.py:2407] 2025-03-02 08:10:00,100 >>   Num Epochs = 1",
        f"[INFO|trainer.py:2408] 2025-03-02 08:10:00,100 >>   Instantaneous batch size per device = {mb}",
        "[INFO|trainer.py:2411] 2025-03-02 08:10:00,100 >>   Total train batch size (w. parallel, distributed "
        f"& accumulation) = {mb * ga * gpus}",
        f"[INFO|trainer.py:2412] 2025-03-02 08:10:00,100 >>   Gradient Accumulation steps = {ga}",
        f"[INFO|trainer.py:2413] 2025-03-02 08:10:00,100 >>   Total optimization steps = {steps:,}",
        "[INFO|trainer.py:2414] 2025-03-02 08:10:00,101 >>   Number of trainable parameters = 8,030,261,248",
    ]
    out = ["\n".join(head) + "\n"]
    bar = _bar(0, steps, 0, 0)
    out.append(bar)
    loss = 2.2
    for n in range(1, steps + 1):
        t = n * step_s * (1 + 0.01 * rng.random())
        bar = _bar(n, steps, t, 1 / step_s)
        out.append("\r" + bar)
        if n % log_every == 0:
            loss = max(0.5, loss * (1 - 2e-6) + rng.gauss(0, 0.01))
            d = {"loss": _g4(loss), "grad_norm": _g4(abs(rng.gauss(1.0, 0.2))),
                 "learning_rate": _g4(2e-5 * (1 - n / steps) + 1e-7), "epoch": _g4(n / steps)}
            out.append("\r" + " " * len(bar) + "\r" + str(d) + "\n\r" + bar)
        if n % eval_every == 0:
            out.append("\n")
            for k in range(eval_batches + 1):
                out.append(("\r" if k else "") + _bar(k, eval_batches, k * 0.21, 4.76))
            d = {"eval_loss": _g4(loss * 1.03), "eval_runtime": _g4(eval_batches * 0.21),
                 "eval_samples_per_second": _g4(38.1), "eval_steps_per_second": _g4(4.76),
                 "epoch": _g4(n / steps)}
            out.append("\r" + " " * 60 + "\r" + str(d) + "\n\r" + bar)
            out.append(f"\n[INFO|trainer.py:3984] 2025-03-02 09:00:00,000 >> Saving model checkpoint to "
                       f"./out/checkpoint-{n}\n\r" + bar)
    runtime = steps * step_s * 1.005
    final = {"train_runtime": _g4(runtime), "train_samples_per_second": _g4(steps * mb * ga * gpus / runtime),
             "train_steps_per_second": _g4(steps / runtime), "train_loss": _g4(loss * 1.1), "epoch": "1"}
    out.append("\n[INFO|trainer.py:2584] 2025-03-05 13:19:40,007 >> \n\nTraining completed. Do not forget to "
               "share your model on huggingface.co/models =)\n\n\n\r" + " " * len(bar) + "\r" + str(final)
               + "\n\r" + _bar(steps, steps, runtime, 1 / step_s) + "\n")
    out.append("***** train metrics *****\n  epoch                    =        1.0\n"
               f"  train_runtime            = {_clock(runtime)}\n")
    with open(path, "w", encoding="utf-8") as f:
        f.write("".join(out))
    # the parser divides the printed (4-digit) train_runtime by the banner's step count
    return {"records": 1, "step_time_s": float(_g4(runtime)) / steps, "gpus": gpus, "steps": steps}


def write_hf_json(path: str, target_mb: float, seed: int) -> dict[str, Any]:
    """trainer_state.json as Trainer.save_state writes it (json.dumps, indent=2)."""
    rng = random.Random(seed)
    per_entry = 160
    n = max(10, int(target_mb * 1e6 / per_entry))
    steps = n * 10
    hist: list[dict[str, Any]] = []
    loss = 2.2
    for i in range(1, n + 1):
        loss = max(0.5, loss * (1 - 2e-6) + rng.gauss(0, 0.01))
        hist.append({"epoch": round(i / n, 6), "grad_norm": round(abs(rng.gauss(1.0, 0.2)), 6),
                     "learning_rate": 2e-5 * (1 - i / n), "loss": round(loss, 4), "step": i * 10})
    runtime = steps * 2.37
    hist.append({"epoch": 1.0, "step": steps, "total_flos": 2.2e18, "train_loss": 1.62, "train_runtime": runtime,
                 "train_samples_per_second": 7.48, "train_steps_per_second": round(steps / runtime, 3)})
    doc = {"best_metric": None, "epoch": 1.0, "global_step": steps, "log_history": hist, "logging_steps": 10,
           "max_steps": steps, "num_train_epochs": 1, "train_batch_size": 2}
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=2)
    return {"records": 1, "step_time_s": runtime / steps, "gpus": 8}


def _tt_lines(target_mb: float, seed: int, color: bool) -> tuple[list[str], list[float]]:
    rng = random.Random(seed)
    per_line = 182 if color else 160
    n = max(10, int(target_mb * 1e6 / per_line))
    c = dict(red="\x1b[31m", green="\x1b[32m", orange="\x1b[38;2;255;165;0m", turquoise="\x1b[38;2;64;224;208m",
             blue="\x1b[34m", cyan="\x1b[36m", magenta="\x1b[35m", reset="\x1b[39m") if color else \
        dict.fromkeys(("red", "green", "orange", "turquoise", "blue", "cyan", "magenta", "reset"), "")
    pre = "[rank0]:[titan] 2025-06-03 14:{:02d}:{:02d},{:03d} - root - INFO - "
    lines = [
        "+ torchrun --nproc_per_node=8 --local-ranks-filter 0 --role rank --tee 3 -m torchtitan.train "
        "--job.config_file ./torchtitan/models/llama3/train_configs/llama3_8b.toml",
        pre.format(2, 11, 201) + "Starting job: Llama 3 8B training",
        pre.format(2, 12, 640) + "Building 1-D device mesh with ['dp_shard'], [8]",
        pre.format(2, 16, 131) + "Applied selective activation checkpointing to the model",
        pre.format(2, 16, 302) + "Applied FSDP to the model",
        pre.format(2, 16, 545) + "Trainer is initialized with local batch size 1, global batch size 8, gradient "
                                 "accumulation steps 1, sequence length 8192, total steps 2000000 (warmup 200)",
        pre.format(2, 16, 545) + "Training starts at step 1",
    ]
    tps_all: list[float] = []
    loss = 12.25
    for i in range(n):
        step = 1 if i == 0 else 10 * i
        loss = max(1.5, loss * 0.9995 + rng.gauss(0, 0.02))
        tps = round(812 if i == 0 else rng.gauss(5750, 40))
        tps_all.append(tps)
        tflops = tps * 48.6e-3
        ms = rng.randrange(1000)
        lines.append(pre.format(step // 60 % 60, step % 60, ms)
                     + f"{c['red']}step: {step:2}  {c['green']}loss: {loss:7.4f}  "
                       f"{c['orange']}grad_norm: {abs(rng.gauss(1.2, 0.3)):7.4f}  "
                       f"{c['turquoise']}memory: {52.87:5.2f}GiB({55.65:.2f}%)  "
                       f"{c['blue']}tps: {tps:,}  {c['cyan']}tflops: {tflops:,.2f}  "
                       f"{c['magenta']}mfu: {tflops / 989.0 * 100:.2f}%{c['reset']}")
        if i and i % 50 == 0:
            lines.append(pre.format(0, 0, ms) + f"{c['red']}validate step: {step:2}  {c['green']}loss: {loss:7.4f}  "
                         f"{c['turquoise']}memory: 52.91GiB(55.69%)  {c['blue']}tps: 17,340{c['reset']}")
        if i and i % 100 == 0:
            lines.append(pre.format(0, 0, ms) + "[GC] Performing periodical GC collection 0.05 seconds")
            lines.append(pre.format(0, 0, ms)
                         + f"Saving the checkpoint (or staging if async is enabled) at step {step}.")
    lines.append(pre.format(0, 0, 0) + "Training completed")
    return lines, tps_all


def write_torchtitan(path: str, target_mb: float, seed: int, color: bool = False) -> dict[str, Any]:
    lines, tps = _tt_lines(target_mb, seed, color)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    kept = sorted(tps[2:])  # skip_first = 2
    return {"records": 1, "tokens_per_s_per_gpu": statistics.median(kept), "samples": len(kept), "gpus": 8}


def write_csv(path: str, target_mb: float, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    per_row = 86
    n = max(10, int(target_mb * 1e6 / per_row))
    models = ["llama-3.1-8b", "llama-3.1-70b", "qwen3-32b"]
    rows = ["# step times from a sweep of runs, one row per logged step",
            "model,hardware,gpus,gpus_per_node,seq_len,micro_batch,grad_accum,strategy,activation_checkpointing,"
            "precision,step_time_s,tokens_per_s_per_gpu,source"]
    first = None
    for i in range(n):
        g = 8 << rng.randrange(5)
        if i % 4 == 3:
            timing = f",{rng.gauss(5600, 60):.1f}"
        else:
            timing = f"{rng.gauss(2.84, 0.03):.4f},"
        rows.append(f"{models[i % 3]},h100,{g},8,8192,2,{rng.choice((1, 2, 4))},fsdp,selective,bf16,{timing},"
                    f"run-{i // 100:05d}")
        first = first or rows[-1]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(rows) + "\n")
    return {"records": n, "first_step_time_s": float(first.split(",")[10]) if first else None}


# --- measurement -----------------------------------------------------------------------


def check(fmt: str, recs: Any, want: dict[str, Any], per_step: bool = False) -> None:
    """The records are what the generator wrote (a fast wrong parser must not look good)."""
    if fmt.startswith("torchtitan") and per_step:
        ok = len(recs) == want["samples"]
    elif fmt.startswith("torchtitan"):
        r = recs[0]
        ok = (len(recs) == 1 and r["samples"] == want["samples"] and r["gpus"] == want["gpus"]
              and math.isclose(r["tokens_per_s_per_gpu"], want["tokens_per_s_per_gpu"]))
    elif fmt.startswith("hf"):
        r = recs[0]
        ok = len(recs) == 1 and math.isclose(r["step_time_s"], want["step_time_s"], rel_tol=1e-9)
    else:
        ok = len(recs) == want["records"] and math.isclose(recs[0]["step_time_s"], want["first_step_time_s"])
    if not ok:
        raise SystemExit(f"{fmt}: the parse does not give what the generator wrote: {recs[:1]} vs {want}")


def timed(fn: Callable[[], Any], repeats: int) -> tuple[list[float], Any]:
    out, result = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = fn()
        out.append(time.perf_counter() - t0)
    return out, result


def read_floor(path: str) -> str:
    with open(path, "rb") as f:
        return f.read().decode("utf-8-sig")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3, help="parses per case (default 3)")
    ap.add_argument("--formats", default=",".join(FORMATS), help=f"comma list of {', '.join(FORMATS)}")
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every log's size (default 1: ~20-40 MB)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", default=None, metavar="OUT", help="write the medians (s, MB/s) as JSON")
    ap.add_argument("--baseline", default=None, metavar="OUT", help="an earlier --json: print speed-up ratios")
    ap.add_argument("--profile", default=None, metavar="FORMAT", help="cProfile one parse_log of FORMAT")
    ap.add_argument("--profile-top", type=int, default=25)
    ap.add_argument("--keep", default=None, metavar="DIR", help="write the logs into DIR and keep them")
    a = ap.parse_args(argv)
    fmts = [f.strip() for f in a.formats.split(",") if f.strip()]
    for f in fmts + ([a.profile] if a.profile else []):
        if f not in FORMATS:
            ap.error(f"format {f!r}; valid: {', '.join(FORMATS)}")
    base = {}
    if a.baseline:
        with open(a.baseline) as fh:
            base = json.load(fh)["cases"]

    load = os.getloadavg()
    print(f"libscale {libscale.__version__}, Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, "
          f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {a.repeats} parses per case, "
          f"target {TARGET_MBS:g} MB/s (MB = 10^6 bytes)")
    d = a.keep or tempfile.mkdtemp(prefix="bench-logs-")
    os.makedirs(d, exist_ok=True)
    sizes = {"hf": 40.0, "hf-json": 25.0, "torchtitan": 35.0, "torchtitan-color": 35.0, "csv": 20.0}
    writers: dict[str, Callable[[str, float, int], dict[str, Any]]] = {
        "hf": write_hf, "hf-json": write_hf_json, "torchtitan": write_torchtitan,
        "torchtitan-color": lambda p, mb, s: write_torchtitan(p, mb, s, color=True), "csv": write_csv}
    names = {"hf": "train.log", "hf-json": "trainer_state.json", "torchtitan": "torchtitan.log",
             "torchtitan-color": "torchtitan-color.log", "csv": "steps.csv"}
    results: dict[str, dict[str, float]] = {}
    try:
        rows = []
        for fmt in dict.fromkeys(fmts + ([a.profile] if a.profile else [])):
            path = os.path.join(d, names[fmt])
            t0 = time.perf_counter()
            want = writers[fmt](path, sizes[fmt] * a.scale, a.seed)
            size = os.path.getsize(path)
            with open(path, "rb") as fh:
                nlines = sum(chunk.count(b"\n") for chunk in iter(lambda: fh.read(1 << 24), b""))
            print(f"{fmt}: {path} {size / 1e6:.1f} MB, {nlines:,} newline-ended lines "
                  f"(generated in {time.perf_counter() - t0:.1f} s)")
            if fmt not in fmts:
                continue
            kw: dict[str, Any] = {} if fmt == "csv" else dict(CFG)  # the CSV names model and hardware
            if fmt.startswith("hf"):
                kw["seq_len"] = 4096
            if fmt == "hf-json":
                kw["gpus"] = 8
            own = {"hf": logs.parse_hf, "hf-json": logs.parse_hf, "csv": logs.parse_csv}.get(fmt, logs.parse_torchtitan)
            cases: list[tuple[str, Callable[[], Any], bool]] = [
                ("read", lambda p=path: read_floor(p), False),
                ("parse_log", lambda p=path, k=kw: logs.parse_log(p, **k), False),
                (own.__name__, lambda p=path, k=kw, f=own: f(p, **k), False)]
            if fmt.startswith("torchtitan"):
                cases.append(("parse_torchtitan per_step", lambda p=path, k=kw: logs.parse_torchtitan(
                    p, per_step=True, **k), True))
            for case, fn, per_step in cases:
                secs, recs = timed(fn, a.repeats)
                if case != "read":
                    check(fmt, recs, want, per_step)
                med = statistics.median(secs)
                key = f"{fmt} {case}"
                results[key] = {"s": med, "mbs": size / 1e6 / med, "bytes": size}
                rows.append((fmt, case, size, secs, len(recs) if case != "read" else None))
                print(f"  {case:<26} median {med:7.3f} s  {size / 1e6 / med:8.1f} MB/s  "
                      f"(runs {', '.join(f'{t:.3f}' for t in secs)})"
                      + (f"  {len(recs):,} records" if case != "read" else "")
                      + (f"  x{base[key]['s'] / med:.1f} vs baseline" if key in base else ""), flush=True)

        print("\nsummary (median MB/s; `libscale fit` calls parse_log, torchtitan logs with per_step=True):")
        worst = math.inf
        for fmt in fmts:
            r = results.get(f"{fmt} parse_log")
            if r is None:
                continue
            parts = [f"{case} {results[f'{fmt} {case}']['mbs']:.1f}" for f2, case, *_ in rows if f2 == fmt]
            worst = min(worst, *(results[f"{fmt} {case}"]["mbs"] for f2, case, *_ in rows
                                 if f2 == fmt and case != "read"))
            ratio = f"; x{base[f'{fmt} parse_log']['s'] / r['s']:.1f} vs baseline" if f"{fmt} parse_log" in base else ""
            print(f"  {fmt:<17} {r['bytes'] / 1e6:5.1f} MB: " + ", ".join(parts) + f" MB/s{ratio}")
        if math.isfinite(worst):
            print(f"verdict: {'PASS' if worst >= TARGET_MBS else 'FAIL'} -- slowest parse {worst:.1f} MB/s vs the "
                  f"{TARGET_MBS:g} MB/s target")
        if a.json:
            with open(a.json, "w") as fh:
                json.dump({"python": sys.version.split()[0], "cpus": os.cpu_count(), "repeats": a.repeats,
                           "scale": a.scale, "cases": results}, fh, indent=1)
        if a.profile:
            path = os.path.join(d, names[a.profile])
            kw = {} if a.profile == "csv" else dict(CFG)
            if a.profile.startswith("hf"):
                kw["seq_len"] = 4096
            if a.profile == "hf-json":
                kw["gpus"] = 8
            prof = cProfile.Profile()
            prof.runcall(logs.parse_log, path, **kw)
            print(f"\ncProfile of parse_log({names[a.profile]}) (profiler overhead inflates it):")
            pstats.Stats(prof).sort_stats("tottime").print_stats(a.profile_top)
    finally:
        if not a.keep:
            shutil.rmtree(d, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
