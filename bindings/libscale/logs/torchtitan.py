"""torchtitan console logs -> step records (the median tokens/s per GPU, or one per step).

A long run's log is hundreds of thousands of step lines: the compiled scanner
(libscale._core.io.scan_torchtitan_log) reads those and hands back every other line that
matters, which _tt_line reads here; without the scanner (a module built before it), every
line goes through _tt_line."""

from __future__ import annotations

import collections
import itertools
import math
import operator
import re
from collections.abc import Iterable
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import _core
from ._common import (
    _ANSI,
    Records,
    _ac_mode,
    _check_config,
    _Found,
    _no_gc,
    _percentiles,
    _read,
    _record,
    _record_template,
    _Text,
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
#: A step line read by _tt_line: (line, rank, step, 1 for wps else 0), (tokens/s per GPU,
#: memory GiB, MFU %, TFLOPS; NaN where absent): the scanner's columns.
_TTRow = tuple[tuple[int, int, int, int], tuple[float, float, float, float]]
_TT_DP = re.compile(r"Applied (FSDP|HSDP|DDP) to the model")


def _tt_line(src: _Text, lineno: int, raw: str, found: _Found, notes: list[str], rows_before: bool) -> _TTRow | None:
    """What line LINENO says: configuration (into FOUND) and a step row. ROWS_BEFORE:
    whether a step line came before it (a cut last line is then skipped, not an error)."""
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
        return None
    rm = _TT_RATE.search(line, m.end())
    if not rm:
        if src.is_half_written(lineno) and rows_before:
            notes.append(f"{src.origin}:{lineno}: skipped the half-written last line")
            return None
        raise src.error(lineno, f"a step line without tps/wps: {line.strip()[:100]!r}; "
                                f"expected {_TT_EXPECTED}")
    rate_name = rm.group("key").lower()
    tps = _time_value(src, lineno, rate_name, rm.group("val"))
    mem = _TT_MEM.search(line)
    mfu = _TT_MFU.search(line)
    tfl = _TT_TFLOPS.search(line)
    nan = math.nan
    return ((lineno, rank, int(m.group("step")), int(rate_name == "wps")),
            (tps, float(mem.group(1)) if mem else nan, float(mfu.group(1)) if mfu else nan,
             float(tfl.group(1).replace(",", "")) if tfl else nan))


def _tt_rows(src: _Text, found: _Found, notes: list[str]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """Every step line in line order: ints (line, rank, step, wps) and floats (tps, memory,
    mfu, tflops) per row."""
    scanner = getattr(_core.io, "scan_torchtitan_log", None)
    lines: Iterable[tuple[int, str]]
    if scanner is not None:
        count, ints, floats, deferred = scanner(src.data)
        src.set_line_count(count)
        data = src.data
        lines = ((int(k), data[b:e].decode("utf-8", "surrogatepass")) for k, b, e in deferred.tolist())
        first_scanned = int(ints[0, 0]) if len(ints) else None
    else:
        ints, floats = np.empty((0, 4), np.int64), np.empty((0, 4), np.float64)
        lines = enumerate(src.lines, 1)
        first_scanned = None
    read: list[_TTRow] = []
    for lineno, raw in lines:
        row = _tt_line(src, lineno, raw, found, notes,
                       bool(read) or (first_scanned is not None and first_scanned < lineno))
        if row is not None:
            read.append(row)
    if read:
        try:
            more = np.array([r[0] for r in read], np.int64)
        except OverflowError:  # a step or rank beyond int64: Python's ints, as the logs says them
            more = np.array([r[0] for r in read], object)
        ints = np.concatenate([ints, more])
        floats = np.concatenate([floats, np.array([r[1] for r in read], np.float64)])
        if first_scanned is not None:
            order = np.argsort(ints[:, 0], kind="stable")
            ints, floats = ints[order], floats[order]
    return ints, floats


@_no_gc
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
    ints, floats = _tt_rows(src, found, notes)
    if not len(ints):
        raise src.error(None, f"no training step lines in {src.line_count()} lines; expected "
                              f"{_TT_EXPECTED}")
    rate_name = "wps" if ints[-1, 3] else "tps"  # the last step line's
    ranks = ints[:, 1]
    rank = int(ranks.min())
    if (ranks != rank).any():
        notes.append(f"{src.origin}: step lines from ranks {sorted(set(ranks.tolist()))}; used rank {rank}'s")
        ints, floats = ints[ranks == rank], floats[ranks == rank]
    # Split at restarts (a step number not above the one before), skip each segment's warm-up.
    steps = ints[:, 2]
    bounds = [0, *(np.flatnonzero(steps[1:] <= steps[:-1]) + 1).tolist(), len(steps)]
    segments = len(bounds) - 1
    keep = np.zeros(len(steps), bool)
    for a, b in itertools.pairwise(bounds):
        keep[a + skip_first:b] = True
    if segments > 1:
        notes.append(f"{src.origin}: {segments} runs in one log (step numbers restart); skipped the "
                     f"first {skip_first} logged steps of each")
    kept_ints, kept = ints[keep], floats[keep]
    if not len(kept):
        raise src.error(None, f"{len(ints)} step lines, all within the first skip_first="
                              f"{skip_first} (warm-up); need at least {skip_first + 1}, or pass "
                              f"a smaller skip_first")
    p10, median, p90 = _percentiles(kept[:, 0], (10, 50, 90))
    first_line, last_line = int(kept_ints[0, 0]), int(kept_ints[-1, 0])
    extra: dict[str, Any] = {
        "samples": len(kept),
        "p10_tokens_per_s_per_gpu": p10,
        "p90_tokens_per_s_per_gpu": p90,
        "step_range": [int(kept_ints[0, 2]), int(kept_ints[-1, 2])],
    }
    mems = kept[:, 1][~np.isnan(kept[:, 1])]
    if len(mems):
        extra["memory_gib"] = float(mems.max())
    mfus = kept[:, 2][~np.isnan(kept[:, 2])]
    if len(mfus):
        extra["reported_mfu"] = _percentiles(mfus, (50,))[0] / 100.0
    tflops = kept[:, 3][~np.isnan(kept[:, 3])]
    if len(tflops):
        extra["reported_tflops"] = _percentiles(tflops, (50,))[0]
    if skip_first:
        notes.append(f"{src.origin}: skipped the first {skip_first} logged steps as warm-up")
    if per_step:
        # One record per logged step: the fitter then sees the step-to-step scatter and
        # gives the efficiency an interval, where one summarized record is solved exactly.
        template, fixed = _record_template(src, found, given, "tokens_per_s_per_gpu", first_line)
        n = len(kept)
        sources = (itertools.repeat(fixed, n) if fixed else
                   map(f"{src.origin}:{{}}: step {{}} {rate_name}".format, kept_ints[:, 0].tolist(),
                       kept_ints[:, 2].tolist()))
        records = list(map(dict.copy, itertools.repeat(template, n)))
        collections.deque(map(operator.setitem, records, itertools.repeat("tokens_per_s_per_gpu"),
                              kept[:, 0].tolist()), maxlen=0)
        collections.deque(map(operator.setitem, records, itertools.repeat("source"), sources), maxlen=0)
        return Records(records, notes=notes, format="torchtitan")
    where = (f"{src.origin}: lines {first_line}-{last_line}, median {rate_name} of "
             f"{len(kept)} logged steps")
    return Records([_record(src, found, given, ("tokens_per_s_per_gpu", median), where, extra)],
                   notes=notes, format="torchtitan")
