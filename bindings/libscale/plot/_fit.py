"""The fit's error per measurement record."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from .. import _core
from ..fit_result import FitResult
from . import _style as st

__all__ = ["residuals", "record_labels"]


def _mine(record_hw: str, hw: str) -> bool:
    if record_hw.lower() == hw.lower():
        return True
    if ".json" in record_hw:
        try:
            return str(_core.io.find_hardware(record_hw).name).lower() == hw.lower()
        except (ValueError, OSError):
            return False
    return False


def _mib(b: float) -> str:
    return f"{b / 2**20:,.3g} MiB"


def _step_labels(steps: Sequence[Any]) -> list[str]:
    """Each step record by what tells it apart from the others (model, GPUs, sequence length,
    micro-batch, checkpointing, precision, compile)."""
    fields: list[tuple[str, Any]] = [
        ("model", lambda s: str(s.model)),
        ("gpus", lambda s: f"{s.config.gpus:,} GPUs"),
        ("seq_len", lambda s: f"seq {s.config.seq_len:,}"),
        ("micro_batch", lambda s: f"mb {s.config.micro_batch}"),
        ("activation_checkpointing", lambda s: f"AC {s.config.activation_checkpointing}"),
        ("precision", lambda s: str(s.config.precision)),
        ("torch_compile", lambda s: "compile" if s.config.torch_compile else "eager"),
    ]
    varying = [f for name, f in fields if name == "gpus" or len({f(s) for s in steps}) > 1]
    return [", ".join(f(s) for f in varying) for s in steps]


def record_labels(fit: FitResult) -> tuple[list[str], list[str]] | None:
    """(label, kind) of each record the fit used, in the order of relative_residuals: the
    fitter's order (intra-node collectives, cross-node collectives, GEMM, attention and
    bandwidth micro-runs, steps) of the records on the fitted hardware. None when that
    reconstruction does not give records_used records (e.g. a stage that fitted nothing)."""
    data = fit.measurements.raw
    hw = str(fit.hardware.name)
    labels: list[str] = []
    kinds: list[str] = []
    collectives = [c for c in data.collectives if c.hardware.lower() == hw.lower()]
    for inter in (False, True):
        for c in collectives:
            if (c.ranks > c.ranks_per_node) == inter:
                labels.append(f"{c.op} {c.ranks} ranks {_mib(c.bytes)}")
                kinds.append("collective")
    for g in data.gemm:
        if _mine(g.hardware, hw):
            labels.append(f"GEMM {g.m:,.0f}×{g.n:,.0f}×{g.k:,.0f}" + (" fp8" if g.fp8 else ""))
            kinds.append("GEMM")
    for a in data.attention:
        if _mine(a.hardware, hw):
            labels.append(f"attention {'bwd' if a.backward else 'fwd'} seq {a.seq_len:,.0f} hd {a.head_dim:,.0f}")
            kinds.append("attention")
    for b in data.bandwidth:
        if _mine(b.hardware, hw):
            labels.append(f"bandwidth {_mib(b.bytes)}")
            kinds.append("bandwidth")
    steps = [s for s in data.steps if _mine(s.hardware, hw)]
    labels += _step_labels(steps)
    kinds += ["step"] * len(steps)
    if len(labels) != len(fit.raw.relative_residuals):
        return None
    return labels, kinds


def residuals(fit_result: FitResult, *, ax: Axes | None = None) -> Axes:
    """The fit's relative error (predicted − measured) / measured per record used, in %,
    as horizontal bars coloured by record kind, with the zero line and the fit's
    leave-one-out error (mean |LOO|, ±, dashed) and rms error (±, dotted). The compiled
    result has no per-record leave-one-out error, so the LOO error is the fit's one mean.
    Returns the Axes."""
    if not isinstance(fit_result, FitResult):
        raise TypeError(f"fit_result: expected a libscale FitResult, got {type(fit_result).__name__}")
    r = fit_result.raw
    res = np.asarray(r.relative_residuals, dtype=float) * 100.0
    n = len(res)
    named = record_labels(fit_result)
    if named is None:
        labels, kinds = [f"record {i}" for i in range(n)], ["record"] * n
    else:
        labels, kinds = named
    labels = [f"#{i} {lab}" for i, lab in enumerate(labels)]
    # a bar per record, but no taller than a screen and a half: many records get thinner bars
    ax = st.new_axes(ax, (12.0, max(4.0, min(18.0, 1.8 + 0.34 * n))))
    y = np.arange(n, dtype=float)
    colors = [st.KIND_COLORS.get(k, st.GREY) for k in kinds]
    ax.barh(y, res, height=0.7, color=colors, gid="residuals:bars")
    small = n > 30
    for yi, v in zip(y, res, strict=True):
        if math.isfinite(v):
            ax.annotate(f"{v:+.1f} %", (v, yi), xytext=(3 if v >= 0 else -3, 0), textcoords="offset points",
                        ha="left" if v >= 0 else "right", va="center", fontsize="xx-small" if small else "x-small")
    ax.set_yticks(y)
    ax.set_yticklabels(labels, fontsize="xx-small" if n > 60 else "x-small" if small else "small")
    ax.invert_yaxis()  # record 0 at the top, as listed
    if n:
        ax.set_ylim(n - 0.5, -0.5)
    ax.axvline(0, color="black", linewidth=1.0, gid="residuals:zero")
    handles: list[Any] = [Patch(color=st.KIND_COLORS.get(k, st.GREY), label=f"{k} record")
                          for k in dict.fromkeys(kinds)]
    reach = float(np.nanmax(np.abs(res))) if n and np.isfinite(res).any() else 1.0
    loo = r.loo_relative_error
    if loo is not None and math.isfinite(loo):
        for s in (-1, 1):
            ax.axvline(s * loo * 100, color=st.VERMILLION, linestyle="--", linewidth=1.3,
                       gid=f"residuals:loo{'+' if s > 0 else '-'}")
        handles.append(Line2D([], [], color=st.VERMILLION, linestyle="--",
                              label=f"± leave-one-out error {loo * 100:.2f} %\n"
                                    "(mean |LOO| of the fit; not per record)"))
        reach = max(reach, loo * 100)
    else:
        handles.append(Line2D([], [], linestyle="none", label="leave-one-out error: n/a\n(too few records)"))
    rms = r.rms_relative_error
    if math.isfinite(rms):
        for s in (-1, 1):
            ax.axvline(s * rms * 100, color=st.DARK, linestyle=":", linewidth=1.3,
                       gid=f"residuals:rms{'+' if s > 0 else '-'}")
        handles.append(Line2D([], [], color=st.DARK, linestyle=":", label=f"± rms error {rms * 100:.2f} %"))
        reach = max(reach, rms * 100)
    if named is None:
        handles.append(Line2D([], [], linestyle="none", label="records unnamed: their order\ncould not be matched"))
    lim = reach * 1.35 if reach > 0 else 1.0
    ax.set_xlim(-lim, lim)
    ax.set_xlabel("relative error of the fitted model, (predicted − measured) / measured (%)")
    ax.set_ylabel("measurement record")
    st.grid(ax, "x")
    ax.set_title(f"Fit on {fit_result.hardware.name}: error per record ({n} records used)\n"
                 f"chosen family {r.chosen_family}", fontsize="medium")
    st.legend_outside(ax, handles)
    return ax
