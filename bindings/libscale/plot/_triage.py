"""The power trace of a triage with its phases, band edges and alerts."""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from .. import _core
from ..triage_result import TriageResult
from . import _style as st

__all__ = ["power_timeline", "MAX_GPU_LINES"]

#: Up to this many GPUs get a line each; more are drawn as their mean and min–max envelope.
MAX_GPU_LINES = 8
# Dark, distinct line colours that stay readable over the pale phase shading.
_GPU_COLORS = ("#000000", "#1F3A93", "#7B241C", "#145A32", "#6C3483", "#7E5109", "#4D4D4D", "#0E6655")

_SHADE = 0.2

#: band edge -> the phase below it (its colour and name)
_EDGES = (("idle_max_w", "idle"), ("checkpoint_max_w", "checkpoint_or_deadlock"),
          ("starvation_max_w", "data_starvation"), ("communication_max_w", "communication"))


def _gpu_lists(gpus: Any) -> str:
    g = sorted(int(x) for x in gpus)
    if len(g) > 2 and g == list(range(g[0], g[-1] + 1)):
        return f"GPUs {g[0]}–{g[-1]}"
    return ("GPU " if len(g) == 1 else "GPUs ") + ", ".join(map(str, g))


@st.literal_text
def power_timeline(triage_result: TriageResult, *, ax: Axes | None = None) -> Axes:
    """Board power per GPU (W) against the time since the trace began (s), the job's phases
    as shaded spans (one colour per phase), the power band edges as dotted horizontal
    lines and each alert as a labelled vertical line. Up to MAX_GPU_LINES GPUs get a line
    each; more are drawn as their mean with the min–max envelope. Returns the Axes."""
    if not isinstance(triage_result, TriageResult):
        raise TypeError(f"triage_result: expected a libscale TriageResult, got {type(triage_result).__name__}")
    tr, raw = triage_result.trace, triage_result.raw
    t0 = triage_result.first_start_s
    ax = st.new_axes(ax, (11.0, 5.0))
    time = np.asarray(tr.time_s, dtype=float) - t0
    gpu = np.asarray(tr.gpu)
    power = np.asarray(tr.power_w, dtype=float)
    gpus = [int(g) for g in tr.gpus]
    handles: list[Any] = []
    if len(gpus) <= MAX_GPU_LINES:
        for i, g in enumerate(gpus):
            sel = gpu == g
            order = np.argsort(time[sel], kind="stable")
            handles += ax.plot(time[sel][order], power[sel][order], color=_GPU_COLORS[i % len(_GPU_COLORS)],
                               linewidth=1.0, alpha=0.85, label=f"GPU {g} power", gid=f"triage:gpu:{g}")
    else:
        times, inverse = np.unique(time, return_inverse=True)
        lo = np.full(times.size, np.inf)
        hi = np.full(times.size, -np.inf)
        np.minimum.at(lo, inverse, power)
        np.maximum.at(hi, inverse, power)
        mean = np.bincount(inverse, weights=power) / np.bincount(inverse)
        handles.append(ax.fill_between(times, lo, hi, color=st.GREY, alpha=0.5, linewidth=0,
                                       label=f"min–max over {len(gpus)} GPUs", gid="triage:envelope"))
        handles += ax.plot(times, mean, color="black", linewidth=1.2, label=f"mean of {len(gpus)} GPUs",
                           gid="triage:mean")
    seg = raw.job_segments
    seconds: dict[str, float] = {}
    names = _core.triage.PHASE_NAMES
    for a, b, p in zip(seg["start_s"], seg["end_s"], seg["phase"], strict=True):
        name = names[int(p)]
        ax.axvspan(float(a) - t0, float(b) - t0, color=st.PHASE_COLORS[name], alpha=_SHADE, linewidth=0,
                   zorder=0, gid=f"triage:phase:{name}")
        seconds[name] = seconds.get(name, 0.0) + float(b) - float(a)
    phase_handles = [Patch(color=st.PHASE_COLORS[n], alpha=_SHADE,
                           label=f"{st.PHASE_LABELS[n]} ({seconds[n]:,.0f} s)") for n in names if n in seconds]
    edges = triage_result.bands.thresholds_w()
    top = float(np.nanmax(power)) if power.size else 0.0
    for key, phase in _EDGES:
        w = edges.get(key)
        if w is None or not np.isfinite(w):
            continue
        ax.axhline(w, color=st.PHASE_COLORS[phase], linestyle=":", linewidth=1.4, zorder=1, gid=f"triage:band:{key}")
        ax.annotate(f"{st.PHASE_LABELS[phase]} ≤ {w:,.0f} W", (0.995, w), xycoords=("axes fraction", "data"),
                    xytext=(0, 3), textcoords="offset points", ha="right", va="bottom", fontsize="x-small",
                    color=st.darker(st.PHASE_COLORS[phase], 0.2),
                    bbox=dict(boxstyle="square,pad=0.1", facecolor="white", edgecolor="none", alpha=0.8))
        top = max(top, float(w))
    band_label = str(triage_result.bands.label).split(":")[0]
    handles.append(Line2D([], [], color=st.GREY, linestyle=":", linewidth=1.4,
                          label=f"phase band edges ({band_label}, {triage_result.bands.board_power_w:,.0f} W board)"))
    alerts = list(raw.alerts)
    for al in alerts:
        t = float(al.time_s) - t0
        color = st.ALERT_COLORS.get(al.kind, st.BAD)
        ax.axvline(t, color=color, linewidth=2.2, zorder=5, gid=f"triage:alert:{al.kind}")
        ax.annotate(f"{al.kind.replace('_', ' ')}\n{_gpu_lists(al.gpus)}", (t, 1.0),
                    xycoords=("data", "axes fraction"), xytext=(-4, -4), textcoords="offset points", ha="right",
                    va="top", fontsize="small", fontweight="bold", color=color,
                    bbox=dict(boxstyle="round,pad=0.2", facecolor="white", edgecolor=color, alpha=0.9))
        handles.append(Line2D([], [], color=color, linewidth=2.2,
                              label=f"alert: {al.kind.replace('_', ' ')} at +{t:,.0f} s ({_gpu_lists(al.gpus)})"))
    if not alerts:
        handles.append(Line2D([], [], linestyle="none", label="no alerts"))
    ax.set_ylim(0, top * 1.12 if top > 0 else 1.0)
    if time.size:
        ax.set_xlim(float(np.min(time)), float(np.max(time)))
    ax.xaxis.set_major_formatter(st.thousands_formatter())
    ax.set_xlabel("time since the trace began (s)")
    ax.set_ylabel("board power per GPU (W)")
    st.grid(ax)
    total = sum(seconds.values())
    source = os.path.basename(str(tr.report.source)) or "trace"
    what = (f"{len(alerts)} alert{'' if len(alerts) == 1 else 's'}: " +
            "; ".join(f"{a.kind.replace('_', ' ')} at +{float(a.time_s) - t0:,.0f} s" for a in alerts[:3])
            + (" ..." if len(alerts) > 3 else "")) if alerts else "no alerts"
    ax.set_title(f"Power triage of {source}: {len(gpus)} GPUs, {total:,.0f} s\n{what}", fontsize="medium",
                 color=st.BAD if alerts else "black")
    leg = st.legend_outside(ax, handles + phase_handles)
    leg.set_title("power, alerts, phases (time)", prop={"size": "small"})
    return ax
