"""torchtitan console logs -> step records (the median tokens/s per GPU, or one per step)."""

from __future__ import annotations

import math
import re
from typing import Any

from ._common import (
    _ANSI,
    Records,
    _ac_mode,
    _check_config,
    _Found,
    _percentile,
    _read,
    _record,
    _time_value,
    _with_config_doc,
)

# --- torchtitan --------------------------------------------------------------------------

_TT_EXPECTED = ("torchtitan step lines such as 'step: 10  loss:  7.8534  memory: 30.12GiB(31.70%)  "
                "tps: 5,762  tflops: 280.05  mfu: 28.32%'")
_TT_STEP_SIMPLE = re.compile(r"(?P<pre>.{0,9})\bstep:\s*(?P<step>\d+)\s+loss:\s*(?P<loss>\S+)")
_TT_RATE = re.compile(r"\b(?P<key>tps|wps):\s*(?P<val>[-+]?[\d,]*\.?\d+(?:e[-+]?\d+)?|nan|inf|-inf)(?=\s|$)", re.I)
_TT_MEM = re.compile(r"\bmemory:\s*([\d.]+)GiB\(([\d.]+)%\)")
_TT_MFU = re.compile(r"\bmfu:\s*([-\d.]+|nan)%")
_TT_TFLOPS = re.compile(r"\btflops:\s*([-\d,.]+|nan)")
_TT_RANK = re.compile(r"^\[rank(\d+)\]:")
_TT_INIT = {
    "micro_batch": re.compile(r"local batch size (\d+)"),
    "global_batch": re.compile(r"global batch size (\d+)"),
    "grad_accum": re.compile(r"gradient accumulation steps (\d+)"),
    "seq_len": re.compile(r"sequence length (\d+)"),
}
_TT_MESH = re.compile(r"Building \d+-D device mesh with \[([^\]]*)\], \[([\d,\s]+)\]")
_TT_AC = re.compile(r"Applied (\w+) activation checkpointing to the model")
#: A logged torchtitan step: line number, step, tokens/s per GPU, memory GiB, MFU %, TFLOPS.
_TTRow = tuple[int, int, float, float | None, float | None, float | None]
_TT_DP = re.compile(r"Applied (FSDP|HSDP|DDP) to the model")


