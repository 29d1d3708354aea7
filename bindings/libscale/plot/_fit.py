"""The fit's error per measurement record."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from ..fit_result import FitResult
from . import _style as st

__all__ = ["residuals", "record_labels"]


def _mib(b: float) -> str:
    return f"{b / 2**20:,.3g} MiB"


def _step_labels(steps: Sequence[Any]) -> list[str]:
    """Each step record by what tells it apart from the others (model, GPUs, sequence length,
    micro-batch, tensor and context parallel degrees, checkpointing, precision, compile)."""
    fields: list[tuple[str, Any]] = [
        ("model", lambda s: str(s.model)),
        ("gpus", lambda s: f"{s.config.gpus:,} GPUs"),
        ("seq_len", lambda s: f"seq {s.config.seq_len:,}"),
        ("micro_batch", lambda s: f"mb {s.config.micro_batch}"),
        ("tensor_parallel", lambda s: f"TP {s.config.tensor_parallel}"),
        ("context_parallel", lambda s: f"CP {s.config.context_parallel}"),
        ("activation_checkpointing", lambda s: f"AC {s.config.activation_checkpointing}"),
        ("precision", lambda s: str(s.config.precision)),
        ("torch_compile", lambda s: "compile" if s.config.torch_compile else "eager"),
    ]
    varying = [f for name, f in fields if name == "gpus" or len({f(s) for s in steps}) > 1]
    return [", ".join(f(s) for f in varying) for s in steps]


#: The fit's record kinds (measurement schema names) as the plots show them.
_KIND_NAMES = {"gemm": "GEMM"}


def _describe(data: Any, kind: str, indices: Sequence[int]) -> list[str]:
    """What tells each record of one kind apart (IndexError: not in these measurements)."""
    if kind == "step":
        return _step_labels([data.steps[i] for i in indices])
    out: list[str] = []
    for i in indices:
        if kind == "collective":
            c = data.collectives[i]
            out.append(f"{c.op} {c.ranks} ranks {_mib(c.bytes)}")
        elif kind == "gemm":
            g = data.gemm[i]
            out.append(f"{g.m:,.0f}×{g.n:,.0f}×{g.k:,.0f}" + (" fp8" if g.fp8 else ""))
        elif kind == "attention":
            a = data.attention[i]
            out.append(f"{'bwd' if a.backward else 'fwd'} seq {a.seq_len:,.0f} hd {a.head_dim:,.0f}")
        elif kind == "bandwidth":
            out.append(_mib(data.bandwidth[i].bytes))
        else:
            out.append("")
    return out


def record_labels(fit: FitResult) -> tuple[list[str], list[str]] | None:
    """(label, kind) of each record the fit used, in the order of relative_residuals: the
    fit's record_kinds and record_indices, each label "kind #index: what tells it apart".
    None when the fit's measurements do not hold those records."""
    r = fit.raw
    raw_kinds = [str(k) for k in r.record_kinds]
    raw_indices = [int(i) for i in r.record_indices]
    if not len(raw_kinds) == len(raw_indices) == len(r.relative_residuals):
        return None
    data = fit.measurements.raw
    described: dict[int, str] = {}
    for kind in dict.fromkeys(raw_kinds):
        pos = [p for p, k in enumerate(raw_kinds) if k == kind]
        try:
            texts = _describe(data, kind, [raw_indices[p] for p in pos])
        except IndexError:
            return None
        described.update(zip(pos, texts, strict=True))
    kinds = [_KIND_NAMES.get(k, k) for k in raw_kinds]
    labels = [f"{kinds[p]} #{raw_indices[p]}" + (f": {described[p]}" if described[p] else "")
              for p in range(len(kinds))]
    return labels, kinds


@st.literal_text
def residuals(fit_result: FitResult, *, ax: Axes | None = None) -> Axes:
    """The fit's relative error (predicted − measured) / measured per record used, in %,
    as horizontal bars coloured by record kind, each with its leave-one-out error (the
    record's error when the fit leaves it out: a hollow diamond; none where the fit computes
    none, e.g. kernel micro-runs), the zero line, and the fit's mean |leave-one-out| error
    (±, dashed) and rms error (±, dotted). Records are labelled by kind and index in the
    measurements. Returns the Axes."""
    if not isinstance(fit_result, FitResult):
        raise TypeError(f"fit_result: expected a libscale FitResult, got {type(fit_result).__name__}")
    r = fit_result.raw
    res = np.asarray(r.relative_residuals, dtype=float) * 100.0
    n = len(res)
    loo_each = np.asarray(r.loo_relative_errors, dtype=float) * 100.0
    if len(loo_each) != n:
        loo_each = np.full(n, np.nan)
    named = record_labels(fit_result)
    if named is None:
        kinds = ([_KIND_NAMES.get(str(k), str(k)) for k in r.record_kinds] if len(r.record_kinds) == n
                 else ["record"] * n)
        labels = [f"#{i} record {i}" for i in range(n)]
    else:
        labels, kinds = named
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
    finite = np.isfinite(loo_each)
    marker: dict[str, Any] = {"marker": "D", "markerfacecolor": "none", "markeredgecolor": st.DARK, "linestyle": "none",
              "markersize": 4 if small else 6}
    if finite.any():
        ax.plot(loo_each[finite], y[finite], markeredgewidth=1.2, gid="residuals:loo_records", **marker)
    ax.set_yticks(y)
    ax.set_yticklabels(labels, fontsize="xx-small" if n > 60 else "x-small" if small else "small")
    ax.invert_yaxis()  # record 0 at the top, as listed
    if n:
        ax.set_ylim(n - 0.5, -0.5)
    ax.axvline(0, color="black", linewidth=1.0, gid="residuals:zero")
    handles: list[Any] = [Patch(color=st.KIND_COLORS.get(k, st.GREY), label=f"{k} record")
                          for k in dict.fromkeys(kinds)]
    if finite.any():
        handles.append(Line2D([], [], label="leave-one-out error of the record\n(the fit without it)", **marker))
    for k in dict.fromkeys(kinds):
        if not finite[[i for i in range(n) if kinds[i] == k]].any():
            handles.append(Line2D([], [], linestyle="none", label=f"{k} records: no leave-one-out error"))
    reach = float(np.nanmax(np.abs(res))) if n and np.isfinite(res).any() else 1.0
    if finite.any():
        reach = max(reach, float(np.max(np.abs(loo_each[finite]))))
    loo = r.loo_relative_error
    if loo is not None and math.isfinite(loo):
        for s in (-1, 1):
            ax.axvline(s * loo * 100, color=st.VERMILLION, linestyle="--", linewidth=1.3,
                       gid=f"residuals:loo{'+' if s > 0 else '-'}")
        handles.append(Line2D([], [], color=st.VERMILLION, linestyle="--",
                              label=f"± mean |leave-one-out error| {loo * 100:.2f} %"))
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
        handles.append(Line2D([], [], linestyle="none", label="records unnamed: not found\nin the fit's measurements"))
    lim = reach * 1.35 if reach > 0 else 1.0
    ax.set_xlim(-lim, lim)
    ax.set_xlabel("relative error of the fitted model, (predicted − measured) / measured (%)")
    ax.set_ylabel("measurement record")
    st.grid(ax, "x")
    ax.set_title(f"Fit on {fit_result.hardware.name}: error per record ({n} records used)\n"
                 f"chosen family {r.chosen_family}", fontsize="medium")
    st.legend_outside(ax, handles)
    return ax