@_with_config_doc
def parse_torchtitan(text_or_path: Any, *, skip_first: int = 2, per_step: bool = False,
                     **config: Any) -> Records:
    """One step record from a torchtitan log: the median per-GPU ``tps`` (``wps`` in older
    releases) of the logged steps after the first SKIP_FIRST (warm-up: compilation, lazy
    init), as ``tokens_per_s_per_gpu``, with ``samples``, ``p10_tokens_per_s_per_gpu``,
    ``p90_tokens_per_s_per_gpu``, ``memory_gib`` (largest max-reserved of those steps),
    ``reported_mfu`` (median, as a fraction: 28.32% -> 0.2832) and ``reported_tflops``
    (median), and ``step_range`` ([first, last] step numbers used).

    From the log when present: micro_batch, grad_accum, seq_len (the "Trainer is initialized
    with ..." line), gpus (product of the device-mesh sizes), activation_checkpointing and
    strategy (FSDP -> fsdp, HSDP -> hsdp, DDP -> ddp). Several ranks' lines: the lowest rank's
    are used. A restart (step numbers going back) starts a new segment whose first SKIP_FIRST
    logged steps are skipped too.
    """
    if isinstance(skip_first, bool) or not isinstance(skip_first, int) or skip_first < 0:  # type: ignore[redundant-expr]
        raise TypeError(f"skip_first: expected an integer >= 0, got {skip_first!r}")
    given = _check_config(config, "parse_torchtitan")
    src = _read(text_or_path, _TT_EXPECTED)
    notes: list[str] = []
    found = _Found()
    # rank -> list of (lineno, step, tps, mem, mfu, tflops)
    by_rank: dict[int, list[_TTRow]] = {}
    rate_name = None
    for lineno, raw in enumerate(src.lines, 1):
        line = _ANSI.sub("", raw)
        mr = _TT_RANK.match(line)
        rank = int(mr.group(1)) if mr else -1
        for name, rx in _TT_INIT.items():
            if "batch size" in line or "sequence length" in line or "accumulation" in line:
                m = rx.search(line)
                if m and name != "global_batch":
                    found.set(name, int(m.group(1)), f"line {lineno}")
        m = _TT_MESH.search(line)
        if m:
            sizes = [int(s) for s in m.group(2).replace(" ", "").split(",") if s]
            n = 1
            for s in sizes:
                n *= s
            found.set("gpus", n, f"line {lineno}, device mesh {sizes}")
        m = _TT_AC.search(line)
        mode = _ac_mode(m.group(1)) if m else None
        if mode is not None:
            found.set("activation_checkpointing", mode, f"line {lineno}")
        m = _TT_DP.search(line)
        if m:
            found.set("strategy", m.group(1).lower(), f"line {lineno}")
        m = _TT_STEP_SIMPLE.search(line)
        if not m or "validate" in m.group("pre"):
            continue
        rm = _TT_RATE.search(line, m.end())
        if not rm:
            if src.is_half_written(lineno) and any(by_rank.values()):
                notes.append(f"{src.origin}:{lineno}: skipped the half-written last line")
                continue
            raise src.error(lineno, f"a step line without tps/wps: {line.strip()[:100]!r}; "
                                    f"expected {_TT_EXPECTED}")
        rate_name = rm.group("key").lower()
        tps = _time_value(src, lineno, rate_name, rm.group("val"))
        mem = _TT_MEM.search(line)
        mfu = _TT_MFU.search(line)
        tfl = _TT_TFLOPS.search(line)
        by_rank.setdefault(rank, []).append((
            lineno, int(m.group("step")), tps,
            float(mem.group(1)) if mem else None,
            float(mfu.group(1)) if mfu else None,
            float(tfl.group(1).replace(",", "")) if tfl else None))
    if not by_rank:
        raise src.error(None, f"no training step lines in {len(src.lines)} lines; expected "
                              f"{_TT_EXPECTED}")
    rank = min(by_rank)
    if len(by_rank) > 1:
        notes.append(f"{src.origin}: step lines from ranks {sorted(by_rank)}; used rank {rank}'s")
    rows = by_rank[rank]
    # Split at restarts, skip each segment's warm-up.
    kept: list[_TTRow] = []
    segments = 0
    seg: list[_TTRow] = []
    for row in rows + [None]:
        if row is None or (seg and row[1] <= seg[-1][1]):
            segments += 1
            kept.extend(seg[skip_first:])
            seg = []
        if row is not None:
            seg.append(row)
    if segments > 1:
        notes.append(f"{src.origin}: {segments} runs in one log (step numbers restart); skipped the "
                     f"first {skip_first} logged steps of each")
    if not kept:
        raise src.error(None, f"{len(rows)} step lines, all within the first skip_first="
                              f"{skip_first} (warm-up); need at least {skip_first + 1}, or pass "
                              f"a smaller skip_first")
    rates = sorted(r[2] for r in kept)
    median = _percentile(rates, 50)
    extra: dict[str, Any] = {
        "samples": len(kept),
        "p10_tokens_per_s_per_gpu": _percentile(rates, 10),
        "p90_tokens_per_s_per_gpu": _percentile(rates, 90),
        "step_range": [kept[0][1], kept[-1][1]],
    }
    mems = [r[3] for r in kept if r[3] is not None]
    if mems:
        extra["memory_gib"] = max(mems)
    mfus = sorted(r[4] for r in kept if r[4] is not None and not math.isnan(r[4]))
    if mfus:
        extra["reported_mfu"] = _percentile(mfus, 50) / 100.0
    tflops = sorted(r[5] for r in kept if r[5] is not None and not math.isnan(r[5]))
    if tflops:
        extra["reported_tflops"] = _percentile(tflops, 50)
    if skip_first:
        notes.append(f"{src.origin}: skipped the first {skip_first} logged steps as warm-up")
    if per_step:
        # One record per logged step: the fitter then sees the step-to-step scatter and
        # gives the efficiency an interval, where one summarized record is solved exactly.
        return Records([_record(src, found, given, ("tokens_per_s_per_gpu", r[2]),
                                f"{src.origin}:{r[0]}: step {r[1]} {rate_name}", line=r[0])
                        for r in kept], notes=notes, format="torchtitan")
    first_line, last_line = kept[0][0], kept[-1][0]
    where = (f"{src.origin}: lines {first_line}-{last_line}, median {rate_name} of "
             f"{len(kept)} logged steps")
    out = Records([_record(src, found, given, ("tokens_per_s_per_gpu", median), where, extra)],
                  notes=notes, format="torchtitan")
    return out
